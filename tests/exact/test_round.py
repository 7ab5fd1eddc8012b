"""The exact round-optimal solver and the optimal agent: dice probabilities, brute-force checks, look-ups.

The brute-force references here re-derive each round's result from the hands alone, following the
engine's settlement (instant Zanzibars, roll-offs as expectations, "all tied lose", payments by the
highest hand or by each payer's own hand, lives), independently of the solver's compressed states.
"""

from __future__ import annotations

import io
import itertools
import pickle
from collections.abc import Sequence
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import zanzibar_env as zz
from zanzibar_env.agents.exact import cli as solve_cli
from zanzibar_env.agents.exact.cache import _MEMORY, solved_tables, table_key
from zanzibar_env.agents.exact.round import RoundSpec, lookup, seat_values, solve
from zanzibar_env.agents.exact.turn import TIE_EPS
from zanzibar_env.agents.optimal import OptimalAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.hands import MULTISET_INDEX, MULTISETS
from zanzibar_env.core.kernel import transition_probs
from zanzibar_env.core.observation import ViewBatch

RULESETS = ["classic", "simple_scoring", "alt_chips", "lives"]
#: RULES.md §7 with seed 001's own numbers (4-2-1: 2 here, so that it matters under worst_so_far_loses).
LIVES_BY_TOP: dict[str, Any] = {
    "payment": "lives_by_highest_hand",
    "lives_table": {"zanzibar": 2, "three_of_a_kind": "face", "pair": 1, "sum": 1},
}


def brute_lives(rules: zz.Ruleset, top: Any) -> int:
    """Lives (points) each loser loses when ``top`` is the round's highest hand, read off RULES.md §7."""
    if rules.payment == "one_life":
        return rules.lives_lost
    value = rules.lives_table[top.category]
    return top.dice[0] if value == "face" else int(value)


def brute_result(rules: zz.Ruleset, ms: Sequence[int]) -> np.ndarray:
    """Expected round result per seat (seat order = rolling order) for final multisets ``ms``.

    If a hand is an instant Zanzibar, later entries of ``ms`` are ignored (those seats never roll).
    """
    t, n = rules.table, len(ms)
    rank = t.rank_of_multiset
    cat = [t.categories[c] for c in t.category_of_multiset]
    res = np.zeros(n)
    z = next((i for i, m in enumerate(ms) if rules.instant_zanzibar != "off" and cat[m] == "zanzibar"), None)
    if z is not None:
        if rules.instant_zanzibar == "no_loss" or z == 0:
            return res
        worst = min(rank[ms[i]] for i in range(z))
        tied = [i for i in range(z) if rank[ms[i]] == worst]
        top = t.hand_of_rank(t.num_ranks - 1)
    else:
        worst = min(rank[m] for m in ms)
        tied = [i for i in range(n) if rank[ms[i]] == worst]
        top = t.hands[ms[max(range(n), key=lambda i: rank[ms[i]])]]
    hi_cat = top.category
    groups = [tied] if len(tied) == 1 or rules.tie_rule == "all" else [[i] for i in tied]
    for losers in groups:
        w = 1.0 / len(groups)
        for loser in losers:
            if rules.stake != "chips":  # lives and penalty points
                res[loser] -= w * brute_lives(rules, top)
                continue
            for s in (s for s in range(n) if s not in losers):
                amt = rules.payment_of(hi_cat if rules.payment == "highest_hand" else cat[ms[s]])
                res[s] += w * amt
                res[loser] -= w * amt
    return res


def test_transition_probabilities() -> None:
    p, p3 = transition_probs()
    assert np.allclose(p.sum(axis=2), 1.0)
    assert np.array_equal(p[:, 7], np.eye(56))
    assert p3[MULTISET_INDEX[(1, 1, 1)]] == pytest.approx(1 / 216)
    assert p3[MULTISET_INDEX[(4, 5, 6)]] == pytest.approx(6 / 216)
    assert p3[MULTISET_INDEX[(1, 1, 2)]] == pytest.approx(3 / 216)
    # keep the two sixes of 1-6-6 (mask 0b110): a six with probability 1/6
    assert p[MULTISET_INDEX[(1, 6, 6)], 6, MULTISET_INDEX[(6, 6, 6)]] == pytest.approx(1 / 6)
    # re-throw only the 1 of 1-2-3 (mask 0b110 keeps 2 and 3): 1-2-3 again with probability 1/6
    assert p[MULTISET_INDEX[(1, 2, 3)], 6, MULTISET_INDEX[(1, 2, 3)]] == pytest.approx(1 / 6)


