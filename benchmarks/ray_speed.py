"""Tournaments on Ray against local processes, the per-task costs behind them, and scale on paper.

    .venv/bin/python -m benchmarks.ray_speed [--games 20000] [--agents random,greedy,threshold,escape]
        [--cores-per-node 16] [--trial-seconds S]

In one run, on the same tournament (seed 0, 4 players, heuristic bots): games/s with ``--jobs 1``
(the reference), ``--jobs 2`` (a local process pool) and ``--backend ray`` on a local Ray with 2 CPUs,
started before the clock (as a running cluster would be). Ray is timed twice: on fresh workers (each
imports the project on its first task) and again on the same, warm workers. Results are checked equal.

Then the per-task costs that decide how far it scales, each measured here: the round trip of an empty
Ray task, the deals (and games) per task and the seconds a task plays, the bytes and seconds to ship
the tournament context once and each task's results back, and the driver's own cost per game
(collecting rows, ratings and statistics, which is serial). From these, a table of expected games/s at
1, 8 and 64 nodes of ``--cores-per-node`` cores: ``min(workers, driver)`` where workers = cores x
games/s per core x (task seconds / (task seconds + task overhead)) and driver = 1 / (driver seconds per
game + result deserialisation per game). With ``--trial-seconds`` (the wall time of one sweep trial,
``time_total_s`` in the sweep's ``trials.csv``) also sweep trials per hour: cores (1 CPU a trial) x
3600 / trial seconds.
"""

from __future__ import annotations

import argparse
import pickle
import time
from typing import Any

from zanzibar_env.train.tournament import plan_tournament, play_deal, play_tournament, summarise
from zanzibar_env.train.tournament.ray_backend import chunk_size, ray_session


def _rate(agents: list[str], games: int, **kw: Any) -> tuple[float, list[dict]]:
    res = play_tournament(plan_tournament(agents, players=4, games=games, seed=0, **kw), progress=False)
    return res.games_per_second, res.games


def head_to_head(agents: list[str], games: int) -> dict[str, float]:
    """Games/s of 1 job, 2 jobs and Ray (2 CPUs; cold and warm workers); results checked identical."""
    out: dict[str, float] = {}
    out["jobs 1"], ref = _rate(agents, games, jobs=1)
    out["jobs 2"], two = _rate(agents, games, jobs=2)
    out["ray cold"], cold = _rate(agents, games, backend="ray")
    out["ray warm"], warm = _rate(agents, games, backend="ray")
    if not ref == two == cold == warm:
        raise AssertionError("the backends gave different games")
    return out


def _noop() -> None:
    return None


def task_costs(ray: Any, agents: list[str], games: int, cpus: int) -> dict[str, float]:
    """Seconds and bytes per task, per game and per tournament (see the module docstring)."""
    plan = plan_tournament(agents, players=4, games=games, seed=0)
    noop = ray.remote(num_cpus=1)(_noop)
    ray.get([noop.remote() for _ in range(200)])  # warm
    t = time.perf_counter()
    ray.get([noop.remote() for _ in range(2000)])
    overhead = (time.perf_counter() - t) / 2000 * cpus  # seconds of a CPU per task
    t = time.perf_counter()
    ctx_bytes = len(pickle.dumps(plan.ctx))
    ray.get(ray.put(plan.ctx))
    ship = time.perf_counter() - t
    size = chunk_size(plan.deals, cpus)
    t = time.perf_counter()
    chunk = [play_deal(plan.ctx, d) for d in range(size)]
    task_seconds = time.perf_counter() - t
    blob = pickle.dumps(chunk)
    t = time.perf_counter()
    for _ in range(20):
        pickle.loads(blob)
    unpickle = (time.perf_counter() - t) / 20
    rows = [row for deal in chunk for row, _ in deal]
    t = time.perf_counter()
    summarise(rows * max(1, 2000 // len(rows)), plan.ctx.names)
    driver = (time.perf_counter() - t) / (len(rows) * max(1, 2000 // len(rows)))
    games_per_task = size * 4
    return {
        "task overhead s": overhead,
        "deals per task": size,
        "games per task": games_per_task,
        "task play s": task_seconds,
        "context bytes": ctx_bytes,
        "context ship s": ship,
        "result bytes per game": len(blob) / games_per_task,
        "result unpickle s per game": unpickle / games_per_task,
        "driver s per game": driver,
    }


def scale_table(c: dict[str, float], cores_per_node: int, trial_seconds: float | None) -> list[str]:
    """Expected games/s (and sweep trials/h) at 1, 8 and 64 nodes, and what limits each."""
    per_core = c["games per task"] / c["task play s"]
    eff = c["task play s"] / (c["task play s"] + c["task overhead s"])
    driver = 1 / (c["driver s per game"] + c["result unpickle s per game"])
    lines = [
        f"{'nodes':>5} {'cores':>6} {'workers games/s':>16} {'driver games/s':>15} {'expected':>10}  limit"
    ]
    for nodes in (1, 8, 64):
        cores = nodes * cores_per_node
        workers = cores * per_core * eff
        best = min(workers, driver)
        limit = "workers (CPU)" if workers <= driver else "driver (results + statistics, serial)"
        line = f"{nodes:>5} {cores:>6} {workers:>16,.0f} {driver:>15,.0f} {best:>10,.0f}  {limit}"
        if trial_seconds:
            line += f"; sweep: {cores * 3600 / trial_seconds:,.0f} trials/h (1 CPU each)"
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.ray_speed", description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20000)
    p.add_argument("--agents", default="random,greedy,threshold,escape")
    p.add_argument("--cores-per-node", type=int, default=16)
    p.add_argument("--trial-seconds", type=float, default=None, help="one sweep trial's wall seconds")
    args = p.parse_args(argv)
    agents = args.agents.split(",")
    with ray_session(num_cpus=2) as ray:
        rates = head_to_head(agents, args.games)
        print(f"tournament, {args.games} games, 4 players, {args.agents} (results identical):")
        for name, gps in rates.items():
            print(f"  {name:<9} {gps:9.1f} games/s  ({gps / rates['jobs 2']:.2f}x jobs 2)")
        costs = task_costs(ray, agents, args.games, cpus=2)
    print("per-task costs (measured on this machine):")
    for name, value in costs.items():
        print(f"  {name:<28} {value:.6g}")
    print(f"scale on paper ({args.cores_per_node} cores per node):")
    for line in scale_table(costs, args.cores_per_node, args.trial_seconds):
        print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
