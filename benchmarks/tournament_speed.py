"""Tournament speed: games per second of ``zanzibar_env.train.tournament`` with 1 and 2 jobs.

Reference measured in the same run: the same games played by a bare ``zanzibar_env.play_game`` loop
(no scheduling, reseeding, statistics or processes), so the ratio shows the tournament's overhead.

    .venv/bin/python -m benchmarks.tournament_speed [--games 800] [--agents random,greedy,threshold,escape]
"""

from __future__ import annotations

import argparse
import time

import zanzibar_env as zz
from zanzibar_env.agents import make_agent
from zanzibar_env.train.tournament import deal_plan, run_tournament


def bare_loop(agents: list[str], players: int, games: int, ruleset: str) -> float:
    """Games per second of a plain play_game loop over the same deals."""
    rules = zz.load_ruleset(ruleset)
    built = [make_agent(a, seed=0) for a in agents]
    deals = -(-games // players)
    t0 = time.perf_counter()
    for d in range(deals):
        lineup, dice_seed, _ = deal_plan(0, d, len(built), players)
        for r in range(players):
            seats = [built[lineup[(s + r) % players]] for s in range(players)]
            zz.play_game(rules, seats, num_players=players, seed=dice_seed)
    return deals * players / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=800)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--agents", default="random,greedy,threshold,escape")
    p.add_argument("--ruleset", default="classic")
    args = p.parse_args()
    agents = args.agents.split(",")
    ref = bare_loop(agents, args.players, args.games, args.ruleset)
    print(f"bare play_game loop: {ref:8.1f} games/s")
    for jobs in (1, 2):
        res = run_tournament(
            agents,
            players=args.players,
            games=args.games,
            ruleset=args.ruleset,
            seed=0,
            jobs=jobs,
            progress=False,
        )
        gps = res.games_per_second
        print(f"tournament, {jobs} job(s): {gps:8.1f} games/s  ({gps / ref:.2f}x the bare loop)")


if __name__ == "__main__":
    main()
