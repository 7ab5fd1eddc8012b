"""The SB3 vector adapter, now public as :mod:`zanzibar_env.envs.sb3` (re-exported here for old imports)."""

from __future__ import annotations

from zanzibar_env.envs.sb3 import SB3VecEnv, make_sb3_env

__all__ = ["SB3VecEnv", "make_sb3_env"]
