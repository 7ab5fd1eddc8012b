"""Playing for the game at a table of known bots (zanzibar_env.agents.exact.table_round, .table_game)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import zanzibar_env as zz
from tests.cache import isolated_cache  # noqa: F401  (autouse fixture)
from zanzibar_env.agents.exact import BestResponse, table_game_response
from zanzibar_env.agents.exact.table import solve_table
from zanzibar_env.agents.exact.table_game import (
    bellman_gap,
    chip_response_wins,
    chip_values,
    seat_wins,
    solve_family,
)
from zanzibar_env.agents.exact.table_round import outcome_law, response_law, round_law
from zanzibar_env.agents.optimal import OptimalAgent
from zanzibar_env.core.kernel import chips_of_category
from zanzibar_env.core.registry import make_agent

OTHERS = ["greedy", "escape"]
RULES = zz.load_ruleset("classic")


@pytest.fixture(scope="module")
def agent() -> BestResponse:
    return table_game_response(OTHERS, stacks=(2, 2, 2), family=4)


def _chips(n: int) -> np.ndarray:
    """Seat 0's chip result by outcome class (given away minus received, caps ignored)."""
    pay = chips_of_category(RULES)  # by category, zanzibar first
    u = np.zeros(n * 4 * n)
    for j in range(n):
        for cat in range(4):
            u[j * 4 * n + cat * n : j * 4 * n + cat * n + n] = -(n - 1) * pay[cat] if j == 0 else pay[cat]
    return u


@pytest.mark.parametrize("start", [0, 1, 2])
def test_round_laws_match_the_round_solver(start: int) -> None:
    """The outcome laws give the round solver's chip values: `optimal` in the seat (``round_law``) and
    the exact best response to the bots (``outcome_law`` of ``response_law`` with the chip result)."""
    bots = [make_agent(b) for b in OTHERS]
    solved = solve_table(RULES, OTHERS, reference="optimal")
    pos = (3 - start) % 3
    law = round_law(RULES, [OptimalAgent(), *bots], start)
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    assert law @ _chips(3) == pytest.approx(solved.reference[pos], abs=1e-9)
    best = outcome_law(RULES, response_law(RULES, bots, start), _chips(3))
    assert best @ _chips(3) == pytest.approx(solved.value[pos], abs=1e-9)


def test_a_stochastic_bot_is_read_as_its_law() -> None:
    """With `random` at the table (a law over actions, not one action), the outcome laws still give the
    round solver's chip values, and `chip_values` is the chip result class by class."""
    others = ["random", "greedy"]
    bots = [make_agent(b) for b in others]
    solved = solve_table(RULES, others, reference="optimal")
    np.testing.assert_array_equal(chip_values(RULES, 3), _chips(3))
    for start in range(3):
        pos = (3 - start) % 3
        law = round_law(RULES, [OptimalAgent(), *bots], start)
        assert law @ _chips(3) == pytest.approx(solved.reference[pos], abs=1e-9)
        best = outcome_law(RULES, response_law(RULES, bots, start), _chips(3))
        assert best @ _chips(3) == pytest.approx(solved.value[pos], abs=1e-9)


def test_the_chip_response_is_optimal_against_optimal_and_can_lose_games() -> None:
    """Against `optimal` bots the round best response for chips wins exactly as `optimal` does; against
    `random` and `optimal` it gains chips yet wins fewer games than `optimal` in the seat, and playing for
    the game wins more (the 4-player table of docs/game_learning.md, at 3 players)."""
    s = solve_family(RULES, ["optimal", "optimal"], total=6, family=0)
    np.testing.assert_allclose(chip_response_wins(s), seat_wins(s, family=False), atol=1e-9)
    r = solve_family(RULES, ["random", "optimal"], total=6, family=4)
    assert chip_response_wins(r)[0] < seat_wins(r, family=False)[0] - 1e-3 < seat_wins(r)[0] - 2e-3


Policy = Callable[[zz.View], int]


