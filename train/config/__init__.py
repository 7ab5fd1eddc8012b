"""Configuration of every training command: typed dataclasses loaded from YAML, checked before a run starts.

- :mod:`~zanzibar_env.train.config.training`: :class:`TrainConfig` (``python -m train.ppo``), YAML loading,
  ``--set key=value`` overrides and the ``--help`` text of each key;
- :mod:`~zanzibar_env.train.config.checks`: the checks across keys and of the names and files a config refers to;
- :mod:`~zanzibar_env.train.config.resources`: what a run will ask of the machine, estimated before it starts;
- :mod:`~zanzibar_env.train.config.sweep`: :class:`SweepConfig` (``python -m train.sweep``);
- :mod:`~zanzibar_env.train.config.jax`: :class:`JaxPPOConfig` (``python -m train.jax_ppo``);
- :mod:`~zanzibar_env.train.config.jax_game`: :class:`JaxGameConfig` (``python -m train.jax_game``).
"""

from __future__ import annotations

from zanzibar_env.train.config.checks import check_config, seat_split, table_opponents
from zanzibar_env.train.config.jax import JaxPPOConfig, load_jax_config, save_jax_config
from zanzibar_env.train.config.jax_game import JaxGameConfig, load_game_config, save_game_config
from zanzibar_env.train.config.resources import int_at_least, positive_int
from zanzibar_env.train.config.sweep import SweepConfig, load_sweep
from zanzibar_env.train.config.training import (
    TrainConfig,
    apply,
    describe_fields,
    load_config,
    parse_override,
    save_config,
)

__all__ = [
    "JaxGameConfig",
    "JaxPPOConfig",
    "SweepConfig",
    "TrainConfig",
    "apply",
    "check_config",
    "describe_fields",
    "int_at_least",
    "load_config",
    "load_game_config",
    "load_jax_config",
    "load_sweep",
    "parse_override",
    "positive_int",
    "save_config",
    "save_game_config",
    "save_jax_config",
    "seat_split",
    "table_opponents",
]
