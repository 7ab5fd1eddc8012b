"""How far the 3-player game solver (:mod:`zanzibar_env.agents.exact.game3`) gets on one core.

``OMP_NUM_THREADS=1 python -m benchmarks.game_solver3_speed [--totals 3 4 5 6 7] [--budget 600]`` solves
``classic`` with 3 players for each chip total in turn (value iteration to 1e-12) and prints the number of
stack states, sweeps, seconds, seconds per state and sweep, and the win probabilities of the first,
second and third roller from equal (or nearly equal) stacks; it stops before a total whose predicted time
(states x sweeps of the last total x seconds per state-sweep) exceeds ``--budget`` seconds.
"""

from __future__ import annotations

import argparse
import time

from zanzibar_env.agents.exact.game3 import solve_game3
from zanzibar_env.core.rules import load_ruleset


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.game_solver3_speed", description=__doc__.splitlines()[0]
    )
    p.add_argument("--totals", type=int, nargs="+", default=[3, 4, 5, 6, 7, 8], help="chip totals to solve")
    p.add_argument("--budget", type=float, default=600.0, help="seconds allowed per solve")
    args = p.parse_args(argv)
    rules = load_ruleset("classic")
    print(f"{'total':>6}{'states':>8}{'sweeps':>8}{'seconds':>9}{'s/state-sweep':>15}  P(win) 1st/2nd/3rd")
    per, sweeps = 0.0, 0
    for total in args.totals:
        states = (total - 1) * (total - 2) // 2
        if per and states * sweeps * per > args.budget:
            print(
                f"{total:>6}{states:>8}  skipped: predicted {states * sweeps * per:.0f} s > {args.budget:g} s"
            )
            break
        t0 = time.perf_counter()
        game = solve_game3(rules, total)
        dt = time.perf_counter() - t0
        per, sweeps = dt / (states * game.sweeps), game.sweeps
        third = total // 3
        start = (total - 2 * third, third, third)
        row = [tuple(s) for s in game.states.tolist()].index(start)
        v = " / ".join(f"{x:.4f}" for x in game.value[row])
        print(f"{total:>6}{states:>8}{game.sweeps:>8}{dt:>9.1f}{per:>15.2f}  {v} from {start}", flush=True)


if __name__ == "__main__":
    main()
