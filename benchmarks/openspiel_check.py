"""OpenSpiel's algorithms on Zanzibar beside our solver, and OpenSpiel's MCTS in a tournament.

``python -m benchmarks.openspiel_check [--rulesets classic ...] [--max-rolls 2] [--tournament-games 60]``
prints, per 2-player chip ruleset (and ``classic`` under ``final_hand: best``), the first roller's
value of a round from OpenSpiel's ``value_iteration`` on ``python_zanzibar_round`` and from our exact
solver (optimal against optimal), their difference, the states value iteration visits and its time;
``expected_game_score.policy_value`` of optimal against greedy beside our ``round_value`` on the
2-roll, no-holds variant of classic (its tree is walked without merging states); then it runs
``python -m train.tournament --agents openspiel:mcts,optimal,greedy`` and prints its table.
OpenSpiel's Python value iteration takes 4-10 minutes per 3-roll chip ruleset on one core here;
``--max-rolls 2`` is quicker.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from typing import Any

import pyspiel  # noqa: F401  (the [openspiel] extra)
from open_spiel.python.algorithms import expected_game_score

from zanzibar_env.agents.exact import round_value
from zanzibar_env.core.rules import available_rulesets, load_ruleset
from zanzibar_env.envs.openspiel import value_iteration_module
from zanzibar_env.envs.openspiel.bots import AgentPolicy, round_game


def _first_roller(game: Any, values: dict[str, float]) -> float:
    root = game.new_initial_state()  # a chance node (the first throw): not a key of the value map
    return sum(p * values[str(root.child(a))] for a, p in root.chance_outcomes())


def values(rulesets: list[str], max_rolls: int | None) -> None:
    vi = value_iteration_module()
    print(
        f"{'ruleset':<22} {'OpenSpiel VI':>14} {'our solver':>14} {'difference':>11} {'states':>7} {'VI s':>6}"
    )
    for spec in rulesets:
        name, _, best = spec.partition("+")
        over: dict[str, object] = {"final_hand": "best"} if best else {}
        if max_rolls is not None:
            over["max_rolls"] = max_rolls
        rules = load_ruleset(name, **over)
        game = round_game(rules, 2)
        t = time.perf_counter()
        table = vi.value_iteration(game, -1, 1e-12, cyclic_game=True)
        secs = time.perf_counter() - t
        ours = round_value("optimal", "optimal", rules)[0]
        theirs = _first_roller(game, table)
        print(
            f"{spec:<22} {theirs:>14.10f} {ours:>14.10f} {theirs - ours:>11.1e} {len(table):>7} {secs:>6.0f}"
        )


def policy_values() -> None:
    rules = load_ruleset("classic", max_rolls=2, holds_allowed=False)
    game = round_game(rules, 2)
    t = time.perf_counter()
    got = expected_game_score.policy_value(
        game.new_initial_state(), [AgentPolicy(game, "optimal"), AgentPolicy(game, "greedy")]
    )
    secs = time.perf_counter() - t
    ours = round_value("optimal", "greedy", rules)
    print(
        f"\npolicy_value(optimal, greedy), classic with 2 rolls and no holds: OpenSpiel {list(got)} ({secs:.0f} s)"
    )
    print(f"round_value(optimal, greedy), our exact evaluation:                 {list(ours)}")


def tournament(games: int, max_rounds: int, seed: int) -> None:
    with tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable, "-m", "train.tournament", "--agents", "openspiel:mcts,optimal,greedy", "--players", "2",
            "--games", str(games), "--max-rounds", str(max_rounds), "--seed", str(seed), "--out", out, "--no-progress",
        ]  # fmt: skip
        print("\n$ " + " ".join(cmd[1:]), flush=True)
        subprocess.run(cmd, check=True)


def main(argv: list[str] | None = None) -> None:
    chips = [r for r in available_rulesets() if load_ruleset(r).stake == "chips"]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--rulesets",
        nargs="*",
        default=[*chips, "classic+best"],
        help="rulesets ('NAME+best': final_hand best)",
    )
    p.add_argument("--max-rolls", type=int, default=None, help="override max_rolls (2 is quicker)")
    p.add_argument("--no-policy-value", action="store_true", help="skip the policy_value check")
    p.add_argument("--tournament-games", type=int, default=60, help="games of the MCTS tournament (0: none)")
    p.add_argument("--max-rounds", type=int, default=10, help="rounds per tournament game")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    values(a.rulesets, a.max_rolls)
    if not a.no_policy_value:
        policy_values()
    if a.tournament_games:
        tournament(a.tournament_games, a.max_rounds, a.seed)


if __name__ == "__main__":
    main()
