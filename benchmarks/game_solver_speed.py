"""Solve times and memory of the exact 2-player game solver (game-optimal play), per ruleset.

``python -m benchmarks.game_solver_speed [--rulesets classic ...] [--stacks 20]`` prints, per ruleset, the
number of stack states, the time of a fresh solve on one core (no disk cache), the strategy iterations
it took, the peak memory the solve allocated (``tracemalloc``, numpy arrays included), the game value
(probability that the first roller wins from equal stacks), the time to load the cached tables, and the
ratio of the solve time to the 2-player round solve of the same ruleset measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from zanzibar_env.agents.exact import cache as table_cache
from zanzibar_env.agents.exact import game_iteration as game_solver
from zanzibar_env.agents.exact.cache import solved_game
from zanzibar_env.agents.exact.game_iteration import make_system, stacks_key
from zanzibar_env.agents.exact.round import RoundSpec, solve
from zanzibar_env.core.rules import available_rulesets, load_ruleset


def bench(ruleset: str, stack: int | None, cache: Path) -> dict[str, float]:
    """Figures for one ruleset, both players starting with ``stack`` (default: the ruleset's)."""
    rules = load_ruleset(ruleset)
    st = (stack or rules.starting_stack,) * 2
    solve(RoundSpec.of(rules, 2))  # warm-up (hand tables, dice transitions)
    t0 = time.perf_counter()
    solve(RoundSpec.of(rules, 2))
    t_round = time.perf_counter() - t0
    calls = 0
    real = game_solver.solve_rounds

    def counted(*a: Any, **k: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(*a, **k)

    game_solver.solve_rounds = counted
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        solved = game_solver.solve_game(rules, stacks_key(rules, st))
    finally:
        t_solve = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        game_solver.solve_rounds = real
    table_cache._MEMORY.clear()
    solved_game(rules, st, cache)  # solves again and writes the cache
    table_cache._MEMORY.clear()
    t0 = time.perf_counter()
    solved_game(rules, st, cache)
    t_load = time.perf_counter() - t0
    return {
        "states": len(make_system(rules, st).pairs),
        "solve_s": t_solve,
        "iterations": calls,
        "peak_mb": peak / 2**20,
        "value": solved.win_probability(*st),
        "load_ms": 1e3 * t_load,
        "vs_round": t_solve / t_round,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.game_solver_speed", description=__doc__.splitlines()[0]
    )
    p.add_argument("--rulesets", nargs="+", default=available_rulesets(), help="ruleset names")
    p.add_argument(
        "--stacks", type=int, default=None, help="starting stack of both players (default: ruleset's)"
    )
    args = p.parse_args(argv)
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    print(f"cpu count {os.cpu_count()}, OMP_NUM_THREADS={threads} (set it to 1 for one core)")
    head = f"{'ruleset':<16}{'stacks':>8}{'states':>8}{'solve s':>9}{'iters':>7}{'peak MB':>9}"
    print(head + f"{'P(first wins)':>15}{'load ms':>9}{'x round solve':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.rulesets:
            st = args.stacks or load_ruleset(name).starting_stack
            f = bench(name, args.stacks, Path(tmp))
            print(
                f"{name:<16}{f'{st}-{st}':>8}{f['states']:>8}{f['solve_s']:>9.2f}{f['iterations']:>7}"
                f"{f['peak_mb']:>9.1f}{f['value']:>15.6f}{f['load_ms']:>9.1f}{f['vs_round']:>15.1f}"
            )


if __name__ == "__main__":
    main()
