"""The solver, the optimal bot and exact evaluation under the options of RULES.md §7-§9.

The brute force here plays a 2-player round by plain expectimax over the actual dice, re-throwing the
unheld dice by enumeration and remembering the best throw of the turn under ``final_hand: best``,
independently of the solver's compressed states and transition tables.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest

import zanzibar_env as zz
from tests.cache import isolated_cache  # noqa: F401  (autouse fixture)
from zanzibar_env.agents.exact import batch_to_views, decision_states, exploitability
from zanzibar_env.agents.exact.round import RoundSpec, seat_values, solve
from zanzibar_env.agents.exact.turn import TIE_EPS
from zanzibar_env.agents.optimal import OptimalAgent
from zanzibar_env.core.hands import MULTISETS, Hand
from zanzibar_env.core.observation import ViewBatch

Dice = tuple[int, int, int]
SEED_TABLE: dict[str, Any] = {"zanzibar": 0, "three_of_a_kind": "face", "pair": 1, "sum": 1}
LIVES_BY_TOP: dict[str, Any] = {"payment": "lives_by_highest_hand", "lives_table": SEED_TABLE}


Value = tuple[float, float]  # expected round result of (seat 0, seat 1)


@cache
def throw(kept: tuple[int, ...]) -> tuple[tuple[Dice, float], ...]:
    """Outcomes of keeping the dice ``kept`` and throwing the others, with their probabilities."""
    counts: Counter[Dice] = Counter()
    for new in itertools.product(range(1, 7), repeat=3 - len(kept)):
        a, b, c = sorted(kept + new)
        counts[(a, b, c)] += 1
    total = 6 ** (3 - len(kept))
    return tuple((m, k / total) for m, k in counts.items())


class Brute:
    """Subgame-perfect values of a 2-player round (seat 0 rolls first) by expectimax over dice."""

    def __init__(self, rules: zz.Ruleset) -> None:
        self.rules = rules
        self.masks = range(7) if rules.holds_allowed else [0]
        self.hands = {m: rules.score(m) for m in MULTISETS}
        self.second_memo: dict[tuple[int, int], Value] = {}

    def is_instant(self, dice: Dice) -> bool:
        return self.rules.instant_zanzibar != "off" and self.hands[dice].category == "zanzibar"

    def kept(self, best: Dice | None, dice: Dice) -> Dice:
        """The turn's hand so far (``best``: before this throw, ``None`` at the first): the best throw
        (earliest on ties) or the last one."""
        if best is None or self.rules.final_hand == "last" or self.hands[dice] > self.hands[best]:
            return dice
        return best

    def cost(self, top: Hand) -> float:
        """What the loser pays (chips received count against it) for the round's top hand ``top``."""
        r = self.rules
        if r.stake == "chips":
            return float(r.payments[top.category])
        value = r.lives_table[top.category] if r.payment == "lives_by_highest_hand" else r.lives_lost
        return float(top.dice[0] if value == "face" else value)

    def settle(self, h0: Dice, h1: Dice) -> Value:
        a, b = self.hands[h0], self.hands[h1]
        cost = self.cost(max(a, b))
        chips = self.rules.stake == "chips"
        if a == b:  # chips: nobody pays on average (roll-off) or at all (all lose); lives: 1/2 or all
            share = 0.0 if chips else cost * (0.5 if self.rules.tie_rule == "rolloff" else 1.0)
            return (-share, -share)
        won = cost if chips else 0.0
        return (-cost, won) if a < b else (won, -cost)

    def turn(self, me: int, limit: int, stop: Callable[[int, Dice], Value], inst: Value) -> Value:
        """Expected values before a turn's first roll; ``stop(r, hand)``: ending after roll ``r``."""
        memo: dict[tuple[int, Dice, Dice], Value] = {}
        after: dict[tuple[int, Dice | None, tuple[int, ...]], Value] = {}

        def throw_on(r: int, best: Dice | None, kept: tuple[int, ...]) -> Value:
            key = (r, best, kept)
            if key not in after:
                v0 = v1 = 0.0
                for m, p in throw(kept):
                    a, b = value(r, m, self.kept(best, m))
                    v0, v1 = v0 + p * a, v1 + p * b
                after[key] = (v0, v1)
            return after[key]

        def value(r: int, dice: Dice, best: Dice) -> Value:
            if self.is_instant(dice):
                return inst
            key = (r, dice, best)
            if key not in memo:
                options = [stop(r, best)]
                if r < limit:  # ties: stop first, then the lowest mask (as the solver)
                    for mask in self.masks:
                        kept = tuple(d for i, d in enumerate(dice) if mask >> i & 1)
                        options.append(throw_on(r + 1, best, kept))
                top = max(v[me] for v in options)
                memo[key] = next(v for v in options if v[me] >= top - TIE_EPS)
            return memo[key]

        return throw_on(1, None, ())

    def second(self, h0: Dice, limit: int) -> Value:
        key = (self.hands[h0].rank, limit)
        if key not in self.second_memo:
            inst = (0.0, 0.0)
            if self.rules.instant_zanzibar == "worst_so_far_loses":  # seat 0 is the worst so far
                top = self.hands[(4, 5, 6) if self.rules.hand_ranking == "zanzibar_456" else (1, 2, 4)]
                cost = self.cost(top)
                inst = (-cost, cost if self.rules.stake == "chips" else 0.0)
            self.second_memo[key] = self.turn(1, limit, lambda r, h1: self.settle(h0, h1), inst)
        return self.second_memo[key]

    def values(self) -> np.ndarray:
        r = self.rules
        first = self.turn(
            0,
            r.max_rolls,
            lambda k, h0: self.second(h0, k if r.first_roller_sets_limit else r.max_rolls),
            (0.0, 0.0),
        )
        return np.array(first)


