"""The OpenSpiel games against the engine, the settlement and our exact solver, with OpenSpiel's algorithms."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

# Our solver: the public names of zanzibar_env.agents.exact (kept in one place).
from zanzibar_env.agents.exact import round_value  # noqa: E402
from zanzibar_env.core import settlement as S  # noqa: E402
from zanzibar_env.core.bots import RandomAgent  # noqa: E402
from zanzibar_env.core.dice import ScriptedDice  # noqa: E402
from zanzibar_env.core.engine import RoundState  # noqa: E402
from zanzibar_env.core.rules import available_rulesets, load_ruleset  # noqa: E402
from zanzibar_env.envs.openspiel import ROLLOFF_BASE, value_iteration_module  # noqa: E402
from zanzibar_env.envs.openspiel._round import DICE_OUTCOME_ID, rank_probs, rolloff_outcomes  # noqa: E402
from zanzibar_env.envs.openspiel.bots import AgentPolicy, round_game, state_from_view, view_of  # noqa: E402

RULESETS = available_rulesets()
CHIP_RULESETS = [r for r in RULESETS if load_ruleset(r).stake == "chips"]


# ---- OpenSpiel's own conformance test -------------------------------------------------------------
@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("players", [2, 3, 5])
def test_random_sim_round_and_game(ruleset: str, players: int) -> None:
    params = {"ruleset": ruleset, "players": players}
    pyspiel.random_sim_test(
        pyspiel.load_game("python_zanzibar_round", params), num_sims=3, serialize=True, verbose=False
    )
    game = pyspiel.load_game("python_zanzibar", {**params, "max_rounds": 12})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_game_type_says_what_is_true() -> None:
    U = pyspiel.GameType.Utility
    assert pyspiel.load_game("python_zanzibar_round").get_type().utility == U.ZERO_SUM
    assert (
        pyspiel.load_game("python_zanzibar_round", {"ruleset": "lives"}).get_type().utility == U.GENERAL_SUM
    )
    info = pyspiel.load_game("python_zanzibar_round", {"players": 3})
    assert info.num_distinct_actions() == 8 and info.num_players() == 3


# ---- the same round through the engine and through OpenSpiel ---------------------------------------
def _replay(game, record, ruleset):  # type: ignore[no-untyped-def]
    """Drive the OpenSpiel state with the engine record's dice and actions; returns the final state."""
    state, faces, fi = game.new_initial_state(), record.dice_drawn, 0
    actions = [a for t in record.turns for a in t.actions]
    rolloffs = list(record.rolloffs)
    while not state.is_terminal():
        if not state.is_chance_node():
            state.apply_action(actions.pop(0))
            continue
        kind, arg = state.round.pending
        if kind == "dice":
            state.apply_action(DICE_OUTCOME_ID[tuple(sorted(faces[fi : fi + arg]))])
            fi += arg
            continue
        tied = set(arg)
        while True:  # roll-off throws that leave every tied seat tied repeat: one OpenSpiel outcome
            ranks = {s: ruleset.table.score(f).rank for s, f in rolloffs.pop(0).items()}
            new = {s for s, r in ranks.items() if r == min(ranks.values())}
            if new != tied:
                break
        state.apply_action(ROLLOFF_BASE + sum(1 << s for s in new))
    assert not actions and not rolloffs
    return state


@pytest.mark.parametrize("ruleset", RULESETS)
def test_scripted_round_matches_engine(ruleset: str) -> None:
    rules, rng, seen_rolloff = load_ruleset(ruleset), np.random.default_rng(7), False
    for n in (2, 3, 5):
        for seed in range(25):
            stacks = [int(x) for x in rng.integers(1, 6, n)]
            script = ScriptedDice(rng.integers(1, 7, 400).tolist())
            agent = RandomAgent(seed)
            rnd = RoundState(rules, stacks, seed % n, script)
            while rnd.current_seat is not None:
                rnd.apply(agent.act(rnd.view()))
            rec = rnd.record
            game = pyspiel.load_game(
                "python_zanzibar_round",
                {
                    "ruleset": ruleset,
                    "players": n,
                    "stacks": ",".join(map(str, stacks)),
                    "starting_seat": seed % n,
                },
            )
            state = _replay(game, rec, rules)
            hands = {
                s: tuple(int(d) for d in rules.table.hands[m].dice) for s, m in state.round.hands.items()
            }
            assert hands == {t.seat: tuple(t.hand) for t in rec.turns}
            assert list(state.round.losers) == rec.losers
            assert state.round.transfers() == rec.transfers
            assert state.returns() == [float(S.chip_reward(rules, t)) for t in rec.transfers]
            seen_rolloff |= bool(rec.rolloffs)
    assert seen_rolloff or rules.tie_rule == "all"


