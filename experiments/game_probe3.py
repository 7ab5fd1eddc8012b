"""What can game play gain against round-optimal players? Exact figures for 3 players.

For each chip total, :func:`experiments.game_response3.respond3` solves the game of a responder playing for
the game against two ``optimal`` (round-play) seats, and the same seat played by ``optimal``; the table
prints, at equal stacks, each one's win probability by position in the first round's order of play (0
rolls first), the gain, and the largest gain over all stack states. Run: ``python -m experiments.game_probe3
[--totals 3 6 9] [--ruleset classic]`` (``OMP_NUM_THREADS=1``: one core; 6 chips took 84 s here, 9 chips
316 s, 12 chips 623 s).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from experiments.game_response3 import respond3
from zanzibar_env.core.rules import load_ruleset


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m experiments.game_probe3", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--totals", type=int, nargs="+", default=[3, 6], help="chip totals (3 players)")
    p.add_argument("--ruleset", default="classic", help="a chip ruleset paying by the highest hand")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        rules = load_ruleset(args.ruleset)
        results = []
        for total in args.totals:
            t = time.perf_counter()
            ref = respond3(rules, total, respond=False)
            br = respond3(rules, total, respond=True)
            results.append((total, ref, br, time.perf_counter() - t))
    except (ValueError, RuntimeError) as e:
        raise SystemExit(f"error: {e}") from None
    print(f"{args.ruleset}, 3 players: a responder playing for the game against two `optimal` seats")
    print("stacks | optimal in the seat, by position | the responder | gain | mean gain | largest gain | s")
    for total, ref, br, sec in results:
        gain = br.value - ref.value
        equal = [i for i, s in enumerate(ref.game.states.tolist()) if len(set(s)) == 1]
        worst = int(np.argmax(gain.max(1)))
        where = "-".join(str(v) for v in ref.game.states[worst])
        label = "-".join(str(v) for v in ref.game.states[equal[0]]) if equal else f"total {total}"
        row = equal[0] if equal else worst
        fmt = " / ".join
        opt, resp = fmt(f"{v:.4f}" for v in ref.value[row]), fmt(f"{v:.4f}" for v in br.value[row])
        print(
            f"{label} | {opt} | {resp} | {fmt(f'{v:+.4f}' for v in gain[row])} | {gain[row].mean():+.4f} | "
            f"{gain.max():+.4f} (at {where}) | {sec:.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