def _simulated_win(policies: list[Policy], stacks: list[int], games: int) -> tuple[float, float]:
    wins = np.array([
        1 / len(rec.winners) if 0 in rec.winners else 0.0
        for rec in (zz.play_game("classic", policies, stacks=stacks, seed=g) for g in range(games))
    ])  # fmt: skip
    return float(wins.mean()), float(wins.std() / np.sqrt(games))


def test_optimal_game_value_matches_simulation(agent: BestResponse) -> None:
    """`optimal`'s exact win probability from 2-2-2 against the bots (seat 0 rolls first) lies in a 99.9%
    interval of simulated games; every seat's probabilities add up to 1."""
    g = agent.solved.game
    exact = agent.solved.optimal_value[int(g.lookup(np.array([2, 2, 2]))), 0]
    pols = [OptimalAgent().act, *(make_agent(b).act for b in OTHERS)]
    mean, se = _simulated_win(pols, [2, 2, 2], 4000)
    assert abs(mean - exact) < 3.29 * se, (mean, exact, se)
    assert seat_wins(agent.solved, [2, 2, 2], family=False).sum() == pytest.approx(1.0, abs=1e-9)


def test_the_family_only_improves(agent: BestResponse) -> None:
    """The family's value never falls below `optimal`'s and rises somewhere; it is the value of its own
    picks (evaluated again); the agent greedy on it wins at least that often in simulation."""
    s = agent.solved
    gain = s.value - s.optimal_value
    assert gain.min() > -1e-9 and gain.max() > 1e-3
    np.testing.assert_allclose(s.game.evaluate(s.picked_laws(), s.reward), s.value, atol=1e-8)
    sid = int(s.game.lookup(np.array([2, 2, 2])))
    mean, se = _simulated_win([agent.act, *(make_agent(b).act for b in OTHERS)], [2, 2, 2], 4000)
    assert mean > s.value[sid, 0] - 3.29 * se, (mean, s.value[sid, 0], se)


def test_no_round_policy_beats_the_family_s_own_pick_by_less_than_zero(agent: BestResponse) -> None:
    """The best turn play for a state's class values is never worse than the family's pick there, and a
    second round of family building only raises the value."""
    s = agent.solved
    gap = bellman_gap(s, np.arange(len(s.game.states)))
    assert gap.min() > -1e-9
    again = solve_family(RULES, OTHERS, total=6, family=4, rounds=2)
    assert (again.value - s.value).min() > -1e-9
    assert again.laws.shape[1] == 9


def test_a_rival_objective_costs_the_rival() -> None:
    """Playing to finish ahead of seat 1 lowers seat 1's win probability below what it gets against
    `optimal`, and the difference rises."""
    s = solve_family(RULES, OTHERS, total=6, family=4, rival=1)
    before, after = seat_wins(s, family=False), seat_wins(s)
    assert after[0] - after[1] > before[0] - before[1] + 1e-3
    assert after[1] < before[1]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ruleset": "lives"}, "chips"),
        ({"ruleset": "alt_chips"}, "highest_hand"),
        ({"others": ["optimal"] * 4}, "2-4 players"),
        ({"stacks": (1, 1, 0)}, "at least 3 chips"),
        ({"rival": 3}, "rival must be another seat"),
    ],
)
def test_refuses_what_it_cannot_solve(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"others": OTHERS, "stacks": (2, 2, 2), "family": 0, **kwargs}
    with pytest.raises(ValueError, match=match):
        table_game_response(**args)  # type: ignore[arg-type]


def test_refuses_other_tables(agent: BestResponse) -> None:
    with pytest.raises(ValueError, match="built for 3 players"):
        zz.play_game("classic", [agent.act] + [OptimalAgent().act] * 3, stacks=[2, 2, 1, 1])
    with pytest.raises(ValueError, match="not a state of this 6-chip table"):
        zz.play_game("classic", [agent.act, OptimalAgent().act, OptimalAgent().act], stacks=[3, 2, 2])
