"""Reward noise: a 2-player round's sampled result against its expectation given the player's own hand.

Plays ``--rounds`` rounds per seat of each ``--agents`` entry against ``optimal`` in the batched vector
env (``skip_no_decision``: rounds without a decision are replayed) and prints, per seat, the mean and
standard deviation of the sampled round result (the env's ``"chips"`` reward) and of the expected
result given the player's final hand that ``expected_reward: true`` pays instead
(:mod:`zanzibar_env.train.sb3.expected_reward`, tables from
:func:`zanzibar_env.agents.exact.turn_end_values`), and the mean
difference with its 95% interval (0 when the tables are the expectation). The variance ratio is how
many times fewer samples the same precision needs.

Run: ``python -m benchmarks.reward_noise [--agents optimal,random,ppo:models/ppo_classic_2p.zip]
[--rounds 200000] [--ruleset classic] [--seed 0]``
"""

from __future__ import annotations

import argparse

import numpy as np

from zanzibar_env.agents.exact import turn_end_values
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.registry import make_agent, spec_help
from zanzibar_env.envs.vector import ZanzibarVectorEnv

NUM_ENVS = 1024


def rounds(agent_name: str, seat: int, n: int, ruleset: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(sampled, expected)`` results of ``n`` rounds of ``agent_name`` in ``seat`` against ``optimal``."""
    env = ZanzibarVectorEnv(
        NUM_ENVS, ruleset=ruleset, opponents=make_agent("optimal"), seat=seat, episode="round",
        seed=seed, skip_no_decision=True,
    )  # fmt: skip
    agent, tables = make_agent(agent_name, seed=seed), turn_end_values(ruleset)
    env.reset(seed=seed)
    sampled: list[np.ndarray] = []
    expected: list[np.ndarray] = []
    got = 0
    while got < n:
        batch: ViewBatch = env.view_batch(np.arange(NUM_ENVS))
        _, rew, term, _, info = env.step(np.asarray(agent.act_batch(batch)))
        e = np.flatnonzero(term)
        fi = info.get("final_info")
        if fi is None or not e.size:
            continue
        sampled.append(rew[e])
        expected.append(tables.expected(fi["hand_ranks"][e], fi["first_roller"][e], fi["roll_limit"][e]))
        got += e.size
    return np.concatenate(sampled)[:n], np.concatenate(expected)[:n]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agents", default="optimal,random", help=f"comma-separated agents; each {spec_help()}")
    p.add_argument("--rounds", type=int, default=200_000, help="rounds per agent and seat")
    p.add_argument("--ruleset", default="classic")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    print(f"{args.rounds} rounds per agent and seat against optimal, {args.ruleset}, seed {args.seed}")
    head = f"{'agent':<34} {'seat':>6} {'mean':>8} {'sd sampled':>11} {'sd expected':>12} {'var ratio':>10}"
    print(head + f" {'mean diff (95%)':>22}")
    for name in args.agents.split(","):
        for seat in (0, 1):
            s, x = rounds(name, seat, args.rounds, args.ruleset, args.seed)
            d = s - x
            ci = 1.96 * d.std() / np.sqrt(d.size)
            ratio = s.var() / max(x.var(), 1e-12)
            label = "first" if seat == 0 else "second"
            print(
                f"{name:<34} {label:>6} {s.mean():>8.4f} {s.std():>11.4f} {x.std():>12.4f} {ratio:>10.2f}"
                f" {d.mean():>+11.4f} ± {ci:.4f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