def _no_decision_variants() -> list[zz.Ruleset]:
    s = zz.load_ruleset("simple_scoring", max_rolls=1)
    return [
        s,
        s.replace(tie_rule="all"),
        s.replace(instant_zanzibar="no_loss"),
        s.replace(instant_zanzibar="worst_so_far_loses", tie_rule="all"),
        s.replace(instant_zanzibar="worst_so_far_loses"),
        s.replace(payment="own_hand"),
        s.replace(payment="own_hand", tie_rule="all", payments={"points": 1, "one_two_three": 3,
                                                                 "three_of_a_kind": 5, "zanzibar": 9}),
        zz.load_ruleset("lives", max_rolls=1, hand_ranking="zanzibar_456", one_points=1, six_points=6),
        zz.load_ruleset("lives", max_rolls=1, hand_ranking="zanzibar_456", one_points=1, six_points=6,
                        instant_zanzibar="worst_so_far_loses", tie_rule="rolloff"),
        # RULES.md §7-§8: lives (penalty points) by the round's top hand
        zz.load_ruleset("lives", max_rolls=1, **LIVES_BY_TOP),
        zz.load_ruleset("lives", max_rolls=1, **LIVES_BY_TOP, tie_rule="rolloff",
                        instant_zanzibar="worst_so_far_loses"),
        zz.load_ruleset("penalty", max_rolls=1, **LIVES_BY_TOP, instant_zanzibar="off", tie_rule="rolloff"),
        zz.load_ruleset("penalty", max_rolls=1, lives_lost=2),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "rules", _no_decision_variants(), ids=lambda r: f"{r.payment}-{r.tie_rule}-{r.instant_zanzibar}"
)
def test_no_decisions_matches_brute_force_three_players(rules: zz.Ruleset) -> None:
    """max_rolls=1: no decisions; each seat's value is the exact expectation over all 56^3 hand triples."""
    spec = RoundSpec.of(rules, 3)
    levels = solve(spec)
    assert all(lv.policy.shape[1] == 0 for lv in levels[:3])
    _, p3 = transition_probs()
    ranks = rules.table.rank_of_multiset
    # one multiset per rank (equal rank: equal hand and category), weighted by the probability of the rank
    reps = {int(r): int(np.flatnonzero(ranks == r)[0]) for r in np.unique(ranks)}
    prob = {m: float(p3[ranks == r].sum()) for r, m in reps.items()}
    expected = np.zeros(3)
    for ms in itertools.product(prob, repeat=3):
        expected += prob[ms[0]] * prob[ms[1]] * prob[ms[2]] * brute_result(rules, ms)
    assert np.allclose(seat_values(spec, levels), expected, atol=1e-12)


def brute_two_player(rules: zz.Ruleset) -> np.ndarray:  # noqa: C901  (an oracle, written plainly)
    """Seat values of the subgame-perfect 2-player round by plain expectimax over the actual hands."""
    p, p3 = transition_probs()
    legal = range(7) if rules.holds_allowed else [0]
    inst = (
        None
        if rules.instant_zanzibar == "off"
        else MULTISET_INDEX[rules.table.hand_of_rank(rules.table.num_ranks - 1).dice]
    )

    def turn(limit: int, term: np.ndarray, me: int) -> np.ndarray:
        """``U[m, seat]`` on arriving at ``m`` on roll 1 of a turn where ``me`` maximises its component."""
        u = term.copy()
        for _ in range(limit - 1):
            nxt = u.copy()
            for m in range(56):
                if m == inst:
                    continue
                best = term[m]
                for a in legal:
                    v = p[m, a] @ u
                    if v[me] > best[me] + TIE_EPS:
                        best = v
                nxt[m] = best
            u = nxt
        return u

    def second(m0: int, limit: int) -> np.ndarray:
        term = np.array([brute_result(rules, [m0, m1]) for m1 in range(56)])
        return p3 @ turn(limit, term, 1)

    def first_term(r: int) -> np.ndarray:
        lim = r if rules.first_roller_sets_limit else rules.max_rolls
        return np.array([brute_result(rules, [m0, 0]) if m0 == inst else second(m0, lim) for m0 in range(56)])

    terms = [first_term(r) for r in range(1, rules.max_rolls + 1)]
    u = terms[-1]
    for r in range(rules.max_rolls - 1, 0, -1):
        nxt = u.copy()
        for m in range(56):
            best = terms[r - 1][m]
            for a in legal if m != inst else []:
                v = p[m, a] @ u
                if v[0] > best[0] + TIE_EPS:
                    best = v
            nxt[m] = best
        u = nxt
    return p3 @ u  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "rules",
    [
        zz.load_ruleset("simple_scoring", max_rolls=2),
        zz.load_ruleset("classic", max_rolls=2, instant_zanzibar="worst_so_far_loses"),
        zz.load_ruleset("lives", max_rolls=2),
        zz.load_ruleset("alt_chips", holds_allowed=False, tie_rule="all"),
        zz.load_ruleset("simple_scoring", first_roller_sets_limit=False),
        zz.load_ruleset("lives", max_rolls=2, **LIVES_BY_TOP, instant_zanzibar="worst_so_far_loses"),
        zz.load_ruleset("penalty", max_rolls=2, **LIVES_BY_TOP, tie_rule="rolloff"),
    ],
    ids=[
        "simple2",
        "classic2-instant",
        "lives2",
        "alt-noholds",
        "simple-nolimit",
        "lives2-top",
        "penalty2-top",
    ],
)
def test_two_player_matches_brute_force_expectimax(rules: zz.Ruleset) -> None:
    spec = RoundSpec.of(rules, 2)
    assert np.allclose(seat_values(spec, solve(spec)), brute_two_player(rules), atol=1e-9)


