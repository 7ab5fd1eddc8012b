"""Game-optimal play (2 players): round outcomes match the engine, values match a brute force, a
simulated match agrees with the exact win probability, and optimal_game is unexploitable."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import zanzibar_env as zz
from tests.cache import isolated_cache  # noqa: F401  (autouse fixture)
from zanzibar_env.agents import make_agent
from zanzibar_env.agents.exact import batch_to_views, game_exploitability, win_probability
from zanzibar_env.agents.exact.cache import solved_game
from zanzibar_env.agents.exact.decisions import decision_batch, decision_rows
from zanzibar_env.agents.exact.game import GameSpec, Pairs, round_terms
from zanzibar_env.agents.exact.game_iteration import solve_game
from zanzibar_env.agents.exact.round import RoundSpec, seat_values, solve
from zanzibar_env.agents.optimal import OptimalGameAgent
from zanzibar_env.core.dice import ScriptedDice
from zanzibar_env.core.game import GameState
from zanzibar_env.core.hands import MULTISETS

RULESETS = ["classic", "simple_scoring", "alt_chips", "lives"]
VARIANTS = {
    "classic-tie-all": dict(tie_rule="all"),
    "classic-instant-worst": dict(instant_zanzibar="worst_so_far_loses"),
    "lives-rolloff": dict(tie_rule="rolloff"),
    "lives-2": dict(lives_lost=2),
}


def _rules(name: str) -> zz.Ruleset:
    if name in VARIANTS:
        base = "lives" if name.startswith("lives") else "classic"
        return zz.load_ruleset(base, **VARIANTS[name])
    return zz.load_ruleset(name)


# ---- round outcomes against the engine ---------------------------------------------------------------


def _dice_of_rank(rules: zz.Ruleset, rank: int) -> list[int]:
    t = rules.table
    return list(MULTISETS[int(np.flatnonzero(t.rank_of_multiset == rank)[0])])


def _engine_outcome(rules: zz.Ruleset, x: int, y: int, ra: int, rb: int, rolloff: list[int]) -> tuple:
    """Play one round from stacks (x, y), seat 0 first, both stopping at once: (end value to seat 0) or
    (next first seat, its stack, the other's stack)."""
    top = rules.table.num_ranks - 1
    faces = _dice_of_rank(rules, ra)
    if not (rules.instant_zanzibar != "off" and ra == top):
        faces += _dice_of_rank(rules, rb)
    faces += [*rolloff, 1, 1, 2]  # the roll-off throws, then the next round's first roll
    state = GameState(rules, 2, ScriptedDice(faces), stacks=[x, y], max_rounds=2)
    while not state.record.rounds:
        state.apply(7)
    rec = state.record
    if rec.winners:
        return (1.0 if rec.winners == [0] else 0.0 if rec.winners == [1] else 0.5,)
    first = state.round.record.starting_seat
    st = state.round.record.stacks_before
    return (first, st[first], st[1 - first])


def _term_outcome(terms, pairs: Pairs, s: int, ra: int, rb: int, slot: int) -> tuple:
    c, k, pair = terms.c[s, ra, rb, slot], terms.k[s, ra, rb, slot], terms.pair[s, ra, rb, slot]
    if k == 0:
        return (float(c),)
    first = 1 if terms.swap[s, ra, rb, slot] else 0
    return (first, int(pairs.x[pair]), int(pairs.y[pair]))


@pytest.mark.parametrize("name", RULESETS + list(VARIANTS))
def test_round_outcomes_match_engine(name: str) -> None:
    """Every modelled round end (payment caps, ties, roll-offs, instant top hands, who starts next, who
    wins) is what the engine does with the same hands."""
    rules = _rules(name)
    spec = GameSpec.of(rules)
    pairs = Pairs.reachable(spec, (2, 3) if spec.chips else (2, 2))
    terms = round_terms(spec, pairs)
    top = spec.num_ranks - 1
    ranks = sorted({0, 1, 2, top // 2, top - 5, top - 2, top - 1, top})
    low, high = [2, 2, 3], [4, 5, 6] if rules.hand_ranking == "zanzibar_456" else [4, 2, 1]
    for s, ra, rb in itertools.product(range(len(pairs)), ranks, ranks):
        x, y = int(pairs.x[s]), int(pairs.y[s])
        w = terms.w[s, ra, rb]
        if w[1] == 0:  # one outcome; no roll-off, or the roll-off is never reached
            assert _term_outcome(terms, pairs, s, ra, rb, 0) == _engine_outcome(
                rules, x, y, ra, rb, high + low
            )
            continue
        assert w.tolist() == [0.5, 0.5] and ra == rb
        assert _term_outcome(terms, pairs, s, ra, rb, 0) == _engine_outcome(rules, x, y, ra, rb, high + low)
        assert _term_outcome(terms, pairs, s, ra, rb, 1) == _engine_outcome(rules, x, y, ra, rb, low + high)


# ---- values against a brute force -------------------------------------------------------------------


def _throw_law(rules: zz.Ruleset) -> np.ndarray:
    """Probability of each rank for one throw of three dice (by enumerating the 216 throws)."""
    p = np.zeros(rules.table.num_ranks)
    for d in itertools.product(range(1, 7), repeat=3):
        p[rules.score(d).rank] += 1 / 216
    return p


def _end_value(rules: zz.Ruleset, u: dict, x: int, y: int, ra: int, rb: int) -> float:
    """Value to the first roller of a round ended with ranks (ra, rb), written from RULES.md directly."""
    top, t = rules.table.num_ranks - 1, rules.table

    def val(a: int, b: int, a_next: bool) -> float:  # stacks after the round, who starts next
        if rules.stake == "chips":
            return 1.0 if a == 0 else 0.0 if b == 0 else u[a, b] if a_next else 1 - u[b, a]
        if a == 0 and b == 0:
            return 1.0 if x > y else 0.0 if x < y else 0.5
        return 0.0 if a == 0 else 1.0 if b == 0 else u[a, b] if a_next else 1 - u[b, a]

    def pay(r: int) -> int:
        return rules.payment_of(t.hand_of_rank(r).category)

    lost, chips = rules.lives_lost, rules.stake == "chips"
    if rules.instant_zanzibar == "no_loss" and top in (ra, rb):
        return val(x, y, ra == top)
    b_loses = val(x - min(pay(ra), x), y + min(pay(ra), x), True) if chips else val(x, max(y - lost, 0), True)
    if ra > rb:
        return b_loses
    if ra < rb:
        return (
            val(x + min(pay(rb), y), y - min(pay(rb), y), False) if chips else val(max(x - lost, 0), y, False)
        )
    if chips:  # roll-off: each loses with probability 1/2, the first roller starts next either way
        return 0.5 * b_loses + 0.5 * val(x + min(pay(ra), y), y - min(pay(ra), y), True)
    return val(max(x - lost, 0), max(y - lost, 0), True)  # lives, tie_rule: all


def _brute_force(rules: zz.Ruleset, states: list[tuple[int, int]]) -> dict:
    """Value iteration over the states with two rolls, no holds: stop, or re-throw all three dice."""
    p, top = _throw_law(rules), rules.table.num_ranks - 1
    inst = rules.instant_zanzibar != "off"
    u = dict.fromkeys(states, 0.5)
    for _ in range(2000):
        new = {}
        for x, y in states:
            end = np.array(
                [[_end_value(rules, u, x, y, a, b) for b in range(top + 1)] for a in range(top + 1)]
            )
            vb1 = end @ p  # the second roller's last throw; it minimises the first roller's value
            vb2 = np.minimum(end, vb1[:, None]) @ p  # its first throw: stop or throw again
            if inst:  # a top hand ends the turn at once
                vb2 = vb2 + p[top] * (end[:, top] - np.minimum(end[:, top], vb1))
            first = np.maximum(vb2, p @ vb2)  # stop, or throw again (the second roller keeps two rolls)
            if inst:
                first[top] = end[top, 0]
            new[x, y] = float(p @ first)
        done = max(abs(new[k] - u[k]) for k in states) < 1e-15
        u = new
        if done:
            break
    return u


@pytest.mark.parametrize("name", ["classic", "simple_scoring", "lives"])
def test_values_match_brute_force(name: str) -> None:
    """Two rolls without holds, tiny stacks: the solver's values equal an independent value iteration."""
    base = dict(max_rolls=2, holds_allowed=False)
    rules = zz.load_ruleset(name, **base, first_roller_sets_limit=False)
    stacks = (2, 2)
    solved = solve_game(rules, stacks)
    states = list(zip(solved.pairs.x.tolist(), solved.pairs.y.tolist(), strict=True))
    brute = _brute_force(rules, states)
    for x, y in states:
        assert solved.win_probability(x, y) == pytest.approx(brute[x, y], abs=1e-10)


@pytest.mark.parametrize("name", ["classic", "simple_scoring"])
def test_one_chip_each_is_the_round_won(name: str) -> None:
    """At 1-1 chips the game is one round: whoever wins it wins the game, a roll-off tie is a coin flip. So
    the game value is (1 + v) / 2 with v the round solver's value when every payment is one chip."""
    rules = zz.load_ruleset(
        name, payments={"points": 1, "one_two_three": 1, "three_of_a_kind": 1, "zanzibar": 1}
    )
    spec = RoundSpec.of(rules, 2)
    v = seat_values(spec, solve(spec))[0]
    assert solve_game(zz.load_ruleset(name), (1, 1)).win_probability(1, 1) == pytest.approx(
        (1 + v) / 2, abs=1e-12
    )


# ---- simulation, exploitability, the agent ----------------------------------------------------------


def test_simulation_agrees_with_exact_win_probability() -> None:
    """4,000 engine games, optimal_game (seat 0) against optimal (seat 1) from 3-4 chips, seat 1 rolling
    first: seat 0's win rate lies within the 99% interval of the exact probability (2.576 standard
    errors, about +-0.020)."""
    games, stacks = 4000, (3, 4)
    p = win_probability("optimal_game", "optimal", "classic", stacks, first_seat=1)
    pols = [make_agent("optimal_game"), make_agent("optimal")]
    wins = sum(
        zz.play_game("classic", pols, seed=s, stacks=stacks, first_seat=1).winners == [0]
        for s in range(games)
    )
    assert abs(wins / games - p) <= 2.576 * (p * (1 - p) / games) ** 0.5


@pytest.mark.parametrize("name", RULESETS)
def test_optimal_game_is_unexploitable(name: str) -> None:
    stacks = (3, 3) if name != "lives" else (3, 2)
    ex = game_exploitability("optimal_game", name, stacks)
    assert abs(ex["seat0"]) < 1e-9 and abs(ex["seat1"]) < 1e-9
    assert ex["vs_self_seat0"] == pytest.approx(ex["game_value_seat0"], abs=1e-12)
    rules = zz.load_ruleset(name)
    assert ex["game_value_seat0"] == pytest.approx(
        solved_game(rules, stacks).win_probability(*stacks), abs=1e-12
    )


@pytest.mark.parametrize("name", ["classic", "lives"])
def test_round_play_is_exploitable_and_never_wins_more(name: str) -> None:
    """optimal (round play) loses win probability to a best response and never beats optimal_game."""
    stacks = (4, 5) if name == "classic" else (3, 3)
    ex = game_exploitability("optimal", name, stacks)
    assert ex["seat0"] > 1e-6 and ex["seat1"] > 1e-6
    assert ex["vs_optimal_game_seat0"] <= ex["game_value_seat0"] + 1e-12
    assert ex["vs_optimal_game_seat1"] <= ex["game_value_seat1"] + 1e-12
    for first in (0, 1):  # swapping seats and agents mirrors the win probability
        a = win_probability("optimal", "escape", name, stacks, first_seat=first)
        b = win_probability("escape", "optimal", name, stacks[::-1], first_seat=1 - first)
        assert a == pytest.approx(1 - b, abs=1e-12)


@pytest.mark.parametrize("name", RULESETS)
def test_act_matches_act_batch(name: str) -> None:
    rules = zz.load_ruleset(name)
    spec = GameSpec.of(rules)
    pairs = Pairs.reachable(spec, (3, 3))
    batch = decision_batch(spec, pairs, decision_rows(spec, pairs))
    pick = np.random.default_rng(0).choice(len(batch), 400, replace=False)
    agent = OptimalGameAgent()
    acts = agent.act_batch(batch)
    views = batch_to_views(batch)
    assert [agent.act(views[i]) for i in pick] == acts[pick].tolist()


def test_disk_cache_round_trip(tmp_path) -> None:
    rules = zz.load_ruleset("classic", starting_stack=4)
    a = OptimalGameAgent(cache_dir=tmp_path).tables(rules, 4, 4)
    files = list(tmp_path.glob("optimal_game-*.npz"))
    assert len(files) == 1
    from zanzibar_env.agents.exact import cache

    cache._MEMORY.clear()
    b = OptimalGameAgent(cache_dir=tmp_path).tables(rules, 4, 4)
    assert np.array_equal(a.policy_b, b.policy_b) and np.array_equal(a.value, b.value)
    files[0].write_bytes(b"damaged")
    cache._MEMORY.clear()
    c = OptimalGameAgent(cache_dir=tmp_path).tables(rules, 4, 4)
    assert np.array_equal(a.value, c.value)


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="2-player"):
        zz.play_game("classic", make_agent("optimal_game"), num_players=3, seed=0)
    for stacks in [(0, 5), (1, 2, 3), "20", (2.5, 3), (True, 3)]:
        with pytest.raises(ValueError, match="stacks"):
            win_probability("optimal_game", "optimal", "classic", stacks)
    with pytest.raises(ValueError):
        game_exploitability("optimal_game", "no_such_ruleset", (2, 2))
    with pytest.raises(ValueError, match="first_seat"):
        win_probability("optimal", "optimal", "classic", (2, 2), first_seat=2)
    with pytest.raises(ValueError, match="stack states"):
        solve_game(zz.load_ruleset("classic"), (600, 600))
    with pytest.raises(ValueError):
        win_probability("no_such_agent", "optimal", "classic", (2, 2))


# ---- 3 players (a study: zanzibar_env.agents.exact.game3) ------------------------------------------------------


def _three_player_one_round(rules: zz.Ruleset, stacks: tuple[int, int, int]) -> np.ndarray:
    """Win probabilities when every round ends the game and nobody decides (one roll): enumerate the
    three throws' ranks, the roll-off loser, the capped payments and the players reaching 0."""
    p, t = _throw_law(rules), rules.table
    out = np.zeros(3)
    for ranks in itertools.product(range(t.num_ranks), repeat=3):
        w = p[ranks[0]] * p[ranks[1]] * p[ranks[2]]
        pay = rules.payment_of(t.hand_of_rank(max(ranks)).category)
        tied = [i for i in range(3) if ranks[i] == min(ranks)]
        for loser in tied:
            after = [s if i == loser else s - min(pay, s) for i, s in enumerate(stacks)]
            winners = [i for i in range(3) if after[i] == 0]
            assert winners, "every round ends these games"
            for i in winners:
                out[i] += w / len(tied) / len(winners)
    return out


@pytest.mark.parametrize("total", [3, 4])
def test_three_players_match_enumeration(total: int) -> None:
    """One roll per turn, 1-1-1 and 2-1-1 chips: the 3-player solver equals a direct enumeration."""
    from zanzibar_env.agents.exact.game3 import solve_game3

    rules = zz.load_ruleset("classic", max_rolls=1)
    game = solve_game3(rules, total)
    for stacks, value in zip(game.states.tolist(), game.value, strict=True):
        assert value == pytest.approx(_three_player_one_round(rules, tuple(stacks)), abs=1e-12)


def test_three_players_bad_rules() -> None:
    from zanzibar_env.agents.exact.game3 import make_game3

    with pytest.raises(ValueError, match="3-player"):
        make_game3(zz.load_ruleset("lives"), 6)
    with pytest.raises(ValueError, match="at least 3"):
        make_game3(zz.load_ruleset("classic"), 2)


def test_action_win_probabilities_agree_with_policy() -> None:
    """The tables' action is a best action by the recomputed win probabilities, for both rollers."""
    from zanzibar_env.agents.exact.game_iteration import action_win_probabilities, state_round

    solved = solved_game(zz.load_ruleset("classic"), (3, 3))
    rng = np.random.default_rng(1)
    for first in (1, 3, 5):
        sol, row = state_round(solved, first, 6 - first), solved.pairs.row(first, 6 - first)
        for _ in range(20):
            m, r, ra = int(rng.integers(56)), int(rng.integers(1, 3)), int(rng.integers(42))
            q = action_win_probabilities(solved, first, 6 - first, r, m, round_solution=sol)
            assert q[solved.policy_a[row, r - 1, m]] >= np.nanmax(q) - 1e-9
            q = action_win_probabilities(solved, first, 6 - first, r, m, ra, 3, sol)
            assert q[solved.policy_b[row, ra, 2, r - 1, m]] >= np.nanmax(q) - 1e-9


def test_exact_eval_game_cli(tmp_path, capsys) -> None:
    from zanzibar_env.train.exact_eval import main

    out = tmp_path / "fig.json"
    assert (
        main(["--game", "--agent", "optimal", "--stacks", "2,3", "--simulate", "50", "--json", str(out)]) == 0
    )
    text = capsys.readouterr().out
    assert "Exact game evaluation of 'optimal'" in text and "simulated 50 games" in text
    fig = json.loads(out.read_text())
    assert fig["stacks"] == [2, 3] and fig["average"] >= -1e-12
    assert main(["--game", "--agent", "optimal", "--stacks", "2"]) == 2


def test_optimal_game_is_refused_at_other_tables_before_any_game(tmp_path: Path) -> None:
    import gymnasium as gym

    from zanzibar_env.train.tournament import main as tournament_main

    with pytest.raises(ValueError, match="plays tables of \\[2\\] players, not 4"):
        gym.make("Zanzibar-v1", num_players=4, opponents="optimal_game")
    out = tmp_path / "res"
    code = tournament_main(
        ["--agents", "optimal_game,greedy", "--players", "4", "--games", "4", "--out", str(out)]
    )
    assert code != 0 and not out.exists()
