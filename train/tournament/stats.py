"""Tournament statistics: per-agent win rate and result per round with cluster intervals, ratings.

See :mod:`zanzibar_env.train.tournament` for what each figure means; this module computes them from the
game rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import zanzibar_env as zz

Z95 = 1.959963984540054


@dataclass
class AgentSummary:
    """One agent's line of the results table (``*_ci`` are 95% half-widths)."""

    name: str
    games: int
    win_rate: float
    win_ci: float
    per_round: float
    per_round_ci: float
    mean_place: float
    rating_mu: float
    rating_sigma: float

    @property
    def rating(self) -> float:
        """Conservative openskill rating ``mu - 3 sigma``."""
        return self.rating_mu - 3 * self.rating_sigma


# ---- statistics -----------------------------------------------------------------------------------
def ratio_ci(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    """``sum(num) / sum(den)`` and its 95% half-width, treating entries as independent clusters."""
    total = float(den.sum())
    if total == 0:
        return math.nan, math.nan
    ratio = float(num.sum()) / total
    n = len(num)
    if n < 2:
        return ratio, math.nan
    resid = num - ratio * den
    return ratio, Z95 * math.sqrt(float((resid**2).sum()) * n / (n - 1)) / total


def _ratings(games: list[dict], names: list[str]) -> dict[str, tuple[float, float]]:
    """openskill Plackett-Luce ``(mu, sigma)`` per agent, updated game by game (copies averaged)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    for g in games:
        teams = [[ratings[a]] for a in g["agents"]]
        new = model.rate(teams, ranks=list(g["place"]))
        for a in set(g["agents"]):
            mine = [t[0] for t, who in zip(new, g["agents"], strict=True) if who == a]
            ratings[a] = model.rating(
                mu=float(np.mean([r.mu for r in mine])), sigma=float(np.mean([r.sigma for r in mine])), name=a
            )
    return {n: (r.mu, r.sigma) for n, r in ratings.items()}


def summarise(games: list[dict], names: list[str]) -> list[AgentSummary]:
    """Per-agent summary (sorted by rating, best first) from the game rows."""
    deals = sorted({g["deal"] for g in games})
    col = {d: i for i, d in enumerate(deals)}
    ratings = _ratings(games, names)
    out = []
    for name in names:
        wins, seats, result, rounds = (np.zeros(len(deals)) for _ in range(4))
        places = []
        for g in games:
            for s, a in enumerate(g["agents"]):
                if a == name:
                    i = col[g["deal"]]
                    wins[i] += g["win"][s]
                    seats[i] += 1
                    result[i] += g["result"][s]
                    rounds[i] += g["rounds"]
                    places.append(g["place"][s])
        played = seats > 0
        wr, wci = ratio_ci(wins[played], seats[played])
        pr, pci = ratio_ci(result[played], rounds[played])
        mu, sigma = ratings[name]
        out.append(
            AgentSummary(
                name,
                int(seats.sum()),
                wr,
                wci,
                pr,
                pci,
                float(np.mean(places)) if places else math.nan,
                mu,
                sigma,
            )
        )
    return sorted(out, key=lambda a: -a.rating)


def result_unit(ruleset_name: str, short: bool = False) -> str:
    """What the result per round counts under a ruleset's stake (``short``: for a table heading)."""
    stake = zz.load_ruleset(ruleset_name).stake
    if stake == "penalty":
        return "penalty points avoided / round" if short else "minus penalty points (points per round)"
    if short:
        return "net chips given / round" if stake == "chips" else "lives change / round"
    return "net chips given away (chips per round)" if stake == "chips" else "lives change (lives per round)"
