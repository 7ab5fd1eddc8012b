"""The tabular game learner's configuration (``python -m train.jax_game``): a typed dataclass loaded from
YAML, with the YAML conventions, ``--set key=value`` and the errors of :mod:`zanzibar_env.train.config`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zanzibar_env.agents.game_table_agent import check_ruleset
from zanzibar_env.configs import CONFIG_DIR
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.train.config.checks import bad_value
from zanzibar_env.train.config.training import (
    config_field,
    layered_config,
    write_config,
)

DEFAULT_GAME_CONFIG = CONFIG_DIR / "jax_game_2p.yaml"
_BIG = 10**13


@dataclass
class JaxGameConfig:
    """Everything one run of the tabular game learner needs (saved as ``config.yaml`` in the run)."""

    # --- environment (zanzibar_env.jax: whole 2-player games, reward win, the learner in both seats)
    ruleset: str = config_field("classic", "ruleset name from configs/rules/ (or a path to a ruleset YAML)")
    num_envs: int = config_field(4096, "parallel games (vmapped)", lo=1, hi=1 << 22)
    chunk: int = config_field(
        64,
        "env steps per table between updates (one jitted call: a rollout, then its update)",
        lo=1,
        hi=1 << 20,
    )
    # --- learning
    total_timesteps: int = config_field(
        500_000_000, "decisions to learn from (both seats'; schedules run over this many)", lo=1, hi=_BIG
    )
    max_train_seconds: float = config_field(
        0.0, "stop once training (evaluations excluded) has run this long; 0 = no time limit", lo=0, hi=1e7
    )
    seed: int = config_field(0, "one seed for the envs and the exploration", lo=0, hi=2**31 - 1)
    eps_start: float = config_field(
        0.5, "exploration: share of random legal actions at the start", lo=0, hi=1
    )
    eps_end: float = config_field(0.02, "... at the end of eps_decay", lo=0, hi=1)
    eps_decay: float = config_field(0.5, "share of total_timesteps over which eps falls linearly", lo=0, hi=1)
    alpha_min: float = config_field(
        0.002, "step size floor: a row-action's step is max(1 / its visits, alpha_min)", lo=0, hi=1
    )
    u_alpha_min: float = config_field(
        0.01,
        "step size floor of the round-start values (visited by every round's first decision)",
        lo=0,
        hi=1,
    )
    kappa: float = config_field(
        100.0, "pseudo-visits of the stack-pooled estimate in each afterstate's (0: no pooling)", lo=0, hi=1e9
    )
    lam: float = config_field(
        1.0, "lambda of the return inside a round (1: the round's result; 0: one-step Q-learning)", lo=0, hi=1
    )
    # --- evaluation and bookkeeping
    eval_exact: bool = config_field(True, "exact game exploitability of the greedy policy at each evaluation")
    eval_every_s: float = config_field(
        60.0, "training seconds between evaluations (0 = only at the end)", lo=0, hi=1e7
    )
    exp_name: str = config_field("jax_game_2p", "experiment name used in the run directory", kind="name")
    runs_dir: str = config_field("runs", "parent directory of run directories")
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
        return f"Zanzibar-jax__{self.exp_name}__{self.seed}"

    @property
    def num_chunks(self) -> int:
        """Jitted calls that ``total_timesteps`` pays for (at least 1)."""
        return max(1, self.total_timesteps // (self.num_envs * self.chunk))


def check_game_config(cfg: JaxGameConfig) -> JaxGameConfig:
    """Checks across keys and of the ruleset (each key alone was checked by ``apply``)."""
    try:
        rules = load_ruleset(cfg.ruleset)
    except ValueError as e:
        raise ValueError(f"config key 'ruleset': {e}") from None
    try:
        check_ruleset(rules)
    except ValueError as e:
        raise bad_value("ruleset", cfg.ruleset, f"a ruleset the game table covers ({e})") from None
    if cfg.eps_end > cfg.eps_start:
        raise bad_value("eps_end", cfg.eps_end, f"at most eps_start = {cfg.eps_start}")
    return cfg


def load_game_config(
    path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()
) -> JaxGameConfig:
    """Defaults <- the YAML file (default ``configs/jax_game_2p.yaml``) <- ``key=value`` overrides."""
    return check_game_config(
        layered_config(JaxGameConfig(), path, overrides, "jax_game_", DEFAULT_GAME_CONFIG)
    )


def save_game_config(cfg: JaxGameConfig, path: str | Path) -> None:
    """Write the resolved config as YAML (loadable by :func:`load_game_config`), atomically."""
    write_config(cfg, path)
