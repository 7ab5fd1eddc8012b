"""Training in seconds: the JAX PPO over several seeds, with the exact regret of each trained policy.

``python -m benchmarks.jax_train [--seeds 5] [--config PATH] [--set key=value ...] [--no-self-play]``
trains seeds ``0 .. N-1`` of the config (default ``configs/jax_ppo_classic_2p.yaml``) one after the
other and prints one table: per seed the wall time of training (compilation included, and the first
update's share of it), the timesteps and the exact regret of the trained policy in each seat
(:func:`zanzibar_env.agents.exact.exploitability`, chips per round); below it the interquartile mean
over the seeds with its 95% bootstrap interval (:mod:`zanzibar_env.train.results.intervals`), how many seeds
meet the target (regret at most 0.003 in each seat, training at most 60 s), the CPU and JAX's device.
Then the same seeds again as pure self-play (``self_play_frac: 1``: no bot, no solver knowledge in
training), unless ``--no-self-play``. The runs land in ``runs/`` like any training run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from zanzibar_env.train.config import JaxPPOConfig, load_jax_config
from zanzibar_env.train.results import cpu_model, iqm, iqm_interval

TARGET_REGRET, TARGET_SECONDS = 0.003, 60.0
COLUMNS = ("train_seconds", "compile_seconds", "cpu_seconds", "regret_seat0", "regret_seat1", "regret_mean")


def run_seeds(cfg: JaxPPOConfig, seeds: list[int]) -> list[dict[str, Any]]:
    """One :func:`zanzibar_env.train.jax_ppo.run` per seed (exact evaluation on), in order."""
    import dataclasses

    from zanzibar_env.train.jax_ppo import run

    rows = []
    for seed in seeds:
        out = run(dataclasses.replace(cfg, seed=seed, eval_exact=True), log=None)
        print(
            f"  seed {seed}: {out['train_seconds']:.1f} s, regret {out['regret_seat0']:.5f} / {out['regret_seat1']:.5f}"
        )
        rows.append(out)
    return rows


def table(rows: list[dict[str, Any]], title: str) -> str:
    """The printed table: a row per seed, the IQM and its interval per column, the target line."""
    head = f"{'seed':>6} {'train s':>8} {'of it 1st':>9} {'cpu s':>7} {'steps':>10} "
    head += f"{'regret 1st':>11} {'regret 2nd':>11} {'mean':>9}"
    lines = [title, head]
    for r in rows:
        lines.append(
            f"{r['seed']:>6} {r['train_seconds']:>8.1f} {r['compile_seconds']:>9.1f} {r['cpu_seconds']:>7.1f} "
            f"{r['timesteps']:>10.0f} "
            f"{r['regret_seat0']:>11.5f} {r['regret_seat1']:>11.5f} {r['regret_mean']:>9.5f}"
        )
    stats = {c: (iqm([r[c] for r in rows]), iqm_interval([r[c] for r in rows])) for c in COLUMNS}
    lines.append(
        f"{'IQM':>6} {stats['train_seconds'][0]:>8.1f} {stats['compile_seconds'][0]:>9.1f} "
        f"{stats['cpu_seconds'][0]:>7.1f} {'':>10} "
        f"{stats['regret_seat0'][0]:>11.5f} {stats['regret_seat1'][0]:>11.5f} {stats['regret_mean'][0]:>9.5f}"
    )
    for c in ("regret_seat0", "regret_seat1", "regret_mean", "train_seconds"):
        lo, hi = stats[c][1]
        lines.append(f"    95% bootstrap interval of the IQM, {c}: [{lo:.5f}, {hi:.5f}]")
    met = sum(
        r["regret_seat0"] <= TARGET_REGRET
        and r["regret_seat1"] <= TARGET_REGRET
        and r["train_seconds"] <= TARGET_SECONDS
        for r in rows
    )
    lines.append(
        f"    seeds with regret <= {TARGET_REGRET} in each seat within {TARGET_SECONDS:.0f} s of training: "
        f"{met} of {len(rows)}"
    )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.jax_train", description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="train seeds 0 .. N-1 (default 5)")
    ap.add_argument(
        "--config", default=None, help="experiment YAML (default: configs/jax_ppo_classic_2p.yaml)"
    )
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override one config key (repeatable)")  # fmt: skip
    ap.add_argument("--no-self-play", action="store_true", help="skip the pure self-play runs")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.seeds < 1:
        print(f"error: --seeds must be at least 1, got {args.seeds}", file=sys.stderr)
        return 2
    try:
        cfg = load_jax_config(args.config, args.overrides)
        solo = load_jax_config(args.config, [*args.overrides, "self_play_frac=1.0"])
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import jax

    seeds = list(range(args.seeds))
    print(f"CPU: {cpu_model()}; JAX {jax.__version__} on {jax.devices()[0]}")
    rows = run_seeds(cfg, seeds)
    mix = f"{cfg.self_play_frac:.0%} self-play, {1 - cfg.self_play_frac:.0%} against {cfg.opponent!r}"
    print(
        table(
            rows,
            f"{cfg.exp_name}: {mix}, {cfg.num_updates * cfg.rollout} steps (exact regret, chips per round)",
        )
    )
    if not args.no_self_play and cfg.self_play_frac < 1:
        rows = run_seeds(solo, seeds)
        print(
            table(rows, f"{cfg.exp_name} as pure self-play (self_play_frac 1: no bot, no solver in training)")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
