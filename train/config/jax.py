"""The JAX PPO's configuration: a typed dataclass loaded from YAML, checked like the SB3 training's.

The keys that mean the same as in :class:`zanzibar_env.train.config.training.TrainConfig` carry the same names
(``learning_rate``, ``n_steps``, ``batch_size``, ``n_epochs``, ``gae_lambda``, ...); the keys, the YAML
conventions (``defaults:``, ``!!float``), ``--set key=value`` and the errors are those of
:mod:`zanzibar_env.train.config.training` (:func:`~zanzibar_env.train.config.training.apply` checks each
value against the limits declared with its field). :func:`check_jax_config` adds the checks across keys.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zanzibar_env.configs import CONFIG_DIR
from zanzibar_env.core.registry import agents_with
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.train.config.checks import bad_value
from zanzibar_env.train.config.resources import check_memory
from zanzibar_env.train.config.training import (
    config_field,
    config_meta,
    layered_config,
    write_config,
)

DEFAULT_JAX_CONFIG = CONFIG_DIR / "jax_ppo_classic_2p.yaml"
#: Opponents the JAX env plays inside ``step`` (the learner's seat: the config key ``seat``): every
#: registered bot that has a policy table.
JAX_OPPONENTS = tuple(agents_with("policy_table"))
_BIG = 10**12


@dataclass
class JaxPPOConfig:
    """Everything one JAX PPO run needs; the resolved copy is saved as ``config.yaml`` in the run directory."""

    # --- environment (zanzibar_env.jax, one round per episode)
    ruleset: str = config_field("classic", "ruleset name from configs/rules/ (or a path to a ruleset YAML)")
    num_players: int = config_field(2, "players at the table (2: what exact evaluation covers)", lo=2, hi=2)
    opponent: str = config_field(
        "optimal", "the bot in the envs that are not self-play (played inside the env)", choices=JAX_OPPONENTS
    )
    seat: str | int = config_field(
        "random",
        "the learner's seat in the envs against the bot: an integer, 'random' (drawn per episode) or "
        "'split' (fixed per env: first_frac of them roll first, the rest second)",
        choices=("random", "split"),
        lo=0,
        kind="int",
    )
    first_frac: float = config_field(
        0.5, "with seat 'split': share of the envs against the bot where the learner rolls first", lo=0, hi=1
    )
    self_play_frac: float = config_field(
        0.5, "share of envs where the learner plays every seat (its own opponent)", lo=0, hi=1
    )
    num_envs: int = config_field(1024, "parallel envs (vmapped)", lo=2, hi=1 << 20)
    # --- PPO
    total_timesteps: int = config_field(
        4_000_000, "learner decisions to train for (both seats' in self-play envs)", lo=1, hi=_BIG
    )
    seed: int = config_field(0, "one seed for the network, the envs and the sampling", lo=0, hi=2**31 - 1)
    learning_rate: float = config_field(3e-3, "Adam step size", lo=0, hi=10)
    lr_schedule: str = config_field(
        "linear", "learning-rate schedule: 'constant' or 'linear' decay to 0", choices=("constant", "linear")
    )
    n_steps: int = config_field(
        16, "steps per env per rollout (rollout = n_steps * num_envs)", lo=1, hi=1 << 16
    )
    batch_size: int = config_field(4096, "minibatch size of each gradient step", lo=2, hi=1 << 24)
    n_epochs: int = config_field(4, "passes over each rollout", lo=1, hi=1000)
    gamma: float = config_field(1.0, "discount factor", lo=0, hi=1)
    gae_lambda: float = config_field(0.8, "GAE lambda", lo=0, hi=1)
    clip_range: float = config_field(0.2, "PPO clipping parameter", lo=0, hi=10)
    adv_norm: str = config_field(
        "seat",
        "advantage normalisation per minibatch: 'seat' (within each seat's rows), 'batch' or 'none'",
        choices=("seat", "batch", "none"),
    )
    ent_coef: float = config_field(
        0.02, "entropy bonus coefficient (the start value if scheduled)", lo=0, hi=10
    )
    ent_schedule: str = config_field(
        "constant", "entropy schedule: 'constant' or 'linear' decay to 0", choices=("constant", "linear")
    )
    vf_coef: float = config_field(0.5, "value-loss coefficient", lo=0, hi=100)
    max_grad_norm: float = config_field(0.5, "gradient-norm clip (policy and value together)", lo=0, hi=1e6)
    net_arch: list[int] = field(
        default_factory=lambda: [64, 64],
        metadata=config_meta(
            "hidden layer sizes of the policy and value MLPs", lo=1, hi=1 << 16, kind="int_list"
        ),
    )
    activation: str = config_field("tanh", "hidden activation: 'tanh' or 'relu'", choices=("tanh", "relu"))
    features: str = config_field(
        "onehot",
        "policy input: 'raw' observation or 'onehot' (plus one-hot dice/ranks)",
        choices=("onehot", "raw"),
    )
    # --- evaluation and bookkeeping
    eval_exact: bool = config_field(True, "exact regret per seat of the greedy policy at each evaluation")
    eval_freq: int = config_field(0, "steps between evaluations (0 = only at the end)", lo=0, hi=_BIG)
    exp_name: str = config_field(
        "jax_ppo_classic_2p", "experiment name used in the run directory (letters, digits, ._-)", kind="name"
    )
    runs_dir: str = config_field("runs", "parent directory of run directories")
    max_memory_gb: float | None = config_field(
        None,
        "memory a run may plan to use, GiB (rollouts, networks, minibatch; train/config/resources.py); "
        "null = half of the machine's memory",
        lo=0.001,
        hi=1e6,
        kind="float",
        optional=True,
    )
    compile_cache: str | None = config_field(
        "~/.cache/zanzibar_env/jax",
        "JAX's persistent compilation cache (later runs of the same shapes skip compiling); null = off",
        kind="str",
        optional=True,
    )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def run_name_prefix(self) -> str:
        return f"ZanzibarRound-jax__{self.exp_name}__{self.seed}"

    @property
    def rollout(self) -> int:
        """Learner decisions per update."""
        return self.num_envs * self.n_steps

    @property
    def num_updates(self) -> int:
        """Rollouts (each followed by ``n_epochs`` passes) that ``total_timesteps`` pays for (at least 1)."""
        return max(1, self.total_timesteps // self.rollout)


def check_jax_config(cfg: JaxPPOConfig) -> JaxPPOConfig:
    """Checks across keys, and the ruleset (each key alone was checked by ``apply``)."""
    try:
        rules = load_ruleset(cfg.ruleset)
    except ValueError as e:
        raise ValueError(f"config key 'ruleset': {e}") from None
    if cfg.self_play_frac > 0 and rules.stake != "chips":
        raise bad_value(
            "self_play_frac",
            cfg.self_play_frac,
            f"0 in a {rules.stake!r} ruleset (self-play assumes a zero-sum round)",
        )
    if isinstance(cfg.seat, int) and cfg.seat >= cfg.num_players:
        raise bad_value("seat", cfg.seat, f"'random' or a seat 0-{cfg.num_players - 1}")
    if cfg.first_frac != JaxPPOConfig.first_frac and cfg.seat != "split":
        raise bad_value(
            "first_frac", cfg.first_frac, f"the default {JaxPPOConfig.first_frac} unless seat is 'split'"
        )
    if cfg.batch_size > cfg.rollout:
        raise bad_value("batch_size", cfg.batch_size, f"at most n_steps * num_envs = {cfg.rollout}")
    if cfg.rollout % cfg.batch_size:
        raise bad_value("batch_size", cfg.batch_size, f"a divisor of n_steps * num_envs = {cfg.rollout}")
    check_memory(cfg, jax=True)  # before compiling: networks, rollouts and batch against the machine
    return cfg


def load_jax_config(
    path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()
) -> JaxPPOConfig:
    """Defaults <- the YAML file (default ``configs/jax_ppo_classic_2p.yaml``) <- ``key=value`` overrides."""
    return check_jax_config(layered_config(JaxPPOConfig(), path, overrides, "jax_ppo_", DEFAULT_JAX_CONFIG))


def save_jax_config(cfg: JaxPPOConfig, path: str | Path) -> None:
    """Write the resolved config as YAML (loadable by :func:`load_jax_config`), atomically."""
    write_config(cfg, path)
