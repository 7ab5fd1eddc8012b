"""The one agent protocol, used alike by the engine, the envs' opponents, the PettingZoo env and tournaments.

:class:`BaseAgent` lives in :mod:`zanzibar_env.core.bots` (the envs' default opponent derives from it
without importing this package); it is re-exported here for bot authors.
"""

from __future__ import annotations

from zanzibar_env.core.bots import BaseAgent

__all__ = ["BaseAgent"]
