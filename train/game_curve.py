"""The game-exploitability curves of full-game runs, side by side: ``python -m train.game_curve RUN_DIR ...
[--out docs/game_learning_curve.png] [--label NAME ...]``.

Reads each run's ``eval.csv`` (written with ``eval_game_exact: true``, :mod:`zanzibar_env.train.sb3.game_learn`) and
draws the exact game exploitability (win probability a best response gains, mean of the two seats)
against env steps on a log axis, with the same figure for the ``optimal`` bot (round-optimal play,
computed here exactly for the runs' ruleset and stacks) as a dashed line
(:func:`zanzibar_env.train.results.plots.plot_game_curves`); prints every row as a Markdown table (what
``docs/game_learning.md`` quotes).
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import sys
from pathlib import Path

from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.preflight import preflight
from zanzibar_env.core.safe_io import check_output
from zanzibar_env.train.config.training import TrainConfig, apply, read_yaml
from zanzibar_env.train.exact_eval import game_figures
from zanzibar_env.train.results import EVAL_CSV, pin_cpu_kernels, plot_game_curves, read_eval_csv


def load_run(run_dir: Path) -> tuple[TrainConfig, list[dict[str, float]]]:
    """A run's config and evaluation rows (``ValueError`` unless they hold game figures)."""
    cfg_path, csv_path = run_dir / "config.yaml", run_dir / EVAL_CSV
    if not cfg_path.is_file() or not csv_path.is_file():
        raise ValueError(f"{str(run_dir)!r} is not a run directory (expected config.yaml and eval.csv)")
    rows = read_eval_csv(csv_path)
    if not rows or "game_exploit_mean" not in rows[0]:
        raise ValueError(f"{csv_path}: no game exploitability (train with eval_game_exact: true)")
    return apply(TrainConfig(), read_yaml(cfg_path)), rows


def table(labels: list[str], runs: list[list[dict[str, float]]]) -> str:
    """Every evaluation row of every run as a Markdown table."""
    lines = [
        "| run | env steps | training s | game exploitability, first / second / mean |",
        "|---|---|---|---|",
    ]
    for label, rows in zip(labels, runs, strict=True):
        for r in rows:
            ex = " / ".join(f"{r['game_exploit_' + k]:.6f}" for k in ("first", "second", "mean"))
            lines.append(f"| {label} | {int(r['timesteps']):,} | {r['train_seconds']:.0f} | {ex} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    pin_cpu_kernels()  # torch's CPU kernels, as every command's (zanzibar_env.train.results.repro)
    ap = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.game_curve"), description=__doc__.splitlines()[0]
    )
    ap.add_argument("runs", nargs="+", type=Path, help="run directories of full-game runs")
    ap.add_argument("--label", action="append", default=[], help="legend label per run (default: its name)")
    ap.add_argument("--out", type=Path, default=Path("game_learning_curve.png"), help="PNG to write")
    ap.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    args = ap.parse_args(argv)
    try:
        preflight("game-curve", inputs=args.runs)
        if args.label and len(args.label) != len(args.runs):
            raise ValueError(f"give one --label per run ({len(args.runs)}), got {len(args.label)}")
        check_output(args.out, force=args.force, what="--out")
        loaded = [load_run(d) for d in args.runs]
        rulesets = {cfg.ruleset for cfg, _ in loaded}
        if len(rulesets) != 1:
            raise ValueError(f"the runs use different rulesets {sorted(rulesets)}; draw them separately")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    ruleset = rulesets.pop()
    labels = args.label or [d.name for d in args.runs]
    rows = [r for _, r in loaded]
    reference = game_figures("optimal", ruleset)["game_exploit_mean"]
    title = f"exact game exploitability during training ({ruleset}, 2 players)"
    plot_game_curves(labels, rows, reference, args.out, title)
    print(table(labels, rows))
    print(f"optimal (round play): {reference:.6f}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main, "game-curve"))
