"""Tournaments in duplicate format: ``python -m train.tournament --agents random,greedy,escape --players 4``.

The command line of :mod:`zanzibar_env.train.tournament` (``zanzibar tournament`` runs the same): options
checked before the first game, the results table printed, the outputs written to ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zanzibar_env.core.interrupts import deferred_interrupts, exit_code_of, stopped_by
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.preflight import preflight
from zanzibar_env.core.registry import spec_help
from zanzibar_env.core.safe_io import DirClaim
from zanzibar_env.train.results import pin_cpu_kernels
from zanzibar_env.train.tournament.failures import EXIT_AGENT_FAILED, AgentFailed
from zanzibar_env.train.tournament.play import (
    BACKENDS,
    TournamentInterrupted,
    TournamentResult,
    plan_tournament,
    play_tournament,
)
from zanzibar_env.train.tournament.report import check_out_dir, print_table, write_outputs

EPILOG = """\
exit codes:
  0    every game played; the outputs are in --out
  1    the games were played but --out could not be written (a full or read-only disk): one line
       naming the path; --out is left as it was
  2    bad options, agents, ruleset or --out (checked before the first game: nothing is played), or
       --out being written by another tournament at the same time
  3    an agent raised or answered something that is not a legal integer hold mask: one line naming
       the agent, the game, the deal and the seat, and what was kept: the deals finished before it are
       written to --out marked incomplete, as on Ctrl-C (none finished: --out is left as it was)
  130  Ctrl-C. If at least one deal was finished, --out gets the games played so far, marked
       incomplete ("complete": false in results.json and run.json; no tournament.png); if none was,
       --out is left as it was. A second Ctrl-C while writing stops at once and leaves --out as it was.
       Ctrl-C after the last game: every game is kept and written.
  143  SIGTERM (kill, a batch system's time limit): as Ctrl-C.

--out is written as one unit: the files are staged in a directory beside it and moved in together, so
earlier outputs are replaced only as a whole (and only with --force).
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.tournament"),
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    p.add_argument("--agents", required=True, help=f"comma-separated agents, at least 2; each {spec_help()}")
    p.add_argument("--players", type=int, default=4, help="players per table, 2-8")
    p.add_argument("--games", type=int, default=1000, help="games to play (rounded up to whole deals)")
    p.add_argument(
        "--ruleset",
        default="classic",
        help="ruleset name from configs/rules/ or the path of a ruleset YAML file",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the line-ups, the dice and the agents")
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="worker processes, default 1 (with --backend ray: CPUs of a "
        "local Ray, default all); results do not depend on it",
    )
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
    pin_cpu_kernels()  # torch's CPU kernels, as every command's (zanzibar_env.train.results.repro)
    args = build_parser().parse_args(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    try:  # extras (openskill: the ratings are computed after the last game), agents, --out: before any game
        preflight("tournament", extras=("tournament", "ray") if args.backend == "ray" else ("tournament",))
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
    try:
        with DirClaim(args.out) if args.out else contextlib.nullcontext():  # one run per --out at a time
            return _play_and_write(plan, args)
    except ValueError as e:  # the claim refused: another run writes --out
        print(f"error: {e}", file=sys.stderr)
        return 2


def _play_and_write(plan: Any, args: argparse.Namespace) -> int:
    """Play, then print and write with Ctrl-C / SIGTERM held: once the last game is played, the results
    are written whatever signal comes, and the exit code says it came."""
    try:
        result = play_tournament(plan, progress=not args.no_progress)
    except TournamentInterrupted as stop:
        return _interrupted(stop.partial, args, stop)
    except AgentFailed as e:
        print(f"error: {e}; {_keep(e.partial, args)}", file=sys.stderr)
        return EXIT_AGENT_FAILED
    with deferred_interrupts() as held:
        print_table(result)
        code = _write(result, args)
    if held.caught is not None:
        where = f", written to {args.out}" if args.out and code == 0 else ""
        print(
            f"interrupted: after the last game, all {len(result.games)} games kept{where} "
            f"(stopped by {stopped_by(held.caught)})",
            file=sys.stderr,
        )
        return exit_code_of(held.caught)
    return code


def _write(result: TournamentResult, args: argparse.Namespace) -> int:
    """Write the outputs to ``--out`` (if given); exit 0, or 1 with one line on a disk error."""
    if not args.out:
        return 0
    try:
        check_out_dir(args.out, args.force)  # again: nothing may have appeared there since the start
        names = write_outputs(result, Path(args.out), args.save_games)
    except ValueError as e:
        print(f"error: {e} (the games were played; {args.out!r} is as it was)", file=sys.stderr)
        return 1
    print(f"wrote {', '.join(names)} to {args.out}")
    return 0


def _keep(partial: TournamentResult | None, args: argparse.Namespace) -> str:
    """Write the deals finished before an agent failed to ``--out`` (marked incomplete); what was kept."""
    if partial is None:
        return "no deal finished before it" + (f", {args.out!r} left as it was" if args.out else "")
    played = f"{len(partial.games)} of {partial.config['games']} games played before it"
    if not args.out:
        return f"{played}, not saved (no --out)"
    with deferred_interrupts():
        try:
            write_outputs(partial, Path(args.out), args.save_games)
        except ValueError as e:
            return f"{played} could not be saved: {e}"
    return f"{played}, written to {args.out} marked incomplete"


def _interrupted(partial: TournamentResult | None, args: argparse.Namespace, stop: BaseException) -> int:
    """Ctrl-C or SIGTERM: keep the deals finished so far (marked incomplete) in ``--out``; exit 130 or
    143, one line saying what was kept."""
    how, code = stopped_by(stop), exit_code_of(stop)
    if partial is None or not args.out:
        kept = f"; {args.out!r} left as it was" if args.out else ""
        done = "no deal finished" if partial is None else f"{len(partial.games)} games played, not saved"
        print(f"interrupted: {done}{kept} (stopped by {how})", file=sys.stderr)
        return code
    with deferred_interrupts():
        try:
            write_outputs(partial, Path(args.out), args.save_games)
        except ValueError as e:
            print(f"interrupted ({how}): the games played could not be saved: {e}", file=sys.stderr)
            return code
    games = partial.config["games"]
    print(
        f"interrupted: {len(partial.games)} of {games} games played, written to {args.out} "
        f"marked incomplete (stopped by {how})",
        file=sys.stderr,
    )
    return code
