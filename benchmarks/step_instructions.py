"""Instructions per env step, counted by valgrind's callgrind: a CPU-independent twin of the time ratios.

Wall-clock ratios move with the CPU (the Zanzibar env against ``Blackjack-v1`` was 2.3-2.5x on an AMD
EPYC and 1.5-1.6x on an Intel Xeon) and with the load; instruction counts do neither. For each env,
two child interpreters run under ``valgrind --tool=callgrind``: one steps ``--warmup`` times, the
other ``--warmup + --steps`` times; the difference of their instruction totals divided by ``--steps``
is the cost of one step, the interpreter start, the imports, the env's construction and the warm-up
cancelling out. Actions are the same random stream as :mod:`benchmarks.env_speed` uses; episodes are
reset as they end (resets count, as they do in the timed figures).

Run: ``python -m benchmarks.env_speed --instructions`` (the timed ratios, then these), or on its own
``python -m benchmarks.step_instructions [--steps 10000] [--warmup 2000]``. Needs valgrind (``apt-get
install valgrind``); each env takes a minute or so under it on one core.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

from zanzibar_env.train.config import int_at_least, positive_int

#: Envs counted: name -> how to build it (from the Zanzibar ruleset and opponents). Blackjack-v1 via
#: ``gym.make`` is the reference of every ratio, as in the timed benchmark.
ENVS = ("ZanzibarEnv (raw)", "Zanzibar-v1 (gym.make)", "Blackjack-v1 (raw)", "Blackjack-v1 (gym.make)")
REFERENCE = "Blackjack-v1 (gym.make)"
ROOT = Path(__file__).resolve().parents[1]  # the checkout whose package the children import


def make_env(name: str, ruleset: str = "classic", opponents: str = "random") -> gym.Env:
    """The env called ``name`` in :data:`ENVS` (``ValueError`` for another name)."""
    if name == "ZanzibarEnv (raw)":
        from zanzibar_env.envs.env import ZanzibarEnv

        return ZanzibarEnv(ruleset=ruleset, opponents=opponents)
    if name == "Zanzibar-v1 (gym.make)":
        import zanzibar_env  # noqa: F401  (registers the ids)

        return gym.make("Zanzibar-v1", ruleset=ruleset, opponents=opponents)
    if name == "Blackjack-v1 (raw)":
        from gymnasium.envs.toy_text.blackjack import BlackjackEnv

        return BlackjackEnv()
    if name == REFERENCE:
        return gym.make("Blackjack-v1")
    raise ValueError(f"env must be one of {list(ENVS)}, got {name!r}")


def single_stepper(env: gym.Env, seed: int) -> Callable[[], int]:
    """A function that steps ``env`` once with the next of a fixed stream of random actions (resetting
    the env when its episode ends) and returns 1, the steps done."""
    env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(int(env.action_space.n), size=1 << 16).tolist()  # type: ignore[attr-defined]
    i = 0

    def step() -> int:
        nonlocal i
        _, _, term, trunc, _ = env.step(actions[i & 0xFFFF])
        i += 1
        if term or trunc:
            env.reset()
        return 1

    return step


def run_child(name: str, steps: int, ruleset: str, opponents: str, seed: int) -> None:
    """Build env ``name`` and step it ``steps`` times (what a child interpreter does under callgrind)."""
    step = single_stepper(make_env(name, ruleset, opponents), seed)
    for _ in range(steps):
        step()


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of the counts (shared with ``benchmarks.env_speed --instructions``)."""
    p.add_argument("--steps", type=positive_int, default=10_000, help="steps counted per env (callgrind)")
    p.add_argument("--warmup", type=int_at_least(0), default=2_000, help="steps before the counted ones")
    p.add_argument("--valgrind", default="valgrind", help="the valgrind command (a name on PATH or a path)")


def find_valgrind(command: str) -> str | None:
    """The path of ``command`` if it can be run, else ``None``."""
    return shutil.which(command)


def _callgrind_total(valgrind: str, args: list[str], out_dir: str) -> int:
    """Instructions executed by ``python -m benchmarks.step_instructions --child ...`` under callgrind."""
    out = Path(tempfile.mkstemp(prefix="callgrind.", dir=out_dir)[1])
    env = dict(os.environ, PYTHONHASHSEED="0")  # the same string hashes (and dict layouts) every run
    cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable]
    done = subprocess.run(
        [*cmd, "-m", "benchmarks.step_instructions", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).splitlines()[-15:])
        raise RuntimeError(f"callgrind run failed ({' '.join(args)}):\n{tail}")
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no instruction total in {out}")


def count(
    valgrind: str, steps: int, warmup: int, ruleset: str, opponents: str, seed: int
) -> dict[str, float]:
    """Instructions per step of each env in :data:`ENVS` (see the module docstring)."""
    per_step: dict[str, float] = {}
    common = ["--ruleset", ruleset, "--opponents", opponents, "--seed", str(seed)]
    with tempfile.TemporaryDirectory(prefix="step_instructions.") as tmp:
        for name in ENVS:
            base = _callgrind_total(valgrind, ["--child", name, "--child-steps", str(warmup), *common], tmp)
            more = _callgrind_total(
                valgrind, ["--child", name, "--child-steps", str(warmup + steps), *common], tmp
            )
            per_step[name] = (more - base) / steps
            print(f"  {name:26s} {per_step[name]:12,.0f} instructions per step", flush=True)
    return per_step


def report(per_step: dict[str, float], time_ratios: dict[str, float] | None = None) -> None:
    """Print instructions per step, the ratio to Blackjack-v1 (``x Blackjack``: how many times fewer
    instructions than ``gym.make("Blackjack-v1")`` takes, the counterpart of a speed ratio; and
    against the raw Blackjack env) and, where given, the timed ratio beside it."""
    ref, raw = per_step[REFERENCE], per_step["Blackjack-v1 (raw)"]
    head = f"{'env':26s} {'instr/step':>12s} {'x Blackjack':>12s} {'x raw BJ':>9s}"
    print(head + (f" {'x Blackjack (time)':>19s}" if time_ratios else ""))
    for name, n in per_step.items():
        line = f"{name:26s} {n:12,.0f} {ref / n:11.2f}x {raw / n:8.2f}x"
        if time_ratios:
            t = time_ratios.get(name)
            line += f" {t:18.2f}x" if t is not None else f" {'':>19s}"
        print(line)


def main(argv: list[str] | None = None) -> dict[str, float] | None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    add_arguments(p)
    p.add_argument("--ruleset", default="classic", help="ruleset of the Zanzibar envs")
    p.add_argument("--opponents", default="random", help="bots of the Zanzibar envs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--child", choices=ENVS, help=argparse.SUPPRESS)  # one env's run under callgrind
    p.add_argument("--child-steps", type=int_at_least(0), default=0, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child is not None:
        run_child(a.child, a.child_steps, a.ruleset, a.opponents, a.seed)
        return None
    valgrind = find_valgrind(a.valgrind)
    if valgrind is None:
        p.exit(
            2, f"--instructions needs valgrind, and {a.valgrind!r} is not found (apt-get install valgrind)\n"
        )
    print(f"callgrind: {a.steps} steps after {a.warmup} warm-up steps, per env")
    per_step = count(valgrind, a.steps, a.warmup, a.ruleset, a.opponents, a.seed)
    report(per_step)
    return per_step


if __name__ == "__main__":
    main()
