"""The JAX PPO's library (``python -m train.jax_ppo`` is the command; its loop is on that page).

- :mod:`~zanzibar_env.train.jax_training.envs`: groups of ``vmap``-ed :mod:`zanzibar_env.jax` tables with
  automatic reset.
"""

from __future__ import annotations

from zanzibar_env.train.jax_training.envs import EnvGroup, make_groups

__all__ = ["EnvGroup", "make_groups"]