@pytest.mark.parametrize("name", ["classic", "alt_chips"])
def test_chip_rounds_are_zero_sum(name: str) -> None:
    for n in (3, 5):
        spec = RoundSpec.of(zz.load_ruleset(name), n)
        v = seat_values(spec, solve(spec))
        assert abs(v.sum()) < 1e-9 and v[0] > 0


def _views(rules: zz.Ruleset, n: int, rounds: int, seed: int, stacks: list[int] | None = None) -> list[View]:
    views: list[View] = []
    rand = zz.RandomDice(seed)
    pick = np.random.default_rng(seed)

    def policy(v: View) -> int:
        views.append(v)
        return int(pick.integers(8)) if rules.holds_allowed else int(pick.choice([0, 7]))

    stacks = stacks or [rules.starting_stack] * n
    seats = [s for s in range(n) if stacks[s] > 0]
    for i in range(rounds):
        zz.play_round(rules, policy, stacks=stacks, starting_seat=seats[i % len(seats)], dice=rand)
    return views


@pytest.mark.parametrize("name", RULESETS)
def test_agent_act_batch_and_evaluate_agree(name: str, tmp_path: Path) -> None:
    rules = zz.load_ruleset(name)
    agent = OptimalAgent(cache_dir=tmp_path)
    for n, stacks in ((2, None), (5, None), (4, [3, 0, 2, 1] if rules.stake == "lives" else None)):
        views = _views(rules, n, 40, seed=n, stacks=stacks)
        acts = agent.act_batch(ViewBatch.from_views(views))
        assert acts.tolist() == [agent.act(v) for v in views]
        for v, a in list(zip(views, acts, strict=True))[:8]:
            values = agent.evaluate(v)
            assert values[int(a)] >= max(values.values()) - 1e-9
            if not rules.holds_allowed:
                assert set(values) == {0, 7}


def test_disk_cache_pickle_and_errors(tmp_path: Path) -> None:
    rules = zz.load_ruleset("alt_chips")
    first = solved_tables(rules, 3, tmp_path)
    assert (tmp_path / f"optimal-{table_key(rules, 3)}.npz").exists()
    assert table_key(rules, 3) == table_key(rules.replace(name="renamed", starting_stack=5), 3)
    assert table_key(rules, 3) != table_key(rules.replace(tie_rule="all"), 3)
    _MEMORY.clear()
    again = solved_tables(rules, 3, tmp_path)
    assert again is not first
    with redirect_stdout(io.StringIO()) as out:  # the solve command on tables read from the cache
        assert solve_cli.main(["--ruleset", "alt_chips", "--players", "3", "--cache-dir", str(tmp_path)]) == 0
    assert "3 players" in out.getvalue()
    for a, b in zip(first.levels, again.levels, strict=True):
        assert np.array_equal(a.keys, b.keys) and np.array_equal(a.policy, b.policy)
        assert np.allclose(a.wlow, b.wlow) and np.allclose(a.value, b.value)
    agent = OptimalAgent(cache_dir=tmp_path)
    view = _views(rules, 3, 1, seed=0)[0]
    agent.act(view)
    blob = pickle.dumps(agent)
    assert len(blob) < 2000
    assert pickle.loads(blob).act(view) == agent.act(view)
    with pytest.raises(ValueError, match="num_players"):
        RoundSpec.of(rules, 1)
    with pytest.raises(ValueError, match="own_hand"):
        RoundSpec.of(rules.replace(instant_zanzibar="worst_so_far_loses"), 3)
    with pytest.raises(ValueError, match="unreachable"):
        lookup(first.levels[1].keys, np.array([-5 + 10**9]))
    batch = ViewBatch.from_views([view, view])
    batch.lowest_count[1] = 7  # seven earlier players at a table of three: no such state
    with pytest.raises(ValueError, match="unreachable"):
        agent.act_batch(batch)


def test_classic_first_roll_choice_is_sensible(tmp_path: Path) -> None:
    """Rolling first in 2-player classic with 4-5-6 already... is a Zanzibar: stop; with 1-1-1: stop too."""
    rules = zz.load_ruleset("classic")
    agent = OptimalAgent(cache_dir=tmp_path)
    state = zz.RoundState(rules, [20, 20], 0, zz.ScriptedDice([4, 5, 6]))
    assert agent.act(state.view()) == 7
    state = zz.RoundState(rules, [20, 20], 0, zz.ScriptedDice([1, 1, 1]))
    assert agent.act(state.view()) == 7
    assert MULTISETS[MULTISET_INDEX[(1, 1, 1)]] == (1, 1, 1)
