"""JAX env speed: steps per second of :mod:`zanzibar_env.jax` beside the numpy vector env and Pgx's
tic-tac-toe, in one run.

Every JAX env is stepped the way Pgx measures its own envs: ``jax.jit`` of a ``lax.fori_loop`` of
``--chunk`` steps of ``jax.vmap(step)`` with auto-reset, each step's action drawn uniformly among the
legal ones (``jax.random.categorical`` on the mask) inside the loop; a step of ``N`` envs counts ``N``
steps. The Zanzibar env plays 2-player classic round episodes against each ``--opponents`` (the bots
play inside the step and are not counted as steps); the numpy vector env
(:class:`~zanzibar_env.envs.vector.ZanzibarVectorEnv`, same game, same opponents, random legal actions)
and Pgx's ``tic_tac_toe`` and ``backgammon`` (``pgx.experimental.auto_reset``) run at the same batch
sizes. Compilation is done before timing. Prints the CPU model, the JAX device, and steps/s (best of
``--repeats``) with the ratio to Pgx's tic-tac-toe.

Each Zanzibar row is played with each ``--loops`` form of the step (``Env(loops=...)``: ``while``, the
early-exit loops used on CPU, and ``fixed``, the masked fixed-count event loop used on accelerators),
in the same run. Below the speeds, for each form, what the compiled step of ``--envs[0]`` tables is
made of (from XLA's optimised HLO, the same on any device): its ``while`` loops (a ``fori_loop`` of
fixed count is one too, but its trip count is known), the fusions and other instructions (the
kernels a GPU launches per pass), and the passes of the event loop per call (the fixed form: always
``num_players * max_rolls``).

Run: ``python -m benchmarks.jax_speed [--envs 4096 16384] [--opponents optimal random] [--seconds 3]
[--loops while fixed] [--skip-no-decision]``
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from zanzibar_env.jax import Env
from zanzibar_env.train.bench import vector_stepper
from zanzibar_env.train.results import cpu_model


def jax_runner(
    init: Callable[..., Any], step: Callable[..., Any], n: int, chunk: int, keys: bool
) -> Callable[[], int]:
    """A callable that plays ``chunk`` steps of ``n`` envs (random legal actions) and returns ``n * chunk``;
    ``keys``: pass a key per env to each step (Pgx's auto-reset needs one; the Zanzibar env draws its dice
    from each table's own stream without)."""
    init_b = jax.vmap(init)
    step_b = jax.vmap(step) if keys else lambda s, a, k: jax.vmap(step)(s, a)

    def body(_: int, carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits).astype(jnp.int32)
        return step_b(state, action, jax.random.split(k_step, n)), key

    run = jax.jit(lambda carry: jax.lax.fori_loop(0, chunk, body, carry))
    carry = [(init_b(jax.random.split(jax.random.PRNGKey(0), n)), jax.random.PRNGKey(1))]
    jax.block_until_ready(run(carry[0]))  # compile

    def go() -> int:
        carry[0] = run(carry[0])
        jax.block_until_ready(carry[0])
        return n * chunk

    return go


def rate(go: Callable[[], int], seconds: float, repeats: int) -> float:
    """Best steps/s over ``repeats`` timings of about ``seconds / repeats`` each."""
    go()
    best = 0.0
    for _ in range(repeats):
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds / repeats:
            steps += go()
        best = max(best, steps / (time.perf_counter() - t0))
    return best


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", type=int, nargs="+", default=[4096])
    p.add_argument("--opponents", nargs="+", default=["optimal", "random"])
    p.add_argument("--chunk", type=int, default=64, help="steps per compiled loop")
    p.add_argument("--seconds", type=float, default=3.0, help="timing per figure")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-numpy", action="store_true", help="skip the numpy vector env")
    p.add_argument("--loops", nargs="+", default=["while", "fixed"], choices=["while", "fixed"])
    p.add_argument("--no-backgammon", action="store_true", help="skip Pgx's backgammon")
    p.add_argument(
        "--skip-no-decision", action="store_true",
        help="Env(skip_no_decision=True), as the JAX PPO trains: episodes without a decision begun again",
    )  # fmt: skip
    a = p.parse_args(argv)
    print(f"CPU: {cpu_model()} ({jax.local_device_count()} JAX device(s))")
    print(f"JAX device: {jax.devices()[0].device_kind} ({jax.default_backend()}); jax {jax.__version__}")
    rows: list[tuple[str, int, float]] = []
    for n in a.envs:
        ref = _pgx_rate(n, a, "tic_tac_toe")
        rows.append(("pgx tic_tac_toe", n, ref))
        if not a.no_backgammon:
            rows.append(("pgx backgammon", n, _pgx_rate(n, a, "backgammon")))
        for opp in a.opponents:
            for loops in a.loops:
                env = Env("classic", 2, opponents=opp, episode="round", skip_no_decision=a.skip_no_decision,
                          loops=loops)  # fmt: skip
                go = jax_runner(env.init, env.step_autoreset, n, a.chunk, keys=False)
                rows.append((f"zanzibar_env.jax vs {opp}, {loops}", n, rate(go, a.seconds, a.repeats)))
            if not a.no_numpy:
                rows.append(
                    (f"numpy vector env vs {opp}", n, rate(vector_stepper(n, opp), a.seconds, a.repeats))
                )
        print(f"\n{'env (2-player classic round)':40} {'envs':>8} {'steps/s':>14} {'x pgx ttt':>9}")
        for name, k, r in rows:
            if k == n:
                print(f"{name:40} {k:8d} {r:14,.0f} {r / ref if ref else float('nan'):9.2f}")
    print(f"\nthe compiled step of {a.envs[0]} tables (optimised HLO), vs {a.opponents[0]}:")
    print(
        f"{'loops':>6} {'while loops':>11} {'fixed count':>11} {'fusions':>8} {'instructions':>12} "
        f"{'event passes per call':>22}"
    )
    for loops in a.loops:
        env = Env("classic", 2, opponents=a.opponents[0], episode="round",
                  skip_no_decision=a.skip_no_decision, loops=loops)  # fmt: skip
        w, k, f, i = hlo_counts(env, a.envs[0])
        passes = f"{env.max_events} (fixed)" if loops == "fixed" else "until the decision"
        print(f"{loops:>6} {w:>11} {k:>11} {f:>8} {i:>12} {passes:>22}")


def hlo_counts(env: Env, n: int) -> tuple[int, int, int, int]:
    """``(while loops, of them with a known trip count, fusions, instructions)`` in the optimised HLO of
    ``n`` tables' auto-reset step."""
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), n))
    action = jnp.zeros(n, jnp.int32)
    text = jax.jit(jax.vmap(env.step_autoreset)).lower(state, action).compile().as_text() or ""
    whiles = len(re.findall(r"\swhile\(", text))  # (an instruction's shape may hold "/*index=5*/")
    known = len(re.findall(r"known_trip_count", text))
    fusions = len(re.findall(r"\sfusion\(", text))
    instructions = len(re.findall(r"^\s+(?:ROOT )?%?[\w.-]+ = ", text, re.M))
    return whiles, known, fusions, instructions


def _pgx_rate(n: int, a: argparse.Namespace, game: str) -> float:
    try:
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        print(f"pgx is not installed: no {game} reference (pip install pgx)")
        return 0.0
    env = pgx.make(game)
    return rate(
        jax_runner(env.init, auto_reset(env.step, env.init), n, a.chunk, keys=True), a.seconds, a.repeats
    )


if __name__ == "__main__":
    main()
