"""Solve times of the exact round-optimal solver, table loads from the disk cache, and look-up speed.

``python -m benchmarks.solver_speed [--players 2 4 8] [--rulesets classic ...]`` prints, per ruleset and
table size, the time of a fresh solve on one core (no disk cache), the number of public states, the
first roller's exact expected result, the time to load the cached tables, and the optimal agent's
``act_batch`` throughput; ratios are against the 2-player solve of the same ruleset in the same run.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from zanzibar_env.agents.exact.cache import _MEMORY, solved_tables
from zanzibar_env.agents.exact.round import RoundSpec, seat_values, solve
from zanzibar_env.agents.optimal import OptimalAgent
from zanzibar_env.core.dice import RandomDice
from zanzibar_env.core.engine import RoundState, View
from zanzibar_env.core.kernel import transition_probs
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import available_rulesets, load_ruleset


def _views(ruleset: str, n: int, count: int, seed: int = 0) -> ViewBatch:
    """``count`` decision views from rounds played by the optimal agent."""
    rules, agent, dice = load_ruleset(ruleset), OptimalAgent(use_disk=False), RandomDice(seed)
    views: list[View] = []
    while len(views) < count:
        st = RoundState(rules, [rules.starting_stack] * n, 0, dice)
        while st.current_seat is not None:
            views.append(st.view())
            st.apply(agent.act(views[-1]))
    return ViewBatch.from_views(views[:count])


def bench(ruleset: str, n: int, cache: Path) -> dict[str, float]:
    """Figures for one ruleset and table size."""
    rules = load_ruleset(ruleset)
    t0 = time.perf_counter()
    spec = RoundSpec.of(rules, n)
    levels = solve(spec)
    t_solve = time.perf_counter() - t0
    first = float(seat_values(spec, levels)[0])
    _MEMORY.clear()
    solved_tables(rules, n, cache)  # solves again and writes the cache
    _MEMORY.clear()
    t0 = time.perf_counter()
    solved_tables(rules, n, cache)
    t_load = time.perf_counter() - t0
    batch = _views(ruleset, n, 4096)
    agent = OptimalAgent(cache_dir=cache)
    agent.act_batch(batch)
    t0 = time.perf_counter()
    reps = 20
    for _ in range(reps):
        agent.act_batch(batch)
    rate = reps * len(batch) / (time.perf_counter() - t0)
    states = float(sum(len(lv.keys) for lv in levels))
    return {"solve": t_solve, "states": states, "first": first, "load": t_load, "rate": rate}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, nargs="+", default=[2, 4, 8])
    p.add_argument("--rulesets", nargs="+", default=available_rulesets())
    args = p.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    transition_probs()  # the dice tables are built on first use: here, so no solve below carries them
    print(f"{'ruleset':<16}{'n':>3}{'solve s':>10}{'x 2p':>7}{'states':>9}{'first roller':>14}"
          f"{'load s':>9}{'act_batch rows/s':>18}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.rulesets:
            ref = None
            for n in args.players:
                f = bench(name, n, Path(tmp))
                ref = ref or f["solve"]
                print(f"{name:<16}{n:>3}{f['solve']:>10.3f}{f['solve'] / ref:>7.1f}{int(f['states']):>9}"
                      f"{f['first']:>+14.4f}{f['load']:>9.3f}{f['rate']:>18,.0f}")  # fmt: skip
    print(
        f"(numpy {np.__version__}; one-core BLAS if OMP_NUM_THREADS/OPENBLAS_NUM_THREADS=1 set before start)"
    )


if __name__ == "__main__":
    main()
