"""How long a ``Zanzibar-v1`` episode is with the defaults: ``python -m benchmarks.episode_length``.

Plays ``--episodes`` games of ``gym.make("Zanzibar-v1")`` (classic, 2 players, the ``random`` bot in the
other seat) with a uniformly random legal policy, episode ``i`` from seed ``i``, and prints the mean,
median and range of the steps per episode and of the return (chips given away minus received).
"""

from __future__ import annotations

import argparse
import sys

import gymnasium as gym
import numpy as np

import zanzibar_env  # noqa: F401  (registers the envs)


def lengths(episodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Steps and returns of ``episodes`` random-play episodes of the default ``Zanzibar-v1``."""
    env = gym.make("Zanzibar-v1")
    steps, returns = [], []
    for seed in range(episodes):
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        done, n, total = False, 0, 0.0
        while not done:
            _, reward, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(info["action_mask"])))
            )
            done, n, total = terminated or truncated, n + 1, total + float(reward)
        steps.append(n)
        returns.append(total)
    return np.asarray(steps), np.asarray(returns)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.episode_length", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--episodes", type=int, default=200, help="episodes to play (default 200)")
    args = ap.parse_args(argv)
    steps, returns = lengths(args.episodes)
    print(
        f"{args.episodes} episodes: steps mean {steps.mean():.1f}, median {np.median(steps):.0f}, "
        f"min {steps.min()}, max {steps.max()}; return mean {returns.mean():+.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
