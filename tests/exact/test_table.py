"""The exact round best response at an n-player table of known bots (zanzibar_env.agents.exact.table)."""

from __future__ import annotations

import numpy as np
import pytest

import zanzibar_env as zz
from tests.cache import isolated_cache  # noqa: F401  (autouse fixture)
from zanzibar_env.agents.exact import best_response, table_best_response
from zanzibar_env.agents.exact.decisions import position_views
from zanzibar_env.agents.exact.round import enumerate_levels
from zanzibar_env.agents.exact.table import solve_table
from zanzibar_env.agents.optimal import OptimalAgent
from zanzibar_env.core.registry import make_agent


@pytest.mark.parametrize("ruleset", ["classic", "alt_chips", "simple_scoring"])
def test_against_optimal_bots_it_is_optimal(ruleset: str) -> None:
    """At a table of `optimal` bots the best response gains nothing and plays as `optimal` does."""
    solved = solve_table(ruleset, ["optimal", "optimal"], reference="optimal")
    np.testing.assert_allclose(solved.value, solved.reference, atol=1e-9)
    br, opt, rules = (
        table_best_response(["optimal", "optimal"], ruleset),
        OptimalAgent(),
        zz.load_ruleset(ruleset),
    )
    spec = solved.spec
    levels = enumerate_levels(spec)
    for q in range(3):
        batch, _ = position_views(rules, spec, levels[q], q)
        agree = (br.act_batch(batch) == opt.act_batch(batch)).mean()
        assert agree > 0.999, (q, agree)


@pytest.mark.parametrize("bot", ["greedy", "escape", "threshold"])
def test_two_players_match_the_exact_best_response(bot: str) -> None:
    solved = solve_table("classic", [bot])
    for seat in (0, 1):
        assert solved.value[seat] == pytest.approx(best_response(bot, "classic", seat=seat).value, abs=1e-12)


def test_the_last_position_gains_nothing_and_the_first_gains_against_heuristics() -> None:
    solved = solve_table("classic", ["greedy", "threshold", "escape"], reference="optimal")
    gain = solved.value - solved.reference
    assert gain[-1] == pytest.approx(0.0, abs=1e-12)  # nobody after it: optimal is already a best response
    assert (gain > -1e-12).all()
    assert gain[0] > 0.01  # rolling first, optimal's stops assume optimal players follow


@pytest.mark.parametrize("start", [0, 2])
def test_its_value_matches_a_simulation(start: int) -> None:
    """Against optimal, greedy and escape, rolling first and fourth: the exact value inside a 99.9%
    interval (the responder sits in seat 0; seat ``start`` rolls first)."""
    others = ["optimal", "greedy", "escape"]
    solved = solve_table("classic", others)
    rules = zz.load_ruleset("classic")
    agents = [table_best_response(others), *(make_agent(a) for a in others)]
    dice, n = zz.RandomDice(11), 20_000
    results = np.array(
        [
            -zz.play_round(rules, agents, num_players=4, starting_seat=start, dice=dice).transfers[0]
            for _ in range(n)
        ]
    )
    half = 3.2905 * results.std(ddof=1) / np.sqrt(n)
    p = (0 - start) % 4  # the responder's position in the order of play
    assert abs(results.mean() - solved.value[p]) < half, (results.mean(), solved.value[p], half)


def test_bad_inputs_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="chip ruleset"):
        solve_table("lives", ["optimal"])
    with pytest.raises(ValueError, match="final_hand"):
        solve_table(zz.load_ruleset("classic", final_hand="best"), ["optimal"])
    with pytest.raises(ValueError, match="nope"):
        solve_table("classic", ["greedy", "nope"])
    br = table_best_response(["greedy"])
    rules = zz.load_ruleset("classic")
    spec3 = solve_table("classic", ["greedy", "greedy"]).spec
    batch, _ = position_views(rules, spec3, enumerate_levels(spec3)[0], 0)
    with pytest.raises(ValueError, match="solved for 2 players"):
        br.act_batch(batch)
