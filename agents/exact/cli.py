"""Solve rounds exactly from the command line: ``zanzibar solve`` (or ``python -m zanzibar_env.agents.exact``).

``zanzibar solve --ruleset classic --players 2 3 4`` solves the round of each table size by backward
induction (:mod:`zanzibar_env.agents.exact.round`), stores the tables in the cache the ``optimal`` bot reads
(``$ZANZIBAR_CACHE_DIR`` or ``~/.cache/zanzibar_env``), and prints each seat's expected round result
under optimal play (seat 0 rolls first; chips given away minus chips received, or minus lives lost).
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from zanzibar_env.agents.exact.cache import default_cache_dir, solved_tables
from zanzibar_env.agents.exact.round import seat_values, solve
from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, load_ruleset
from zanzibar_env.core.safe_io import check_writable_dir


def build_parser() -> argparse.ArgumentParser:
    """The ``solve`` options."""
    p = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.agents.exact"), description=__doc__.splitlines()[0]
    )
    p.add_argument("--ruleset", default="classic", help="ruleset name or YAML path (default: classic)")
    p.add_argument(
        "--players",
        type=int,
        nargs="+",
        default=[2],
        help=f"table sizes to solve, {MIN_PLAYERS}-{MAX_PLAYERS} (default: 2)",
    )
    p.add_argument("--cache-dir", type=Path, default=None, help=f"default: {default_cache_dir()}")
    p.add_argument("--no-cache", action="store_true", help="solve in memory only (read and write no file)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 on a bad ruleset or table size)."""
    args = build_parser().parse_args(argv)
    try:
        rules = load_ruleset(args.ruleset)
        bad = [n for n in args.players if not MIN_PLAYERS <= n <= MAX_PLAYERS]
        if bad:
            raise ValueError(f"--players must be {MIN_PLAYERS}-{MAX_PLAYERS}, got {bad}")
        if args.cache_dir is not None and not args.no_cache:  # a cache asked for must take the tables
            check_writable_dir(args.cache_dir, what="--cache-dir")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    unit = "chips given away minus received" if rules.stake == "chips" else "minus lives lost"
    print(f"Optimal play in ruleset {rules.name!r}: expected round result per seat ({unit})")
    for n in args.players:
        start = time.perf_counter()
        solved = solved_tables(rules, n, cache_dir=args.cache_dir, use_disk=not args.no_cache)
        levels = solved.levels
        if any(lv.dist is None for lv in levels[:n]):  # tables read from a cache keep no hand distributions
            levels = solve(solved.spec)
        values = seat_values(solved.spec, levels)
        cells = "  ".join(f"seat {s}: {v:+.6f}" for s, v in enumerate(values))
        print(f"{n} players ({time.perf_counter() - start:.3f} s): {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main, "solve"))
