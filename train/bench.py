"""The speed figures the README quotes, measured here: ``zanzibar bench [--seconds 1] [--envs 4096]``.

Prints the CPU model, then steps per second of Gymnasium's ``Blackjack-v1`` (the reference, measured in
the same run), ``Zanzibar-v1`` through ``gym.make`` (random legal actions against the ``random`` bot),
the numpy vector env at ``--envs`` tables (a step of ``N`` tables counts ``N`` steps), the JAX env at
``--envs`` tables (``jax.jit`` of a loop of ``jax.vmap(step_autoreset)``; with the ``[jax]`` extra, else
a line saying how to add it), and games per second of the game loop a tournament runs (four heuristic
bots, 4-player classic games), each with its ratio to the reference. It needs the core install only.

The repository's ``benchmarks/`` (not installed) measure more: interleaved timings, instruction counts,
Pgx's tic-tac-toe beside the JAX env, tournaments over worker processes.
"""

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import sys
import time
from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

import gymnasium as gym
import numpy as np

import zanzibar_env  # noqa: F401  (registers the ids)
from zanzibar_env.core.game import play_game
from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.registry import make_agent
from zanzibar_env.envs.vector import ZanzibarVectorEnv
from zanzibar_env.extras import install_hint
from zanzibar_env.train.results import cpu_model  # numpy only (no torch, scipy or matplotlib)


def rate(go: Callable[[], int], seconds: float) -> float:
    """Units per second of ``go`` (returns the units it did), timed for about ``seconds`` after a warm-up."""
    go()
    units, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        units += go()
    return units / (time.perf_counter() - t0)


def gym_stepper(env_id: str, **kwargs: Any) -> Callable[[], int]:
    """64 steps of ``gym.make(env_id)`` with random legal actions, resetting episodes as they end."""
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    state = [info]

    def go() -> int:
        for _ in range(64):
            mask = state[0].get("action_mask")
            action = int(rng.choice(np.flatnonzero(mask))) if mask is not None else int(rng.integers(2))
            _, _, terminated, truncated, state[0] = env.step(action)
            if terminated or truncated:
                _, state[0] = env.reset()
        return 64

    return go


def vector_stepper(n: int, opponents: str = "random") -> Callable[[], int]:
    """8 steps of the numpy vector env of ``n`` tables (every hold mask is legal in classic)."""
    vec = ZanzibarVectorEnv(n, opponents=opponents, episode="round", seed=0)
    vec.reset(seed=0)
    actions = np.random.default_rng(0).integers(8, size=(64, n))
    i = [0]

    def go() -> int:
        for _ in range(8):
            vec.step(actions[i[0] & 63])
            i[0] += 1
        return 8 * n

    return go


def jax_stepper(n: int, chunk: int = 64) -> Callable[[], int]:
    """``chunk`` steps of ``n`` JAX tables, random legal actions, under one ``jax.jit``."""
    import jax
    import jax.numpy as jnp

    from zanzibar_env.jax import Env

    env = Env("classic", 2, opponents="random", episode="round", skip_no_decision=False)
    step = jax.vmap(env.step_autoreset)

    def body(_: int, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, k_act = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        return step(state, jax.random.categorical(k_act, logits).astype(jnp.int32)), key

    run = jax.jit(lambda carry: jax.lax.fori_loop(0, chunk, body, carry))
    carry = [(jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), n)), jax.random.PRNGKey(1))]

    def go() -> int:
        carry[0] = jax.block_until_ready(run(carry[0]))
        return n * chunk

    return go


def game_stepper() -> Callable[[], int]:
    """One 4-player classic game of ``greedy``, ``threshold``, ``escape`` and ``random`` (seeds 0, 1, ...)."""
    bots = [make_agent(name) for name in ("greedy", "threshold", "escape", "random")]
    seed = [0]

    def go() -> int:
        play_game("classic", bots, seed=seed[0])
        seed[0] += 1
        return 1

    return go


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.bench"), description=__doc__.split("\n")[0]
    )
    p.add_argument("--seconds", type=float, default=1.0, help="timing per figure, 0.05-600 (default 1)")
    p.add_argument("--envs", type=int, default=4096, help="tables of the vector and JAX envs, 1-65536")
    return p


def main(argv: list[str] | None = None) -> int:
    """Print the figures; returns 0 (2 on bad options, before any timing)."""
    p = build_parser()
    args = p.parse_args(argv)
    if not 0.05 <= args.seconds <= 600:
        p.error(f"--seconds must be in 0.05..600, got {args.seconds}")
    if not 1 <= args.envs <= 65536:
        p.error(f"--envs must be in 1..65536, got {args.envs}")
    print(f"CPU: {cpu_model()}; numpy {np.__version__}, gymnasium {gym.__version__}")
    ref = rate(gym_stepper("Blackjack-v1"), args.seconds)
    rows = [("Blackjack-v1, gym.make (reference)", ref, "steps/s")]
    rows.append(("Zanzibar-v1, gym.make", rate(gym_stepper("Zanzibar-v1"), args.seconds), "steps/s"))
    rows.append((f"vector env, {args.envs} tables", rate(vector_stepper(args.envs), args.seconds), "steps/s"))
    if find_spec("jax") is not None:
        rows.append((f"JAX env, {args.envs} tables", rate(jax_stepper(args.envs), args.seconds), "steps/s"))
    else:
        print(f"JAX env: skipped, jax is not installed ({install_hint('jax')})")
    rows.append(("4-player games of heuristic bots", rate(game_stepper(), args.seconds), "games/s"))
    print(f"{'what':40} {'per second':>14} {'x reference':>11}")
    for name, value, unit in rows:
        ratio = f"{value / ref:11.3f}" if unit == "steps/s" else f"{'':11}"  # games are not steps
        print(f"{name:40} {value:14,.1f} {ratio}  {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main, "bench"))
