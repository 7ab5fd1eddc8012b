"""The single env's fast paths agree with the definitions they stand in for, on every input tried.

* :meth:`Encoder.one` (float32 bytes joined from the encoder's tables) against :meth:`Encoder.rows`
  (numpy, the vector env's encoder) over a grid of public states and seat blocks;
* :meth:`RoundState.view` (the named tuple built positionally) against ``View`` built by keyword from
  the round's documented properties;
* the env's instance attributes stay few enough for CPython to share their keys (a speed guard).
"""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest

import zanzibar_env  # noqa: F401  (registers the ids)
from zanzibar_env.core.dice import RandomDice
from zanzibar_env.core.engine import View
from zanzibar_env.core.game import GameState
from zanzibar_env.core.observation import MAX_EARLIER_PAYMENTS, encoder
from zanzibar_env.core.rules import MAX_PLAYERS, load_ruleset

SPECS = ["classic", "alt_chips", "lives", "penalty", "simple_scoring", "max_rolls_2"]


@pytest.mark.parametrize("spec", SPECS)
def test_one_matches_rows_on_a_grid(spec: str) -> None:
    rules = load_ruleset("classic", max_rolls=2) if spec == "max_rolls_2" else load_ruleset(spec)
    enc, top = encoder(rules), rules.table.num_ranks - 1
    rng = np.random.default_rng(0)
    cases = []
    for ms, used, limit, is_first in itertools.product(range(56), range(1, 4), range(1, 4), (False, True)):
        if used > rules.max_rolls or limit > rules.max_rolls:
            continue
        lo = int(rng.integers(-1, top + 1))
        hi = -1 if lo < 0 else int(rng.integers(lo, top + 1))
        best = int(rng.choice([rules.table.rank_of_multiset[ms], rng.integers(0, top + 1), lo, hi]))
        best = max(best, 0)
        paid = int(rng.choice([0, rng.integers(0, MAX_EARLIER_PAYMENTS + 1), MAX_EARLIER_PAYMENTS + 5]))
        cases.append((ms, best, used, limit, is_first, int(rng.integers(0, 8)), lo, int(rng.integers(0, 8)),
                      hi, paid))  # fmt: skip
    for n in range(2, MAX_PLAYERS + 1):
        stacks = rng.integers(0, 3 * max(rules.stack_scale, 1), size=(len(cases), n))
        active = rng.integers(0, 2, size=(len(cases), n)).astype(bool)
        cols = [np.array(c, np.int64) for c in zip(*cases, strict=True)]
        want = enc.rows(*cols, stacks, active)
        for i, case in enumerate(cases):
            got = enc.one(*case, enc.tail(stacks[i].tolist(), active[i].tolist()))
            assert got.dtype == np.float32 and got.shape == (33,) and got.flags.writeable
            np.testing.assert_array_equal(got, want[i], err_msg=f"{spec} n={n} case {case}")


@pytest.mark.parametrize("ruleset", ["classic", "lives"])
def test_view_fields_match_the_properties(ruleset: str) -> None:
    rules = load_ruleset(ruleset)
    rng, checked = np.random.default_rng(1), 0
    g = GameState(rules, 4, RandomDice(2), max_rounds=20)
    while g.current_seat is not None:
        rs, seat = g.round, g.current_seat
        rel = [(i + seat) % 4 for i in range(4)]
        want = View(
            ruleset=rules, seat=seat, num_players=4, dice=rs.dice, rolls_used=rs.rolls_used,
            roll_limit=rs.turn_limit, is_first=rs.position == 0, players_after=rs.players_after,
            lowest=rs.hands[rs.lowest_seats[0]] if rs.lowest_rank >= 0 else None,
            lowest_count=rs.lowest_count,
            highest=rs.hands[rs.highest_seat] if rs.highest_seat is not None else None,
            earlier_payments=rs.earlier_payments, stacks=tuple(rs.stacks[s] for s in rel),
            active=tuple(rs.active[s] for s in rel), turn_best_rank=rs.turn_best_rank,
        )  # fmt: skip
        got = g.view()
        assert type(got) is View and got == want
        checked += 1
        g.apply(int(rng.integers(8)))
    assert checked > 100


def test_env_attributes_stay_shared_key() -> None:
    env = gym.make("Zanzibar-v1", obs_type="dict")
    env.reset(seed=0)
    env.step(7)
    # CPython 3.11-3.13 share an instance dict's keys for at most 30 attributes; past that every
    # attribute access of the env is slower (env.py says so where the attributes are set)
    assert len(vars(env.unwrapped)) <= 29, sorted(vars(env.unwrapped))
