"""Self-play PPO on the PettingZoo env with RLlib: ``python -m train.rllib [--config P] [--set k=v]``.

Runs in the RLlib venv (``make setup-rllib``; ``.venv-rllib/bin/python -m train.rllib``): RLlib
pins gymnasium 1.2.2, the project's lock 1.4.0 (``requirements-rllib.lock`` says why). RLlib's new API
stack: the AEC env ``zanzibar_v1`` (:mod:`zanzibar_env.envs.multiagent`) through RLlib's
``PettingZooEnv``, every seat mapped to one shared module (self-play with shared parameters), the
module :class:`zanzibar_env.train.rllib.module.MaskedPPOModule` (illegal holds masked in every forward pass).
``--address`` joins a Ray cluster (env runners spread over it); without it a local Ray starts.

Each run writes ``runs/<env-id>__<exp-name>__<seed>__<unix-time>/``: ``config.yaml`` (resolved),
``train.csv`` (one row per iteration), ``checkpoint/`` (RLlib's, to continue in RLlib), and the shared
policy exported as plain arrays, ``policy.npz`` + ``policy.json``, checked against the RLlib module on
sampled observations; ``rllib:RUN_DIR`` plays it anywhere (:mod:`zanzibar_env.agents.rllib_agent`). In 2-player
rulesets the run ends with the policy's exact exploitability (``exact.json``).
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import csv
import dataclasses
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from zanzibar_env.configs import CONFIG_DIR, resolve_config
from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.preflight import preflight
from zanzibar_env.core.safe_io import atomic_write_text
from zanzibar_env.core.safe_load import read_yaml
from zanzibar_env.extras import requires_extra
from zanzibar_env.train.config import parse_override, positive_int
from zanzibar_env.train.config.options import add_config_options
from zanzibar_env.train.results import make_run_dir

DEFAULT_CONFIG = CONFIG_DIR / "rllib_ppo_2p.yaml"


@dataclass
class RLlibConfig:
    """Keys of ``configs/rllib_*.yaml`` (each also settable with ``--set key=value``)."""

    exp_name: str = "rllib_ppo_2p"  #: the run's name (in its directory name)
    ruleset: str = "classic"  #: ruleset name or YAML path
    num_players: int = 2  #: seats, each played by the shared policy
    episode: str = "round"  #: "round" (one round per episode) or "game"
    reward: str = "chips"  #: "chips" or "win"
    obs_type: str = "onehot"  #: the env's observation entry: "flat" or "onehot"
    iterations: int = 40  #: RLlib training iterations
    seed: int = 0  #: seeds RLlib (env runners, module init)
    num_env_runners: int = 1  #: RLlib env runner actors (0: sample in the driver)
    num_envs_per_env_runner: int = 16  #: envs per env runner
    train_batch_size: int = 2000  #: env steps per iteration
    minibatch_size: int = 250  #: SGD minibatch
    num_epochs: int = 4  #: SGD passes per iteration
    lr: float = 6e-4  #: Adam learning rate
    gamma: float = 1.0  #: discount
    lambda_: float = 0.95  #: GAE lambda
    entropy_coeff: float = 0.01  #: entropy bonus
    net_arch: list[int] = field(default_factory=lambda: [64, 64])  #: hidden layers (actor and critic)
    activation: str = "tanh"  #: "tanh" or "relu"
    runs_dir: str = "runs"  #: where run directories are made
    exact_eval: bool = True  #: exact exploitability at the end (2-player only)


def load(path: str | Path | None, overrides: list[str]) -> RLlibConfig:
    """The config at ``path`` (default ``configs/rllib_ppo_2p.yaml``) with ``--set`` overrides."""
    values = read_yaml(resolve_config(path, "rllib_") if path else DEFAULT_CONFIG, "config file") or {}
    if not isinstance(values, dict):
        raise ValueError(f"config file {str(path)[:200]!r} must hold a mapping of keys to values")
    values.update(dict(parse_override(o) for o in overrides))
    known = {f.name for f in dataclasses.fields(RLlibConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown config keys {unknown}; known: {sorted(known)}")
    cfg = RLlibConfig(**values)
    if cfg.obs_type not in ("flat", "onehot") or cfg.activation not in ("tanh", "relu"):
        raise ValueError("obs_type must be flat or onehot, activation tanh or relu")
    return cfg


def make_env(cfg: RLlibConfig) -> Any:
    """The PettingZoo AEC env of ``cfg`` wrapped as an RLlib multi-agent env."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from zanzibar_env.envs.multiagent import env

    return PettingZooEnv(
        env(
            ruleset=cfg.ruleset,
            num_players=cfg.num_players,
            reward=cfg.reward,
            episode=cfg.episode,
            obs_type=cfg.obs_type,
        )
    )


