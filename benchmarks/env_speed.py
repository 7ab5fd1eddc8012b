"""Env speed: steps per second of the Zanzibar envs against Gymnasium's Blackjack-v1, in one run.

Measures, for ``--seconds`` each: ``Blackjack-v1`` through ``gym.make`` (the reference),
``Zanzibar-v1`` through ``gym.make`` and the raw :class:`~zanzibar_env.envs.env.ZanzibarEnv`, taking
turns in slices of ~20 ms so that all three see the same load (each figure is the median slice rate:
a load burst on a shared machine hits every env alike instead of one whole measurement), then the
native vector env at 1, 256, 1024 and 4096 envs (a vector step of ``N`` envs counts ``N`` steps).
Actions are uniform random (legal in every shipped ruleset); episodes are reset as they end. Figures
are wall-clock steps/s and CPU-time steps/s of this process, with both ratios to Blackjack-v1.
Targets: single env >= 2x Blackjack-v1, vector env >= 1,000,000 steps/s at 4096 envs.

``--instructions`` then counts instructions per step of the raw and ``gym.make`` Zanzibar env and of
Blackjack-v1 (raw and ``gym.make``) under valgrind's callgrind (:mod:`benchmarks.step_instructions`;
``--steps``, ``--warmup``, ``--valgrind``) and prints their ratios beside the timed ones: a ratio that
does not move with the CPU or the load.

Run: ``python -m benchmarks.env_speed [--seconds 2] [--ruleset classic] [--opponents random]
[--vector-opponents greedy] [--instructions [--steps 10000] [--warmup 2000]]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import zanzibar_env  # noqa: F401  (registers the ids)
from benchmarks import step_instructions as SI
from benchmarks.step_instructions import single_stepper
from zanzibar_env.agents import available_agents
from zanzibar_env.envs.env import ZanzibarEnv
from zanzibar_env.envs.vector import ZanzibarVectorEnv
from zanzibar_env.train.results import cpu_model

VECTOR_SIZES = (1, 256, 1024, 4096)


def timed(step: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Call ``step`` (returns steps done) for about ``seconds``; (wall steps/s, CPU steps/s)."""
    for _ in range(3):
        step()  # warm-up
    steps, w0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - w0 < seconds:
        for _ in range(16):
            steps += step()
    return steps / (time.perf_counter() - w0), steps / max(time.process_time() - c0, 1e-9)


def interleaved(
    steppers: dict[str, Callable[[], int]], seconds: float, slice_s: float = 0.02
) -> dict[str, tuple[float, float]]:
    """Time each stepper in turn, ``slice_s`` at a time, until each has run ``seconds``; per stepper the
    median slice rate (wall steps/s, CPU steps/s)."""
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in steppers}
    for step in steppers.values():
        for _ in range(3):
            step()  # warm-up
    for _ in range(max(1, round(seconds / slice_s))):
        for name, step in steppers.items():
            steps, w0, c0 = 0, time.perf_counter(), time.process_time()
            while time.perf_counter() - w0 < slice_s:
                for _ in range(16):
                    steps += step()
            wall, cpu = time.perf_counter() - w0, max(time.process_time() - c0, 1e-9)
            rates[name].append((steps / wall, steps / cpu))
    return {
        name: (float(np.median([w for w, _ in r])), float(np.median([c for _, c in r])))
        for name, r in rates.items()
    }


def vector_stepper(vec: ZanzibarVectorEnv, seed: int) -> Callable[[], int]:
    vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = rng.integers(8, size=(64, vec.num_envs))
    i = 0

    def step() -> int:
        nonlocal i
        vec.step(actions[i & 63])
        i += 1
        return vec.num_envs

    return step


def main(argv: list[str] | None = None) -> list[tuple[str, float, float, float]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    p.add_argument("--ruleset", default="classic", help="ruleset of the Zanzibar envs")
    p.add_argument("--opponents", default="random", help="bots of the single envs")
    default_vec = "greedy" if "greedy" in available_agents() else "random"
    p.add_argument("--vector-opponents", default=default_vec, help="bots of the vector env (batched)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--instructions", action="store_true", help="also count instructions per step under callgrind"
    )
    SI.add_arguments(p)
    a = p.parse_args(argv)
    valgrind = SI.find_valgrind(a.valgrind) if a.instructions else None
    if a.instructions and valgrind is None:
        p.exit(
            2, f"--instructions needs valgrind, and {a.valgrind!r} is not found (apt-get install valgrind)\n"
        )
    kw = dict(ruleset=a.ruleset, opponents=a.opponents)
    single = interleaved(
        {
            "Blackjack-v1 (gym.make)": single_stepper(gym.make("Blackjack-v1"), a.seed),
            "Zanzibar-v1 (gym.make)": single_stepper(gym.make("Zanzibar-v1", **kw), a.seed),
            "ZanzibarEnv (raw)": single_stepper(ZanzibarEnv(**kw), a.seed),
        },
        a.seconds,
    )
    ref_wall, ref_cpu = single.pop("Blackjack-v1 (gym.make)")
    rows: list[tuple[str, float, float]] = [(name, *r) for name, r in single.items()]
    for n in VECTOR_SIZES:
        vec = ZanzibarVectorEnv(n, ruleset=a.ruleset, opponents=a.vector_opponents, seed=a.seed)
        rows.append((f"vector env, {n} envs", *timed(vector_stepper(vec, a.seed), a.seconds)))
    print(f"CPU: {cpu_model()}")
    print(f"ruleset {a.ruleset}; single-env opponents {a.opponents}; vector opponents {a.vector_opponents}")
    print(f"{'env':28s} {'steps/s (wall)':>15s} {'steps/s (cpu)':>15s} {'x Blackjack':>12s} {'(cpu)':>7s}")
    out = [("Blackjack-v1 (gym.make)", ref_wall, ref_cpu, 1.0)]
    out += [(name, w, c, w / ref_wall) for name, w, c in rows]
    for name, w, c, ratio in out:
        print(f"{name:28s} {w:15,.0f} {c:15,.0f} {ratio:11.2f}x {c / ref_cpu:6.2f}x")
    single_ratio, raw_ratio = out[1][3], out[2][3]
    vec4096 = out[-1][1]
    met = "met" if min(single_ratio, raw_ratio) >= 2 else "NOT met"
    print(
        f"target single env >= 2x Blackjack-v1: gym.make {single_ratio:.2f}x, raw {raw_ratio:.2f}x -> {met}"
    )
    print(
        f"target vector env >= 1,000,000 steps/s at 4096 envs: {vec4096:,.0f} -> "
        f"{'met' if vec4096 >= 1e6 else 'NOT met'} (cpu-time rate {out[-1][2]:,.0f})"
    )
    if valgrind is not None:
        print(f"\ninstructions per step (callgrind: {a.steps} steps after {a.warmup} warm-up steps, per env)")
        per_step = SI.count(valgrind, a.steps, a.warmup, a.ruleset, a.opponents, a.seed)
        SI.report(per_step, {name: ratio for name, _, _, ratio in out[:3]})
    return out


if __name__ == "__main__":
    main()
