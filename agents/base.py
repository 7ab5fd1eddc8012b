"""The one agent protocol, used alike by the engine, the envs' opponents, the PettingZoo env and tournaments.

An agent sees the acting player's :class:`~zanzibar_env.View` (the same information as the env
observation) and returns a hold mask (bit ``i`` keeps sorted die ``i``; 7 stops). ``act_batch`` does
the same for a :class:`~zanzibar_env.core.observation.ViewBatch`; the vector env uses it.
"""

from __future__ import annotations

import numpy as np

from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch


class BaseAgent:
    """Base class: subclasses implement :meth:`act` and, for speed, :meth:`act_batch`."""

    name: str = "agent"

    def act(self, view: View) -> int:
        raise NotImplementedError

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Actions ``int64[B]`` for a batch of views (default: a loop over :meth:`act`; override it)."""
        raise NotImplementedError(f"{type(self).__name__} has no batched policy")

    def seed(self, seed: int | None = None) -> None:
        """Reseed any randomness the agent uses (no-op for deterministic agents)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
