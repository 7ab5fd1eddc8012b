"""How much can any player gain over ``optimal`` by exploiting the bots at a table? A study.

A trained model was measured against ``optimal`` at the table (model, ``optimal``, ``greedy``, ``escape``).
A learner sitting there could beat ``optimal`` in two ways: by exploiting the heuristic bots round by
round (``optimal`` assumes every seat plays ``optimal``), or by playing for the game (the stacks). This
probe measures the first exactly: :func:`zanzibar_env.agents.exact.table_best_response` is the exact round best
response to the actual bots clockwise after it, and the table prints, per position in the order of
play (0 = rolls first), its expected round result beside ``optimal``'s in the same seat (chips given
away minus chips received, stack caps ignored). With ``--games`` it then plays the duplicate
tournament (:mod:`zanzibar_env.train.tournament`) of the best response against the bots, and the same tournament
with ``optimal`` in its seat, and prints both win rates: what the round-level edge is worth in games.

Run: ``python -m experiments.table_probe [--others optimal,greedy,escape] [--games 40000] [--seed 1] [--jobs 2]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from zanzibar_env.agents.exact import table_best_response
from zanzibar_env.agents.exact.table import solve_table
from zanzibar_env.train.config import positive_int
from zanzibar_env.train.tournament import run_tournament


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m experiments.table_probe", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--others", default="optimal,greedy,escape", help="bots clockwise after the responder")
    p.add_argument("--ruleset", default="classic", help="a chip ruleset")
    p.add_argument(
        "--games", type=int, default=0, help="duplicate games per tournament (0: exact table only)"
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=positive_int, default=1)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    others = [s.strip() for s in args.others.split(",") if s.strip()]
    if not others:
        raise SystemExit("--others: give at least one bot")
    try:
        solved = solve_table(args.ruleset, others, reference="optimal")
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    n = len(others) + 1
    print(f"{args.ruleset}, {n} players: the responder, then clockwise {', '.join(others)}")
    print("position | best response | optimal | gain (chips/round)")
    for p in range(n):
        v, r = solved.value[p], solved.reference[p]
        print(f"{p:8d} | {v:+13.4f} | {r:+7.4f} | {v - r:+.4f}")
    print(f"mean over positions: gain {(solved.value - solved.reference).mean():+.4f}")
    if args.games <= 0:
        return 0
    for who in (table_best_response(others, args.ruleset), "optimal"):
        res = run_tournament(
            [who, *others], players=n, games=args.games, ruleset=args.ruleset, seed=args.seed,
            jobs=args.jobs, progress=False,
        )  # fmt: skip
        label = "the best response" if who != "optimal" else "optimal (named 'optimal'; the bot: 'optimal#2')"
        print(f"{label} in the seat, {args.games} duplicate games, seed {args.seed}, win rate (95% CI):")
        for a in sorted(res.summary, key=lambda a: -a.win_rate):
            print(f"  {a.name:16s} {a.win_rate:.4f} [{a.win_low:.4f}, {a.win_high:.4f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
