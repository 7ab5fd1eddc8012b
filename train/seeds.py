"""A training config as a distribution over seeds: ``python -m train.seeds --seeds 0 1 2 3 4 --jobs 2``.

Runs ``python -m train.ppo`` once per seed (``--config`` and ``--set`` as there; ``seed`` comes from
``--seeds``), at most ``--jobs`` at a time, each in its own process (so each pins its CPU kernels and
threads afresh, see :mod:`zanzibar_env.train.results.repro`), then prints one table of the **final** exact regret
(the last row of each run's ``eval.csv``) per seat (rolls first / second / their mean), the training
seconds (evaluations excluded, as ``zanzibar_env.train.ppo`` reports them) and whole-process wall
seconds: for each, the interquartile mean with its 95% bootstrap interval over the seeds (what
``rliable`` reports for runs over seeds; :mod:`zanzibar_env.train.results.intervals`), the mean, min and max.
``--json OUT`` also writes the per-seed rows and the summary. A failed run stops nothing else; the
command then exits 1 naming it.

Wall times depend on the machine and on what else runs on it: quote them with both.
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.preflight import preflight
from zanzibar_env.core.safe_io import atomic_write_text, check_output
from zanzibar_env.train.config import load_config, parse_override
from zanzibar_env.train.config.options import add_config_options
from zanzibar_env.train.config.training import DEFAULT_CONFIG
from zanzibar_env.train.results import EVAL_CSV, iqm, iqm_interval, pin_cpu_kernels, read_eval_csv

#: The columns summarised, with their labels.
COLUMNS = (
    ("exploit_first", "regret, rolls first"),
    ("exploit_second", "regret, rolls second"),
    ("exploit_mean", "regret, mean of seats"),
    ("train_seconds", "training seconds"),
    ("wall_seconds", "process wall seconds"),
)


def parse_seeds(values: list[str]) -> list[int]:
    """Distinct non-negative integer seeds (``ValueError`` naming the bad one)."""
    seeds: list[int] = []
    for text in values:
        try:
            seed = int(text)
        except ValueError:
            raise ValueError(f"--seeds: {text!r} is not an integer") from None
        if not 0 <= seed < 2**31:
            raise ValueError(f"--seeds: {seed} is outside 0..2147483647")
        if seed in seeds:
            raise ValueError(f"--seeds: {seed} is given twice")
        seeds.append(seed)
    if not seeds:
        raise ValueError("--seeds: give at least one seed")
    return seeds


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.seeds"), description=__doc__.splitlines()[0]
    )
    ap.add_argument("--seeds", nargs="+", default=["0", "1", "2", "3", "4"], help="seeds (default 0-4)")
    ap.add_argument("--jobs", type=int, default=1, help="runs at a time (default 1)")
    add_config_options(ap, "ppo_", DEFAULT_CONFIG.stem)
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--runs-dir", default="runs", help="parent directory of the runs (default runs)")
    ap.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write the results as JSON")
    ap.add_argument("--force", action="store_true", help="overwrite an existing --json file")
    return ap.parse_args(argv)


def check(args: argparse.Namespace) -> list[int]:
    """Check the arguments and the config (with every seed) before anything runs; returns the seeds."""
    seeds = parse_seeds(args.seeds)
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    keys = [parse_override(o)[0] for o in args.overrides]
    for fixed, option in (("seed", "--seeds"), ("runs_dir", "--runs-dir")):
        if fixed in keys:
            raise ValueError(f"--set {fixed}=... is not allowed here: use {option}")
    for seed in seeds:
        load_config(args.config, [*args.overrides, f"seed={seed}", f"runs_dir={args.runs_dir}"])
    if args.json is not None:
        check_output(args.json, force=args.force, what="--json")
    return seeds


def run_seed(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """Train one seed in a child process; its final evaluation row, run directory and wall seconds."""
    cmd = [
        sys.executable,
        "-m",
        "zanzibar_env.train.ppo",
        *(["--config", args.config] if args.config else []),
    ]
    for o in [*args.overrides, f"seed={seed}", f"runs_dir={args.runs_dir}", "progress_bar=false"]:
        cmd += ["--set", o]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    lines = [x for x in proc.stdout.splitlines() if x.startswith("run directory: ")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"seed": seed, "error": f"exit {proc.returncode}: {tail}"}
    run_dir = Path(lines[-1].removeprefix("run directory: "))
    last = read_eval_csv(run_dir / EVAL_CSV)[-1]
    out: dict[str, Any] = {"seed": seed, "run_dir": str(run_dir), "wall_seconds": round(wall, 1)}
    out.update(
        {k: last[k] for k in ("timesteps", "train_seconds", *[c for c, _ in COLUMNS[:3]]) if k in last}
    )
    return out


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per column of :data:`COLUMNS` over the successful runs: the interquartile mean (``iqm``) with the
    bounds of its 95% bootstrap interval (``iqm_low``, ``iqm_high``; NaN for one seed), mean, min, max."""
    done = [r for r in rows if "error" not in r]
    out = {}
    for key, _ in COLUMNS:
        vals = [float(r[key]) for r in done if key in r]
        if vals:
            low, high = iqm_interval(vals)
            out[key] = {"iqm": iqm(vals), "iqm_low": low, "iqm_high": high}
            out[key].update(mean=statistics.fmean(vals), min=min(vals), max=max(vals))
    return out


def table(rows: list[dict[str, Any]], summary: dict[str, dict[str, float]]) -> str:
    """The summary as a Markdown table (regret in chips per round, times in seconds)."""
    n = sum("error" not in r for r in rows)
    lines = [f"| {n} seeds | IQM [95% CI] | mean | min | max |", "|---|---:|---:|---:|---:|"]
    for key, label in COLUMNS:
        if key in summary:
            s, fmt = summary[key], ".5f" if key.startswith("exploit") else ".0f"
            iqm_cell = f"{s['iqm']:{fmt}} [{s['iqm_low']:{fmt}}, {s['iqm_high']:{fmt}}]"
            cells = [iqm_cell, *(f"{s[k]:{fmt}}" for k in ("mean", "min", "max"))]
            lines.append(f"| {label} | {' | '.join(cells)} |")
    return "\n".join(lines)


def describe(row: dict[str, Any]) -> str:
    """One line for a finished run."""
    if "error" in row:
        return f"seed {row['seed']}: FAILED ({row['error']})"
    return (
        f"seed {row['seed']}: regret first {row.get('exploit_first', float('nan')):.5f} "
        f"second {row.get('exploit_second', float('nan')):.5f}, {row['train_seconds']:.0f} s "
        f"training, {row['wall_seconds']:.0f} s wall  ({row['run_dir']})"
    )


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    doc = {"runs": rows, "summary": summarise(rows)}
    atomic_write_text(path, json.dumps(doc, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    pin_cpu_kernels()  # torch's CPU kernels, as every command's (zanzibar_env.train.results.repro)
    args = parse_args(argv)
    try:
        preflight("seeds")
        seeds = check(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"training seeds {seeds}, {args.jobs} at a time", flush=True)
    rows: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_seed, args, s) for s in seeds]
        for future in as_completed(futures):  # report each run as it ends
            rows.append(future.result())
            print(describe(rows[-1]), flush=True)
            if args.json is not None:
                _write(args.json, rows)
    rows.sort(key=lambda r: seeds.index(r["seed"]))
    summary = summarise(rows)
    print(table(rows, summary))
    if args.json is not None:
        _write(args.json, rows)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(run_command(main, "seeds"))
