"""The agent base class and the uniform random baseline, kept in the core so the envs need no bot package.

The envs' default opponent is ``"random"``; it resolves to :class:`RandomAgent` here, so
``gym.make("Zanzibar-v1")`` works even where the top-level ``agents`` package cannot be imported (a
user's own ``agents.py`` in the working directory, say). :mod:`agents.base` and
:mod:`agents.random_agent` re-export both classes.

An agent sees the acting player's :class:`~zanzibar_env.View` (the same information as the env
observation) and returns a hold mask (bit ``i`` keeps sorted die ``i``; 7 stops). ``act_batch`` does
the same for a :class:`~zanzibar_env.core.observation.ViewBatch`; the vector env uses it.
"""

from __future__ import annotations

import numpy as np

from .engine import STOP, View
from .observation import ViewBatch


class BaseAgent:
    """Base class: subclasses implement :meth:`act` and, for speed, :meth:`act_batch`."""

    name: str = "agent"
    #: Table sizes the agent can play (``None``: any); checked before a game by envs and tournaments.
    table_sizes: tuple[int, ...] | None = None

    def act(self, view: View) -> int:
        raise NotImplementedError

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Actions ``int64[B]`` for a batch of views (default: a loop over :meth:`act`; override it)."""
        raise NotImplementedError(f"{type(self).__name__} has no batched policy")

    def seed(self, seed: int | None = None) -> None:
        """Reseed any randomness the agent uses (no-op for deterministic agents)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def check_table_size(agent: object, num_players: int) -> None:
    """``ValueError`` unless ``agent`` plays tables of ``num_players`` (its ``table_sizes``, if any)."""
    sizes = getattr(agent, "table_sizes", None)
    if sizes is not None and num_players not in sizes:
        name = getattr(agent, "name", type(agent).__name__)
        raise ValueError(f"agent {name!r} plays tables of {list(sizes)} players, not {num_players}")


class RandomAgent(BaseAgent):
    """Picks uniformly among the legal actions (all 8 masks, or re-throw/stop without holds)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._masks: list[int] = []  # buffered draws of rng.integers(8): the same sequence, faster

    def act(self, view: View) -> int:
        if view.ruleset.holds_allowed:
            if not self._masks:
                self._masks = self.rng.integers(8, size=256).tolist()[::-1]
            return self._masks.pop()
        return STOP if self.rng.random() < 0.5 else 0

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        if batch.ruleset.holds_allowed:
            return self.rng.integers(8, size=len(batch))
        return np.where(self.rng.random(len(batch)) < 0.5, STOP, 0)
