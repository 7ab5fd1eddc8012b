"""How much can game play gain against round-optimal players? The exact answer for 3 players (a study).

:mod:`zanzibar_env.agents.exact.game3` solves the 3-player game when every player plays for the game. This module
asks the multi-player question instead: two seats play ``optimal`` (round play,
:mod:`zanzibar_env.agents.optimal`, which ignores the stacks) and one seat, the responder, maximises its own
probability of winning the game against them. Its win probability, beside that of ``optimal`` in the
same seat, is the most any player (a trained model included) can gain there by playing for the game.

Method: value iteration over (stack state, the responder's position in the order of play); each round
is solved backwards over the three turns as in :mod:`zanzibar_env.agents.exact.game3`, with the two ``optimal``
seats playing their tabled actions (read from :func:`zanzibar_env.agents.exact.cache.solved_tables` at their public
state: the lowest earlier rank, how many hold it, the highest's payment class, the roll limit) and the
responder maximising its component (indifferences as in :mod:`zanzibar_env.agents.exact.turn`). With ``respond=False``
the responder's seat also plays ``optimal``: the reference. The same rules as :mod:`zanzibar_env.agents.exact.game3`
(chips paid by the highest hand, roll-off ties, the first roller's limit); a shared win counts 1/k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zanzibar_env.agents.exact.cache import solved_tables
from zanzibar_env.agents.exact.game3 import TOL, Game3, make_game3, outcome_values, round_values
from zanzibar_env.agents.exact.round import RoundSpec
from zanzibar_env.agents.exact.turn import NUM_MULTISETS
from zanzibar_env.core.kernel import STOP
from zanzibar_env.core.rules import Ruleset


@dataclass
class Response3:
    """``value[s, p]``: the responder's win probability in stack state ``s`` (stacks of the first, second
    and third roller) when it rolls at position ``p``."""

    game: Game3
    value: np.ndarray
    sweeps: int


def _optimal_actions(ruleset: Ruleset) -> list[np.ndarray]:
    """``optimal``'s actions per position, rows as :func:`zanzibar_env.agents.exact.game3.round_values` orders them:
    ``[1, rmax - 1, 56]`` (first), ``[R * rmax, ...]`` by (first's rank, limit) (second),
    ``[R * R * rmax, ...]`` by (first's rank, second's rank, limit) (third); ``STOP`` where unreachable."""
    spec = RoundSpec.of(ruleset, 3)
    levels = solved_tables(ruleset, 3).levels
    r, rmax = spec.num_ranks, spec.max_rolls
    cls = spec.top_class(np.arange(r))

    def actions(q: int, lo: np.ndarray, k: np.ndarray, x: np.ndarray, lim: np.ndarray) -> np.ndarray:
        keys = levels[q].keys
        want = spec.encode(lo, k, x, lim)
        idx = np.searchsorted(keys, want).clip(0, len(keys) - 1)
        found = keys[idx] == want
        out = np.full((len(want), rmax - 1, NUM_MULTISETS), STOP, np.int64)
        out[found] = levels[q].policy[idx[found]]
        return out

    first = levels[0].policy[:1].astype(np.int64)
    ra, lim_b = (v.ravel() for v in np.meshgrid(np.arange(r), np.arange(1, rmax + 1), indexing="ij"))
    second = actions(1, ra, np.ones_like(ra), cls[ra], lim_b)
    a, b, lim_c = (
        v.ravel() for v in np.meshgrid(np.arange(r), np.arange(r), np.arange(1, rmax + 1), indexing="ij")
    )
    third = actions(2, np.minimum(a, b), 1 + (a == b), cls[np.maximum(a, b)], lim_c)
    return [first, second, third]


def _round(game: Game3, end: np.ndarray, p: int, fixed: list[np.ndarray], respond: bool) -> float:
    """The responder's value of one round (``end[R, R, R]``: its value by the three final ranks) when it
    rolls at position ``p``; the other positions play ``fixed``."""
    end3 = np.zeros((*end.shape, 3))
    end3[..., p] = end
    acts = tuple(None if (q == p and respond) else fixed[q] for q in range(3))
    return float(round_values(game.ruleset, end3, (p, p, p), acts)[p])


def respond3(ruleset: Ruleset, total: int, respond: bool = True, max_sweeps: int = 10_000) -> Response3:
    """The responder's win probabilities against two ``optimal`` seats (``respond=False``: playing
    ``optimal`` itself), by value iteration to ``TOL`` (``RuntimeError`` if ``max_sweeps`` do not reach
    it)."""
    game = make_game3(ruleset, total)
    fixed = _optimal_actions(ruleset)
    w = np.full((len(game.states), 3), 1 / 3)
    for k in range(1, max_sweeps + 1):
        ov = outcome_values(game, w).transpose(0, 2, 1)  # [S, p, class]: the responder's value at p
        new = np.array(
            [
                [_round(game, ov[i, p][game.outcome], p, fixed, respond) for p in range(3)]
                for i in range(len(w))
            ]
        )
        change = float(np.abs(new - w).max())
        w = new
        if change < TOL:
            return Response3(game, w, k)
    raise RuntimeError(f"value iteration did not reach {TOL} in {max_sweeps} sweeps")