BRUTE_CASES = {
    "classic-best-2": zz.load_ruleset("classic", final_hand="best", max_rolls=2),
    "classic-best-noholds-3": zz.load_ruleset("classic", final_hand="best", holds_allowed=False),
    "alt-best-all-2": zz.load_ruleset("alt_chips", final_hand="best", max_rolls=2, tie_rule="all"),
    "lives-best-top-noholds-3": zz.load_ruleset(
        "lives", final_hand="best", holds_allowed=False, **LIVES_BY_TOP, first_roller_sets_limit=True
    ),
    "lives-best-top-instant-2": zz.load_ruleset(
        "lives", final_hand="best", max_rolls=2, **LIVES_BY_TOP, instant_zanzibar="worst_so_far_loses"
    ),
    "penalty-best-2": zz.load_ruleset("penalty", final_hand="best", max_rolls=2, tie_rule="rolloff"),
    "lives-top-2": zz.load_ruleset("lives", max_rolls=2, **LIVES_BY_TOP),
}


@pytest.mark.parametrize("rules", BRUTE_CASES.values(), ids=BRUTE_CASES.keys())
def test_two_player_values_match_brute_force(rules: zz.Ruleset) -> None:
    spec = RoundSpec.of(rules, 2)
    assert np.allclose(seat_values(spec, solve(spec)), Brute(rules).values(), atol=1e-9)


EXPLOIT_CASES = {
    "lives-top": zz.load_ruleset("lives", **LIVES_BY_TOP),
    "lives-top-instant-rolloff": zz.load_ruleset(
        "lives", **LIVES_BY_TOP, instant_zanzibar="worst_so_far_loses", tie_rule="rolloff"
    ),
    "penalty": zz.load_ruleset("penalty"),
    "penalty-top": zz.load_ruleset("penalty", **LIVES_BY_TOP),
    "classic-best": zz.load_ruleset("classic", final_hand="best"),
    "lives-best": zz.load_ruleset("lives", final_hand="best"),
}


@pytest.mark.parametrize("rules", EXPLOIT_CASES.values(), ids=EXPLOIT_CASES.keys())
def test_optimal_is_unexploitable_under_each_option(rules: zz.Ruleset) -> None:
    ex = exploitability("optimal", rules)
    assert abs(ex["seat0"]) < 1e-9 and abs(ex["seat1"]) < 1e-9
    assert ex["vs_self_seat0"] == pytest.approx(ex["game_value_seat0"], abs=1e-12)
    assert ex["vs_optimal_seat1"] == pytest.approx(ex["game_value_seat1"], abs=1e-12)


def test_a_best_response_to_a_last_throw_player_gains_under_best() -> None:
    """The optimal bot of final_hand last, playing a final_hand best round, is exploitable (it stops too
    early): evidence that the bot really uses the best throw so far."""
    last = OptimalAgent(use_disk=False)
    ds = decision_states(zz.load_ruleset("classic", final_hand="best"))
    plain = ViewBatch(**{f: getattr(ds.batch, f) for f in ViewBatch.__dataclass_fields__})
    plain.ruleset = zz.load_ruleset("classic")
    acts_last = last.act_batch(plain)
    acts_best = last.act_batch(ds.batch)
    assert (acts_last != acts_best).any()
    ex = exploitability(_Fixed(acts_last, ds.batch), ds.batch.ruleset)  # type: ignore[arg-type]
    assert ex["average"] > 1e-3