def algo_config(cfg: RLlibConfig) -> Any:
    """RLlib's ``PPOConfig`` for ``cfg``: one shared masked module for every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from zanzibar_env.train.rllib.module import MaskedPPOModule

    register_env("zanzibar_v1", lambda _: make_env(cfg))
    model = {"fcnet_hiddens": list(cfg.net_arch), "fcnet_activation": cfg.activation}
    spec = RLModuleSpec(module_class=MaskedPPOModule, model_config=model)
    return (
        PPOConfig()
        # RLlib's env check steps with unmasked random actions, which the env refuses (ValueError) under a
        # ruleset that forbids holds; the policy itself only ever sends legal actions (the mask)
        .environment("zanzibar_v1", disable_env_checking=True)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **k: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": spec}))
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            sample_timeout_s=600,  # RLlib's 60 s returns empty samples on a busy 2-core machine
        )
        .training(
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            entropy_coeff=cfg.entropy_coeff,
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
        )
        .debugging(seed=cfg.seed)
    )


def export_policy(module: Any, cfg: RLlibConfig, run_dir: Path) -> float:
    """Write ``policy.npz``/``policy.json``; returns the largest logit gap to the module on sampled obs."""
    import torch
    from ray.rllib.core.columns import Columns

    from zanzibar_env.agents.rllib_agent import RLlibAgent
    from zanzibar_env.train.rllib.module import actor_layers

    layers = actor_layers(module)
    arrays: dict[str, Any] = {}
    for i, lin in enumerate(layers):
        arrays[f"W{i}"] = lin.weight.detach().numpy().astype(np.float32)
        arrays[f"b{i}"] = lin.bias.detach().numpy().astype(np.float32)
    np.savez(run_dir / "policy.npz", **arrays)
    meta = {"layers": len(layers), "activation": cfg.activation, "obs_type": cfg.obs_type}
    meta |= {
        "ruleset": cfg.ruleset,
        "num_players": cfg.num_players,
        "source": "ray.rllib PPO, module 'shared'",
    }
    atomic_write_text(run_dir / "policy.json", json.dumps(meta, indent=1))
    space = module.observation_space["observation"]
    space.seed(cfg.seed)
    obs = np.stack([space.sample() for _ in range(256)]).astype(np.float32)
    with torch.no_grad():
        want = module.forward_inference({Columns.OBS: torch.from_numpy(obs)})[Columns.ACTION_DIST_INPUTS]
    got = RLlibAgent(run_dir).logits(obs)
    return float(np.abs(got - want.numpy()).max())


def _log_row(path: Path, it: int, result: dict[str, Any], seconds: float) -> None:
    runners = result.get("env_runners", {})
    row = {
        "iteration": it,
        "env_steps": runners.get("num_env_steps_sampled_lifetime", 0),
        "episodes": runners.get("num_episodes_lifetime", 0),
        "episode_return_mean": runners.get("episode_return_mean", float("nan")),
        "seconds": round(seconds, 2),
    }
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


def new_run_dir(cfg: RLlibConfig) -> Path:
    """``<runs_dir>/zanzibar_v1__<exp_name>__<seed>__<unix-time>/`` with the resolved config."""
    run_dir = make_run_dir(cfg.runs_dir, f"zanzibar_v1__{cfg.exp_name}__{cfg.seed}")
    atomic_write_text(run_dir / "config.yaml", yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
    return run_dir


def train(
    cfg: RLlibConfig, run_dir: Path, address: str | None = None, cpus: int | None = None
) -> dict[str, Any]:
    """Train, checkpoint, export and (2-player) evaluate exactly; returns the summary.

    ``address``: the Ray cluster to join; without it a new local Ray with ``cpus`` CPUs (default all).
    """
    with requires_extra("rllib", "RLlib training"):
        import ray

    if address:
        ray.init(address=address, include_dashboard=False)
    else:  # "local": a Ray of our own, even if another runs on this machine
        ray.init(address="local", num_cpus=cpus, include_dashboard=False)
    try:
        algo = algo_config(cfg).build_algo()
        t0 = time.perf_counter()
        for it in range(1, cfg.iterations + 1):
            result = algo.train()
            _log_row(run_dir / "train.csv", it, result, time.perf_counter() - t0)
        algo.save_to_path(str((run_dir / "checkpoint").resolve()))
        gap = export_policy(algo.get_module("shared"), cfg, run_dir)
        algo.stop()
    finally:
        ray.shutdown()
    if gap > 1e-3:
        raise RuntimeError(f"the exported policy differs from the RLlib module (logit gap {gap:.2g})")
    summary: dict[str, Any] = {"run_dir": str(run_dir), "export_logit_gap": gap}
    if cfg.exact_eval and cfg.num_players == 2:
        from zanzibar_env.train.exact_eval import evaluate

        fig = evaluate(f"rllib:{run_dir}", cfg.ruleset)
        atomic_write_text(run_dir / "exact.json", json.dumps(fig, indent=2))
        summary["exploitability"] = fig["average"]
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.rllib"), description=__doc__.splitlines()[0]
    )
    add_config_options(p, "rllib_", DEFAULT_CONFIG.stem)
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--address", default=None, help="Ray cluster to join (default: start a local Ray)")
    p.add_argument(
        "--cpus", type=positive_int, default=None, help="CPUs of the local Ray, >= 1 (default: all)"
    )
    args = p.parse_args(argv)
    try:
        preflight("rllib")
        cfg = load(args.config, args.overrides)
    except (ValueError, OSError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    run_dir = new_run_dir(cfg)
    print(f"RLlib PPO self-play on zanzibar_v1 ({cfg.ruleset}, {cfg.num_players} players): {run_dir}")
    summary = train(cfg, run_dir, args.address, args.cpus)
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main, "rllib"))
