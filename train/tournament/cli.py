"""Tournaments in duplicate format: ``python -m train.tournament --agents random,greedy,escape --players 4``.

The command line of :mod:`zanzibar_env.train.tournament` (``zanzibar tournament`` runs the same): options
checked before the first game, the results table printed, the outputs written to ``--out``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from zanzibar_env.train.tournament.play import BACKENDS, plan_tournament, play_tournament
from zanzibar_env.train.tournament.report import check_out_dir, print_table, write_outputs
from zanzibar_env.core.registry import SPEC_HELP


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m train.tournament",
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--agents", required=True, help=f"comma-separated agents, at least 2; each {SPEC_HELP}")
    p.add_argument("--players", type=int, default=4, help="players per table, 2-8")
    p.add_argument("--games", type=int, default=1000, help="games to play (rounded up to whole deals)")
    p.add_argument("--ruleset", default="classic", help="ruleset name from configs/rules/ or a YAML path")
    p.add_argument("--seed", type=int, default=0, help="seed of the line-ups, the dice and the agents")
    p.add_argument(
        "--jobs", type=int, default=None, help="worker processes, default 1 (with --backend ray: CPUs of a "
        "local Ray, default all); results do not depend on it",
    )  # fmt: skip
    p.add_argument("--backend", choices=BACKENDS, default="local", help="local processes or Ray tasks")
    p.add_argument("--address", default=None, help="with --backend ray: the Ray cluster to join (ray start)")
    p.add_argument("--max-rounds", type=int, default=None, help="truncate each game after this many rounds")
    p.add_argument("--out", default=None, help="directory for games.csv, results.json, tournament.png")
    p.add_argument("--save-games", action="store_true", help="also write every GameRecord to games.jsonl")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--force", action="store_true", help="replace the outputs of an earlier tournament in --out"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit code (2 for bad agents or options)."""
    args = build_parser().parse_args(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    try:
        plan = plan_tournament(
            agents,
            players=args.players,
            games=args.games,
            ruleset=args.ruleset,
            seed=args.seed,
            jobs=args.jobs,
            max_rounds=args.max_rounds,
            keep_records=args.save_games,
            backend=args.backend,
            address=args.address,
        )
        if args.out:
            check_out_dir(args.out, args.force)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    result = play_tournament(plan, progress=not args.no_progress)
    print_table(result)
    if args.out:
        write_outputs(result, Path(args.out), args.save_games)
        print(
            f"wrote games.csv, results.json, run.json, tournament.png"
            f"{', games.jsonl' if args.save_games else ''} to {args.out}"
        )
    return 0
