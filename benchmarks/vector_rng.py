"""Cost of the vector env's per-env random streams against one shared pool, on the same draws.

Plays ``--steps`` steps of the vector env (``--envs`` sizes, ``greedy`` opponents, random actions) and
records every draw it makes (rows and kind). Then replays the record twice, timing CPU time (best of
``--repeats``): on :class:`~zanzibar_env.core.streams.RowStreams` (what the env does) and on one shared
pool refilled by ``rng.integers(0, 216)`` handing out one value per row drawn (what the env did before
per-env seeds, minus its extra roll-off draws). Prints microseconds per env step and the ratio; the
whole step's cost is in ``python -m benchmarks.env_speed``.

Run: ``python -m benchmarks.vector_rng [--envs 1 256 4096] [--steps 200] [--repeats 9]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from zanzibar_env.core import streams as ST
from zanzibar_env.envs.vector import ZanzibarVectorEnv


def record(num_envs: int, steps: int) -> list[tuple[str, np.ndarray, int]]:
    """The draws ``(kind, rows, k)`` of ``steps`` vector-env steps (kinds: throws, throws_k, integers)."""
    log: list[tuple[str, np.ndarray, int]] = []
    cls: Any = ST.RowStreams
    saved = {name: getattr(cls, name) for name in ("throws", "throws_k", "integers")}

    def spy(name: str) -> Callable[..., np.ndarray]:
        def draw(self: ST.RowStreams, rows: np.ndarray, k: int = 1) -> np.ndarray:
            log.append((name, rows.copy(), k))
            return saved[name](self, rows) if name == "throws" else saved[name](self, rows, k)

        return draw

    try:
        for name in saved:
            setattr(cls, name, spy(name))
        vec = ZanzibarVectorEnv(num_envs, opponents="greedy", seed=0)
        vec.reset(seed=0)
        actions = np.random.default_rng(0).integers(8, size=(64, num_envs))
        for i in range(steps):
            vec.step(actions[i & 63])
    finally:
        for name, f in saved.items():
            setattr(cls, name, f)
    return log


def best_us(f: Callable[[], None], steps: int, repeats: int) -> float:
    """Best CPU time of ``f`` over ``repeats`` runs, in microseconds per env step."""
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best / steps * 1e6


def measure(num_envs: int, steps: int, repeats: int) -> tuple[float, float, int]:
    """(streams us/step, shared pool us/step, draw calls) for ``num_envs`` envs."""
    log = record(num_envs, steps)
    streams = ST.RowStreams(num_envs)
    streams.seed(np.arange(num_envs), list(range(num_envs)))
    rng = np.random.default_rng(0)
    pool: list[Any] = [np.zeros(0, np.int64), 0]

    def take(k: int) -> np.ndarray:  # the shared pool the env used before per-env seeds
        if pool[1] + k > pool[0].size:
            pool[0], pool[1] = rng.integers(0, 216, size=max(16 * num_envs, 4096, k)), 0
        out = pool[0][pool[1] : pool[1] + k]
        pool[1] += k
        return out

    def replay_streams() -> None:
        for kind, rows, k in log:
            if kind == "throws":
                streams.throws(rows)
            elif kind == "throws_k":
                streams.throws_k(rows, k)
            else:
                streams.integers(rows, k)

    def replay_pool() -> None:
        for kind, rows, k in log:
            take(rows.size * (k if kind == "throws_k" else 1))

    return best_us(replay_streams, steps, repeats), best_us(replay_pool, steps, repeats), len(log)


def main(argv: list[str] | None = None) -> list[tuple[int, float, float]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--envs", type=int, nargs="+", default=[1, 256, 4096], help="vector env sizes")
    p.add_argument("--steps", type=int, default=200, help="env steps recorded")
    p.add_argument("--repeats", type=int, default=9, help="replays timed (the best counts)")
    a = p.parse_args(argv)
    head = ("envs", "draw calls/step", "streams us/step", "shared pool us/step", "ratio")
    print(f"{head[0]:>6s} {head[1]:>16s} {head[2]:>16s} {head[3]:>20s} {head[4]:>7s}")
    out = []
    for n in a.envs:
        s, q, calls = measure(n, a.steps, a.repeats)
        print(f"{n:6d} {calls / a.steps:16.1f} {s:16.1f} {q:20.1f} {s / q:6.1f}x")
        out.append((n, s, q))
    return out


if __name__ == "__main__":
    main()