def _one_rolloff_round(rules, tied, ranks):  # type: ignore[no-untyped-def]
    """Who is still tied after one round of roll-off throws (``ranks``), read from ``settlement.rolloff``."""
    seen = []

    def throw(still, multi):  # type: ignore[no-untyped-def]
        seen.append(still)
        if len(seen) > 1:  # asked to throw again: the first round is over
            raise StopIteration
        return ranks

    try:
        done = S.rolloff(rules, tied, throw)
    except StopIteration:
        return seen[1]
    return done


def test_rolloff_outcomes_match_settlement() -> None:
    """One round of roll-off throws by two or three seats, enumerated through ``settlement.rolloff`` and
    conditioned on not all tying again, gives the chance node's probabilities."""
    rules = load_ruleset("classic")
    p = rank_probs(rules)
    for k in (2, 3):
        ranks = [g.reshape(-1) for g in np.meshgrid(*[np.arange(len(p))] * k, indexing="ij")]
        weight = np.prod([p[x] for x in ranks], axis=0)
        after = _one_rolloff_round(rules, [np.ones(len(weight), bool)] * k, ranks)
        mask = sum(np.asarray(t, np.int64) << i for i, t in enumerate(after))
        moved = mask != (1 << k) - 1
        expected = {
            ROLLOFF_BASE + int(m): weight[moved & (mask == m)].sum() / weight[moved].sum()
            for m in np.unique(mask[moved])
        }
        got = dict(rolloff_outcomes(rules, tuple(range(k))))
        assert got.keys() == expected.keys()
        for a, q in got.items():
            assert q == pytest.approx(expected[a], abs=1e-12)


# ---- bad input: clear errors naming the problem ---------------------------------------------------
def test_bad_input_names_the_problem() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        pyspiel.load_game("python_zanzibar_round", {"colour": "red"})
    with pytest.raises(ValueError, match=r"ruleset='nope'.*unknown ruleset"):
        pyspiel.load_game("python_zanzibar_round", {"ruleset": "nope"})
    with pytest.raises(ValueError, match=r"stacks='1,2'.*need 3"):
        pyspiel.load_game("python_zanzibar_round", {"players": 3, "stacks": "1,2"})
    with pytest.raises(ValueError, match="num_players must be an integer 2-8"):
        pyspiel.load_game("python_zanzibar", {"players": 9})
    with pytest.raises(ValueError, match="max_rounds"):
        pyspiel.load_game("python_zanzibar", {"max_rounds": -2})
    state = pyspiel.load_game("python_zanzibar_round", {"ruleset": "lives"}).new_initial_state()
    with pytest.raises(ValueError, match=r"illegal chance outcome 60 .*seat 0 throws 3 dice"):
        state.apply_action(60)
    state.apply_action(10)
    with pytest.raises(ValueError, match="illegal action 9 of seat 0"):
        state.apply_action(9)


# ---- our agents in OpenSpiel, and states from our views -----------------------------------------
def test_state_from_view_is_the_same_decision() -> None:
    rules = load_ruleset("alt_chips")
    game = round_game(rules, 4)
    rng = np.random.default_rng(3)
    for _ in range(40):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            view = view_of(state.round)
            again = state_from_view(view, game)
            assert view_of(again.round) == view
            assert np.array_equal(
                again.observation_tensor(state.current_player()), state.observation_tensor()
            )
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_openspiel_agent_plays_a_tournament_game() -> None:
    from zanzibar_env.core.game import play_game
    from zanzibar_env.core.registry import make_agent

    bot = make_agent("openspiel:mcts", seed=0, simulations=20)
    rec = play_game("classic", [bot, make_agent("greedy")], seed=1, max_rounds=3)
    assert len(rec.rounds) == 3


def _round_value_of(game, values):  # type: ignore[no-untyped-def]
    root = game.new_initial_state()
    return sum(p * values[str(root.child(a))] for a, p in root.chance_outcomes())


# ---- OpenSpiel's algorithms against our solver (minutes: make test-slow) ---------------------------
SMALL = {"max_rolls": 2}  # the 2-roll variant: OpenSpiel's Python value iteration takes minutes on 3 rolls


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", [*CHIP_RULESETS, "classic+best"])
def test_value_iteration_equals_solver(ruleset: str) -> None:
    name, _, best = ruleset.partition("+")
    rules = load_ruleset(name, **SMALL, **({"final_hand": "best"} if best else {}))
    game = round_game(rules, 2)
    values = value_iteration_module().value_iteration(game, -1, 1e-12, cyclic_game=True)
    ours = round_value("optimal", "optimal", rules)[0]
    assert _round_value_of(game, values) == pytest.approx(ours, abs=1e-9)


@pytest.mark.slow
def test_policy_value_equals_round_value() -> None:
    from open_spiel.python.algorithms import expected_game_score

    rules = load_ruleset("classic", max_rolls=2, holds_allowed=False)
    game = round_game(rules, 2)
    policies = [AgentPolicy(game, "optimal"), AgentPolicy(game, "greedy")]
    got = expected_game_score.policy_value(game.new_initial_state(), policies)
    assert got == pytest.approx(round_value("optimal", "greedy", rules), abs=1e-9)
