"""The agent base class and the uniform random baseline, kept in the core so the envs need no bot package.

The envs' default opponent is ``"random"``; it resolves to :class:`RandomAgent` here, so
``gym.make("Zanzibar-v1")`` works even where the top-level ``agents`` package cannot be imported (a
user's own ``agents.py`` in the working directory, say). :mod:`zanzibar_env.core.bots` and
:mod:`zanzibar_env.core.bots` re-export both classes.

An agent sees the acting player's :class:`~zanzibar_env.View` (the same information as the env
observation) and returns a hold mask (bit ``i`` keeps sorted die ``i``; 7 stops). ``act_batch`` does
the same for a :class:`~zanzibar_env.core.observation.ViewBatch`; the vector env uses it where an agent
has one (:meth:`BaseAgent.act_batch` raises ``NotImplementedError`` unless overridden: callers then
play view by view).

Per-env randomness (the ``row_rng`` protocol): a batch from the vector env carries ``batch.row_rng``,
a :class:`~zanzibar_env.core.streams.RowRandom` whose ``random()`` and ``integers(high)`` return one
draw per row, each from that env's own seeded stream. A stochastic bot that draws through it
(:func:`batch_random`, :func:`batch_integers` fall back to the bot's own generator when a batch has
no ``row_rng``), with the same calls for a row whatever the other rows hold, keeps each env's games a
function of that env's seed alone (``reset(seed=[...])``). Bots that ignore ``row_rng`` stay valid:
the vector env reseeds them from all the seeds together (``seed()``), so a run is reproducible as a
whole but an env's games then depend on the other envs. A bot that splits a batch passes
``batch.row_rng[rows]`` on with the rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .engine import STOP, View
from .made_for import check_made_for
from .observation import ViewBatch
from .policy_table import PolicyTable
from .rules import Ruleset


class BaseAgent:
    """Base class: subclasses implement :meth:`act` and, for speed, :meth:`act_batch`."""

    name: str = "agent"
    #: Table sizes the agent can play (``None``: any); checked before a game by envs and tournaments.
    table_sizes: tuple[int, ...] | None = None
    #: What a learned agent was made for (ruleset, feature layout; :mod:`zanzibar_env.core.made_for`).
    made_for: dict[str, Any] | None = None

    def act(self, view: View) -> int:
        raise NotImplementedError

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Actions ``int64[B]`` for a batch of views. Override it for speed; the default raises
        ``NotImplementedError``, and the callers (the vector env, tournaments, exact evaluation) then ask
        :meth:`act` view by view, with views they build themselves (a batch holds no absolute seat)."""
        raise NotImplementedError(f"{type(self).__name__} has no batched policy")

    def seed(self, seed: int | None = None) -> None:
        """Reseed any randomness the agent uses (no-op for deterministic agents)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def batch_random(batch: ViewBatch, rng: np.random.Generator) -> np.ndarray:
    """``float64[B]`` uniform in ``[0, 1)``: from ``batch.row_rng`` when the batch has one, else ``rng``."""
    row_rng = getattr(batch, "row_rng", None)
    return row_rng.random() if row_rng is not None else rng.random(len(batch))


def batch_integers(batch: ViewBatch, high: int, rng: np.random.Generator) -> np.ndarray:
    """``int64[B]`` uniform in ``0..high-1``: from ``batch.row_rng`` when the batch has one, else ``rng``."""
    row_rng = getattr(batch, "row_rng", None)
    return row_rng.integers(high) if row_rng is not None else rng.integers(high, size=len(batch))


def check_table_size(agent: object, num_players: int, ruleset: Ruleset | None = None) -> None:
    """``ValueError`` unless ``agent`` plays tables of ``num_players`` (its ``table_sizes``, if any) and,
    given ``ruleset``, was made for it (:func:`zanzibar_env.core.made_for.check_made_for`)."""
    if ruleset is not None:
        check_made_for(agent, ruleset, num_players)
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
        self._masks: list[int] = []  # buffered draws of rng.integers(8): the same sequence

    def act(self, view: View) -> int:
        if view.ruleset.holds_allowed:
            return self._mask()
        return STOP if self.rng.random() < 0.5 else 0

    def _mask(self) -> int:
        if not self._masks:
            self._masks = self.rng.integers(8, size=256).tolist()[::-1]
        return self._masks.pop()

    def act_each(self, batch: ViewBatch, agents: list[RandomAgent]) -> np.ndarray:
        """``agents[i].act(view i)`` for each row ``i`` of ``batch``, each from its own generator, without
        building views (a tournament in lockstep gives each game its own copy of a stochastic agent)."""
        if batch.ruleset.holds_allowed:
            return np.array([a._mask() for a in agents], np.int64)
        return np.array([STOP if a.rng.random() < 0.5 else 0 for a in agents], np.int64)

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Uniform legal actions, one draw per row (per-env streams through ``batch.row_rng``)."""
        if batch.ruleset.holds_allowed:
            return batch_integers(batch, 8, self.rng)
        return np.where(batch_random(batch, self.rng) < 0.5, STOP, 0)

    def policy_table(self, ruleset: Ruleset, num_players: int) -> PolicyTable:
        """The policy for array engines (the JAX env): a uniform legal mask, drawn there."""
        return PolicyTable(kind="random", name=self.name)
