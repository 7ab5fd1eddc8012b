"""Opponents inside the compiled step: a bot's :class:`~zanzibar_env.core.policy_table.PolicyTable` read
with JAX at the acting seat's view (the fields of ``ViewBatch``, read from the :class:`State`)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..core import kernel as K
from ..core.made_for import check_made_for
from ..core.policy_table import PolicyTable
from ..core.rules import MAX_PLAYERS, Ruleset
from ._state import State, draw_u32

I32 = jnp.int32


class JaxPolicy:
    """One opponent's policy as ``jnp`` arrays; :meth:`__call__` gives its hold mask at a state."""

    def __init__(self, table: PolicyTable, ruleset: Ruleset, num_players: int | None = None) -> None:
        if not isinstance(table, PolicyTable):
            raise TypeError(f"opponent_table must be a PolicyTable, got {type(table).__name__}")
        self.t, self.kind, self.name = table, table.kind, table.name
        sizes = list(range(2, (num_players or 2) + 1)) if ruleset.stake == "lives" else [num_players or 2]
        check_made_for(
            table,
            ruleset,
            None,
            "as a JAX opponent",
            "opponent table",
            "pass dataclasses.replace(table, made_for=None)",
        )
        missing = [a for a in sizes if table.kind == "dense" and int(table.num_keys[a]) == 0]
        if missing:
            held = [a for a in range(len(table.num_keys)) if int(table.num_keys[a]) > 0]
            raise ValueError(
                f"opponent table {table.name!r} holds tables of {held} players, this table needs {sizes}: "
                f"build it with policy_table(ruleset, {num_players})"
            )
        self.holds, self.max_rolls = ruleset.holds_allowed, ruleset.max_rolls
        # seats in every round (not lives: all of them): the per-size offsets are then constants
        self.seats = num_players if ruleset.stake != "lives" else None
        self.rank_ms = jnp.asarray(ruleset.table.rank_of_multiset, I32)
        if table.kind == "features":
            self.actions = jnp.asarray(table.actions, I32)
        elif table.kind == "dense":
            if table.num_ranks != ruleset.table.num_ranks:
                raise ValueError(
                    f"opponent table {table.name!r} was built for another ruleset's hand ranking"
                )

            def i32(a: np.ndarray) -> jax.Array:
                return jnp.asarray(np.asarray(a), I32)

            self.rows, self.policy = (
                _narrow(table.rows),
                _narrow(table.policy),
            )  # (docs/benchmarks.md#jax-env)
            self.np_offsets = tuple(
                np.asarray(a) for a in (table.xs, table.num_keys, table.row_start, table.policy_start)
            )
            self.row_start, self.num_keys = i32(table.row_start), i32(table.num_keys)
            self.xs, self.policy_start, self.x_of_rank = (
                i32(table.xs),
                i32(table.policy_start),
                i32(table.x_of_rank),
            )

    def __call__(self, s: State) -> tuple[State, Any]:
        """``(state, hold mask)`` of the acting seat (the state's stream advances for ``random``)."""
        if self.kind == "random":
            s, x = draw_u32(s)
            if self.holds:
                return s, (x >> np.uint32(29)).astype(I32)  # the top 3 bits: uniform 0..7
            return s, jnp.where(x >> np.uint32(31) == 1, K.STOP, 0).astype(I32)
        if self.kind == "features":
            t = self.t
            left = jnp.clip(s.tlim - s.rolls, 0, self.max_rolls)
            return s, self.actions[(s.lo_rank + 1) * t.lo_stride + left * t.left_stride + s.ms * t.ms_stride]
        return s, self._dense(s)

    def _dense(self, s: State) -> Any:
        """The solver's action (``agents.exact.lookup.dense_actions`` for one row); ``STOP`` at a public
        state the tables do not hold (the round cannot reach it)."""
        t, a = self.t, s.norder  # a: active players (the solver's table size)
        lo = jnp.where(s.lo_rank < 0, t.num_ranks, s.lo_rank)
        x: Any = 0
        if t.x_kind == "top":
            x = self.x_of_rank[s.hi_rank + 1]
        elif t.x_kind == "own":
            x = s.epay
        if self.seats is None:
            offsets: tuple[Any, ...] = (self.xs[a], self.num_keys[a], self.row_start[a], self.policy_start[a])
        else:  # the table size is the number of seats: Python constants, no gathers
            offsets = tuple(int(v[self.seats]) for v in self.np_offsets)
        xs, nk, row_start, policy_start = offsets
        key = ((lo * (MAX_PLAYERS + 1) + s.lo_count) * xs + x) * 8 + s.tlim
        inside = (key >= 0) & (key < nk)
        row = jnp.where(inside, self.rows[row_start + s.pos * nk + jnp.clip(key, 0, nk - 1)].astype(I32), -1)
        at = (policy_start + row) * t.stride + (s.rolls - 1) * t.per_roll + s.ms
        if t.best:
            at = at + jnp.maximum(s.best_rank, self.rank_ms[s.ms]) * len(self.rank_ms)
        return jnp.where(row >= 0, self.policy[jnp.maximum(at, 0)].astype(I32), K.STOP)


def _narrow(a: Any) -> Any:
    """``a`` as the narrowest of ``int8`` / ``int16`` / ``int32`` that holds its values."""
    a = np.asarray(a)
    for dt in (np.int8, np.int16):
        if a.size == 0 or (a.min() >= np.iinfo(dt).min and a.max() <= np.iinfo(dt).max):
            return jnp.asarray(a.astype(dt))
    return jnp.asarray(a, I32)
