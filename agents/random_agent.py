"""The uniform random baseline (defined in :mod:`zanzibar_env.core.bots`, re-exported here)."""

from __future__ import annotations

from zanzibar_env.core.bots import RandomAgent

__all__ = ["RandomAgent"]
