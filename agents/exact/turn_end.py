"""Expected round results at the end of a turn, 2-player rounds: the rest of the round averaged exactly.

When a player's turn ends, what is left of a 2-player round is the other player's turn (if it rolls
second: none) and the roll-off of a tie. Both are chance and the round solver's policy, so the
player's expected result given its final hand is a number the solver already holds
(:func:`zanzibar_env.agents.exact.round.position_turns`'s stop values). :func:`turn_end_values` collects them as tables:

- ``first[L - 1, h]``: the first roller ends its turn after ``L`` rolls with a hand of rank ``h``; the
  second roller plays :class:`~zanzibar_env.agents.optimal.OptimalAgent`. An exact best response to the
  first roller (:func:`zanzibar_env.agents.exact.best_response.best_response`, the training exploiter)
  gives the same values: it sees the first hand, so its turn is the same one-player problem, and it
  breaks ties between actions as the solver does (``tests/exact/test_expected_reward.py`` checks this in every
  shipped ruleset).
- ``second[L - 1, f, h]``: the second roller ends with rank ``h`` against the first roller's rank ``f``
  and the roll limit ``L``; only a roll-off is left (averaged).

Results are in the solver's units: chips given away minus chips received (positive = good), or minus
lives lost, the same as the envs' ``"chips"`` reward in a one-round episode. A rank that ends the turn
at once (an instant Zanzibar) holds that hand's value. ``zanzibar_env.train.sb3.expected_reward`` uses the tables to
replace a sampled round result by its expectation (same mean, less noise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.cache import solved_tables
from zanzibar_env.agents.exact.round import RoundSpec, lookup, position_turns, successor_keys
from zanzibar_env.agents.exact.turn import TurnProblem, representatives
from zanzibar_env.core.rules import Ruleset, load_ruleset


@dataclass(frozen=True)
class TurnEndValues:
    """Expected round results at the end of a turn (see the module docstring)."""

    first: np.ndarray  # float[max_rolls, num_ranks]
    second: np.ndarray  # float[max_rolls, num_ranks, num_ranks]; nan where the first hand ends the round

    def expected(
        self, hand_ranks: np.ndarray, first_roller: np.ndarray, roll_limit: np.ndarray
    ) -> np.ndarray:
        """Expected result of the player at index 0 of ``hand_ranks`` (``int[B, 2]``: its rank, the other
        player's), who rolled first where ``first_roller == 0``, with the round's ``roll_limit``; ``nan``
        where the player had no hand (rank -1: the round ended before its turn)."""
        ranks = np.asarray(hand_ranks, np.int64)
        own, other = ranks[:, 0], ranks[:, 1]
        lim = np.asarray(roll_limit, np.int64) - 1
        is_first = np.asarray(first_roller) == 0
        ok = own >= 0
        o, x = np.maximum(own, 0), np.maximum(other, 0)
        out = np.where(is_first, self.first[lim, o], self.second[lim, x, o])
        return np.where(ok, out, np.nan)


def _stop_values(spec: RoundSpec, tp: TurnProblem, rep: np.ndarray) -> np.ndarray:
    """``float[S, Rt, num_ranks]``: stop values of ``tp`` by rank (an instant hand: its own value)."""
    out = tp.stop[:, :, rep].astype(np.float64, copy=True)
    if spec.instant_m is not None:
        assert tp.instant_value is not None
        out[:, :, spec.rank_of_m[spec.instant_m]] = tp.instant_value[:, None]
    return out


def turn_end_values(ruleset: str | Ruleset | dict[str, Any] = "classic") -> TurnEndValues:
    """The tables of ``ruleset``'s 2-player round (solved once, cached like ``optimal``'s)."""
    rules = load_ruleset(ruleset)
    solved = solved_tables(rules, 2)
    spec, levels = solved.spec, solved.levels
    rep, rmax = representatives(spec.rank_of_m), spec.max_rolls  # (stop values depend on the rank only)
    start = levels[0].keys
    nxt0 = lookup(levels[1].keys, successor_keys(spec, 0, start))
    stop0 = _stop_values(spec, position_turns(spec, 0, start, nxt0, levels[1]), rep)[0]  # [Rt, R]
    first = np.broadcast_to(stop0, (rmax, spec.num_ranks)).copy()
    nxt1 = lookup(levels[2].keys, successor_keys(spec, 1, levels[1].keys))
    stop1 = _stop_values(spec, position_turns(spec, 1, levels[1].keys, nxt1, levels[2]), rep)[:, 0]  # [S1, R]
    keys = successor_keys(spec, 0, start)[0]  # [Rt, 56]: the state after the first turn
    second = np.full((rmax, spec.num_ranks, spec.num_ranks), np.nan)
    for lim in range(1, rmax + 1):
        row = lookup(levels[1].keys, keys[min(lim, keys.shape[0]) - 1, rep])  # [R]; -1: instant
        second[lim - 1] = np.where(row[:, None] >= 0, stop1[np.maximum(row, 0)], np.nan)
    return TurnEndValues(first=first, second=second)