class _Fixed:
    """An agent answering a known batch with fixed actions (row by row); ``act`` is never called."""

    def __init__(self, acts: np.ndarray, batch: ViewBatch) -> None:
        self.acts, self.batch = acts, batch

    def act(self, view: object) -> int:
        raise NotImplementedError

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        assert len(batch) == len(self.batch) and np.array_equal(batch.dice, self.batch.dice)
        return self.acts


def test_default_lives_table_plays_like_one_life_and_penalty_like_lives() -> None:
    one = RoundSpec.of(zz.load_ruleset("lives"), 3)
    top = RoundSpec.of(zz.load_ruleset("lives", payment="lives_by_highest_hand"), 3)
    pen = RoundSpec.of(zz.load_ruleset("penalty"), 3)
    base = solve(one)
    for spec in (top, pen):
        levels = solve(spec)
        assert np.allclose(seat_values(spec, levels), seat_values(one, base), atol=1e-12)
        assert all(np.array_equal(a.policy, b.policy) for a, b in zip(levels, base, strict=True))


def test_seed_table_costs_more_lives_than_one_life() -> None:
    """Seed 001's table read as numbers (three n's cost n) makes rounds dearer for both seats."""
    values = {}
    for name, rules in (
        ("one", zz.load_ruleset("lives")),
        ("seed", zz.load_ruleset("lives", **LIVES_BY_TOP)),
    ):
        spec = RoundSpec.of(rules, 2)
        values[name] = seat_values(spec, solve(spec))
    assert (values["seed"] < values["one"]).all()


def test_optimal_bot_reads_turn_best_rank_under_best(tmp_path: Any) -> None:
    rules = zz.load_ruleset("classic", final_hand="best")
    agent = OptimalAgent(cache_dir=tmp_path)
    ds = decision_states(rules)
    acts = agent.act_batch(ds.batch)
    levels = agent.tables(rules, 2).levels
    for q in (0, 1):
        sel = ds.q == q
        assert np.array_equal(acts[sel], levels[q].policy[ds.s[sel], ds.r[sel] - 1, ds.b[sel], ds.m[sel]])
    # once the best throw is the top hand (4-5-6) nothing can improve it: stop (ties go to stopping)
    assert (acts[ds.b == rules.table.num_ranks - 1] == 7).all()
    # the same dice at the same state and roll are played differently for different best throws
    cells = np.stack([ds.q, ds.s, ds.r, ds.m], 1)
    _, inverse = np.unique(cells, axis=0, return_inverse=True)
    spread = np.zeros(inverse.max() + 1, bool)
    first = np.full(inverse.max() + 1, -1)
    for i, (c, a) in enumerate(zip(inverse.ravel(), acts, strict=True)):
        if first[c] < 0:
            first[c] = a
        spread[c] |= first[c] != a
        del i
    assert spread.any()
    view = zz.RoundState(rules, [20, 20], 0, zz.ScriptedDice([6, 6, 6])).view()
    assert view.turn_best_rank == rules.score((6, 6, 6)).rank  # the engine's View carries it (§9)
    assert agent.act(view) in range(8)


def test_decision_states_under_best_cover_every_best_rank() -> None:
    ds = decision_states(zz.load_ruleset("classic", final_hand="best"))
    rank = zz.load_ruleset("classic").table.rank_of_multiset
    assert (ds.b >= rank[ds.m]).all() and (ds.b[ds.r == 1] == rank[ds.m[ds.r == 1]]).all()
    assert np.array_equal(ds.batch.turn_best_rank, ds.b)  # type: ignore[attr-defined]
    assert len(np.unique(ds.b[ds.r == 2])) == rank.max() + 1
    assert len(MULTISETS) == 56


def test_scalar_act_and_evaluate_agree_with_the_batch_under_best(tmp_path: Any) -> None:
    rules = zz.load_ruleset("lives", final_hand="best", **LIVES_BY_TOP)
    agent = OptimalAgent(cache_dir=tmp_path)
    ds = decision_states(rules)
    acts = agent.act_batch(ds.batch)
    rows = np.random.default_rng(0).choice(len(ds.q), 300, replace=False)
    views = batch_to_views(ds.batch)
    for i in rows:
        view = views[i]._replace(turn_best_rank=int(ds.b[i]))
        assert agent.act(view) == acts[i]
        values = agent.evaluate(view)
        assert values[int(acts[i])] >= max(values.values()) - 1e-9
