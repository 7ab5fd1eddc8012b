"""Tournament statistics: per-agent win rate and result per round with 95% intervals, ratings.

See :mod:`zanzibar_env.train.tournament` for what each figure means; this module computes them from the
game rows; the intervals come from :mod:`zanzibar_env.train.results.intervals` (scipy.stats): Wilson for the win
rate, a bootstrap over deals for the result per round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import zanzibar_env as zz
from zanzibar_env.train.results.intervals import ratio_interval, win_interval


@dataclass
class AgentSummary:
    """One agent's line of the results table (``*_low`` / ``*_high``: the bounds of 95% intervals)."""

    name: str
    games: int
    win_rate: float
    win_low: float
    win_high: float
    per_round: float
    per_round_low: float
    per_round_high: float
    mean_place: float
    rating_mu: float
    rating_sigma: float

    @property
    def rating(self) -> float:
        """Conservative openskill rating ``mu - 3 sigma``."""
        return self.rating_mu - 3 * self.rating_sigma


# ---- statistics -----------------------------------------------------------------------------------
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
        seated = int(seats.sum())
        win_rate = float(wins.sum()) / seated if seated else math.nan
        per_round = float(result.sum()) / float(rounds.sum()) if rounds.sum() else math.nan
        mu, sigma = ratings[name]
        out.append(
            AgentSummary(
                name,
                seated,
                win_rate,
                *win_interval(float(wins.sum()), seated),
                per_round,
                *ratio_interval(result[played], rounds[played]),
                float(np.mean(places)) if places else math.nan,
                mu,
                sigma,
            )
        )
    return sorted(out, key=lambda a: -a.rating)


def result_unit(ruleset: zz.Ruleset | str, short: bool = False) -> str:
    """What the result per round counts under a ruleset's stake (``short``: for a table heading).

    Pass the :class:`~zanzibar_env.Ruleset` that was played: a name is loaded again, and a custom ruleset
    file may share a shipped ruleset's name with another stake.
    """
    stake = zz.load_ruleset(ruleset).stake
    if stake == "penalty":
        return "penalty points avoided / round" if short else "minus penalty points (points per round)"
    if short:
        return "net chips given / round" if stake == "chips" else "lives change / round"
    return "net chips given away (chips per round)" if stake == "chips" else "lives change (lives per round)"
