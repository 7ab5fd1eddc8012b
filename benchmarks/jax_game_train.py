"""The 2-player game learned from scratch, over several seeds: ``python -m benchmarks.jax_game_train
[--seeds 5] [--jobs 1] [--config PATH] [--set key=value ...] [--out DIR]``.

Trains seeds ``0 .. N-1`` of the game learner's config (default ``configs/jax_game_2p.yaml``:
``python -m train.jax_game``; ``--jobs J`` runs J seeds at once, each in its own process, so they share
the CPU) and prints one table: per seed the wall time of training (compilation included, evaluations
excluded), the decisions learned from and the exact game exploitability of the greedy policy rolling
first, second and their mean (:func:`zanzibar_env.agents.exact.game_exploitability`, win probability,
from the starting stacks); below it the interquartile mean over the seeds with its 95% bootstrap
interval, how many seeds beat the round-optimal bot ``optimal`` (0.002760), the CPU and the load
(``/proc/loadavg``) before and after. Every evaluation of every seed goes to ``DIR/curve.csv`` and the
learning curve (exact figure against wall time of training) to ``DIR/curve.png``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from zanzibar_env.train.config.jax_game import JaxGameConfig, load_game_config
from zanzibar_env.train.results.intervals import iqm, iqm_interval
from zanzibar_env.train.results.repro import cpu_model
from zanzibar_env.train.results.runs import read_eval_csv

OPTIMAL_ROUND_PLAY = 0.002760  # python -m train.exact_eval --game --agent optimal
COLUMNS = ("train_seconds", "exploit_first", "exploit_second", "exploit_mean")


def one_seed(cfg: JaxGameConfig) -> dict[str, Any]:
    """One run of :func:`zanzibar_env.train.jax_game.run` (in a worker process)."""
    from zanzibar_env.train.jax_game import run

    return run(cfg, ["--set", f"seed={cfg.seed}"], log=None)


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def table(rows: list[dict[str, Any]], title: str) -> str:
    """The printed table: a row per seed, the IQM and its interval, the seeds beating ``optimal``."""
    lines = [title, f"{'seed':>6} {'train s':>8} {'decisions':>11} {'1st':>9} {'2nd':>9} {'mean':>9}"]
    for r in rows:
        lines.append(
            f"{r['seed']:>6} {r['train_seconds']:>8.1f} {r['timesteps']:>11.0f} {r['exploit_first']:>9.6f} "
            f"{r['exploit_second']:>9.6f} {r['exploit_mean']:>9.6f}"
        )
    stats = {c: (iqm([r[c] for r in rows]), iqm_interval([r[c] for r in rows])) for c in COLUMNS}
    lines.append(
        f"{'IQM':>6} {stats['train_seconds'][0]:>8.1f} {'':>11} {stats['exploit_first'][0]:>9.6f} "
        f"{stats['exploit_second'][0]:>9.6f} {stats['exploit_mean'][0]:>9.6f}"
    )
    for c in ("exploit_mean", "exploit_first", "exploit_second"):
        lo, hi = stats[c][1]
        lines.append(f"    95% bootstrap interval of the IQM, {c}: [{lo:.6f}, {hi:.6f}]")
    met = sum(r["exploit_mean"] < OPTIMAL_ROUND_PLAY for r in rows)
    lines.append(f"    seeds below optimal's {OPTIMAL_ROUND_PLAY:.6f}: {met} of {len(rows)}")
    return "\n".join(lines)


def write_curve(rows: list[dict[str, Any]], out: Path) -> None:
    """Every evaluation of every seed as ``curve.csv`` and the learning curve as ``curve.png``."""
    out.mkdir(parents=True, exist_ok=True)
    points = [(r["seed"], e) for r in rows for e in read_eval_csv(Path(r["run_dir"]) / "eval.csv")]
    keys = ["timesteps", "games", "train_seconds", "cpu_seconds", *COLUMNS[1:]]
    with open(out / "curve.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["seed", *keys])
        for seed, e in points:
            w.writerow([seed, *(e[k] for k in keys)])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in rows:
        pts = [e for s, e in points if s == r["seed"]]
        ax.plot(
            [e["train_seconds"] for e in pts],
            [e["exploit_mean"] for e in pts],
            "o-",
            label=f"seed {r['seed']}",
        )
    ax.axhline(OPTIMAL_ROUND_PLAY, color="k", ls="--", label="optimal (round play)")
    ax.set(xlabel="training wall time, s (evaluations excluded)", ylabel="exact game exploitability (mean)",
           yscale="log", title="2-player game learned from scratch (train/jax_game.py)")  # fmt: skip
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=110)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.jax_game_train", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--seeds", type=int, default=5, help="train seeds 0 .. N-1 (default 5)")
    ap.add_argument("--jobs", type=int, default=1, help="seeds trained at once (default 1)")
    ap.add_argument("--config", default=None, help="experiment YAML (default: configs/jax_game_2p.yaml)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override one config key (repeatable)")  # fmt: skip
    ap.add_argument("--out", default="runs/jax_game_train", help="folder of curve.csv and curve.png")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.seeds < 1 or args.jobs < 1:
        print(f"error: --seeds and --jobs must be at least 1, got {args.seeds}, {args.jobs}", file=sys.stderr)
        return 2
    try:
        cfg = load_game_config(args.config, [*args.overrides, "eval_exact=true"])
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import jax

    print(
        f"CPU: {cpu_model()}; JAX {jax.__version__} on {jax.devices()[0]}; load before: {load()}", flush=True
    )
    cfgs = [dataclasses.replace(cfg, seed=s) for s in range(args.seeds)]
    if args.jobs == 1:
        rows = [one_seed(c) for c in cfgs]
    else:
        import multiprocessing

        with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            rows = list(pool.map(one_seed, cfgs))
    budget = f"at most {cfg.max_train_seconds:.0f} s" if cfg.max_train_seconds else "no time limit"
    print(table(rows, f"{cfg.exp_name}: {args.seeds} seeds, {args.jobs} at once, {budget} of training each"))
    print(f"load after: {load()}")
    write_curve(rows, Path(args.out))
    print(f"learning curve: {Path(args.out) / 'curve.csv'}, {Path(args.out) / 'curve.png'}")
    for r in rows:
        print(f"  seed {r['seed']}: {r['agent']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
