"""Tournament speed: games per second of ``zanzibar_env.train.tournament``, game by game (the per-game
runner, ``lockstep=False``) and in lockstep (the default), in one run, with the CPU model.

Both play the very same games (the benchmark checks it); the figure is the tournament's own
``games_per_second`` (worker start-up included, agent loading not).

    .venv/bin/python -m benchmarks.tournament_speed [--games 2000] [--players 4] [--jobs 2]
        [--agents greedy,threshold,escape,random] [--before-games 400]
    .venv/bin/python -m benchmarks.tournament_speed --agents ppo:models/ppo_classic_2p.zip,optimal --players 2
"""

from __future__ import annotations

import argparse

from zanzibar_env.train.results import cpu_model
from zanzibar_env.train.tournament import run_tournament


def speed(agents: list[str], lockstep: bool, games: int, jobs: int, args: argparse.Namespace) -> tuple:
    res = run_tournament(
        agents,
        players=args.players,
        games=games,
        ruleset=args.ruleset,
        seed=args.seed,
        jobs=jobs,
        lockstep=lockstep,
        progress=False,
    )
    return res.games_per_second, res.games


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--games", type=int, default=2000, help="games of the lockstep runs")
    p.add_argument(
        "--before-games", type=int, default=None, help="games of the per-game runs (default: --games)"
    )
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--agents", default="greedy,threshold,escape,random")
    p.add_argument("--ruleset", default="classic")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", default="1,2", help="comma-separated job counts to measure")
    args = p.parse_args()
    agents = args.agents.split(",")
    before_games = args.before_games or args.games
    print(f"CPU: {cpu_model()}")
    print(f"agents {args.agents}, {args.players} players, ruleset {args.ruleset}, seed {args.seed}")
    for jobs in (int(j) for j in args.jobs.split(",")):
        old, old_games = speed(agents, False, before_games, jobs, args)
        new, new_games = speed(agents, True, args.games, jobs, args)
        same = new_games[: len(old_games)] == old_games[: len(new_games)]
        print(
            f"--jobs {jobs}: game by game {old:8.1f} games/s ({before_games} games), "
            f"lockstep {new:8.1f} games/s ({args.games} games): {new / old:5.1f}x; same games: {same}"
        )


if __name__ == "__main__":
    main()
