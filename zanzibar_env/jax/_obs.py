"""The observation under JAX: the kernel encoder's own tables (:class:`zanzibar_env.core.observation.Encoder`)
as ``jnp`` arrays, gathered at the same indices as ``Encoder.rows`` (so the floats are the same)."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from ..core import kernel as K
from ..core.observation import MAX_EARLIER_PAYMENTS, MID, OBS_SIZE, encoder
from ..core.rules import MAX_PLAYERS, Ruleset
from ._state import State


def _floats(group: np.ndarray) -> Any:
    """A table of 16-byte groups (``Encoder._t_groups``) as ``float32[rows, 4]``."""
    return jnp.asarray(np.frombuffer(np.ascontiguousarray(group).tobytes(), np.float32).reshape(-1, 4))


class JaxEncoder:
    """:meth:`observe` (a decision) and :meth:`terminal` (after the episode) for one ruleset and table."""

    def __init__(self, ruleset: Ruleset, n: int) -> None:
        e = encoder(ruleset)
        self.n, self.nb, self.stride = n, e._nb, e._rolls_stride
        self.groups = tuple(_floats(g) for g in e._t_groups)
        self.lives = ruleset.stake == "lives"
        # stacks / scale and payments / 28 as tables of the float32 values numpy rounds them to (float32
        # division under XLA may differ in the last bit); stacks never pass n * start or the scale
        most = max(n * ruleset.starting_stack, e.scale, 1)
        self.stack_value = jnp.asarray((np.arange(most + 1) / e.scale).astype(np.float32))
        paid = (n - 1) * int(K.own_hand_payment(ruleset).max(initial=0))
        self.paid_value = jnp.asarray((np.arange(paid + 1) / MAX_EARLIER_PAYMENTS).astype(np.float32))
        self.seats = jnp.arange(n, dtype=jnp.int32)

    def _tail(self, stacks: Any, seat: Any) -> Any:
        """Slots 16-32: stacks / scale and active flags from ``seat``, clockwise, 0-padded; players / 8."""
        st = stacks[(seat + self.seats) % self.n]
        active = st > 0 if self.lives else jnp.ones(self.n, bool)
        pad = jnp.zeros(MAX_PLAYERS - self.n, jnp.float32)
        size = jnp.full(1, self.n / MAX_PLAYERS, jnp.float32)
        blocks = (self.stack_value[st], pad, active.astype(jnp.float32), pad, size)
        return jnp.concatenate(blocks)

    def observe(self, s: State) -> Any:
        """``float32[33]``: the acting seat's observation (``Encoder.rows``, slot by slot the same index)."""
        t, nb = self.groups, self.nb
        best, lo, hi, pos = s.best_rank, s.lo_rank, s.hi_rank, s.pos
        g0 = t[0][s.ms * nb + best + 1]
        g1 = t[1][(s.rolls * self.stride + s.tlim) * 2 + (pos == 0)]
        g2 = t[2][((s.norder - pos - 1) * nb + lo) * 8 + s.lo_count + 8]
        g3 = t[3][((lo >= 0) * nb + hi) * 9 + jnp.sign(best - lo) * 3 + jnp.sign(best - hi) + 13]
        paid = self.paid_value[s.epay]  # slot 15 (g3's last float is 0)
        g3 = jnp.where(jnp.arange(4) == MID.stop - 1 - 12, paid, g3)
        return jnp.concatenate([g0, g1, g2, g3, self._tail(s.stacks, s.current_player)])

    def terminal(self, s: State, seat: Any) -> Any:
        """``float32[33]`` after the episode: zeros but the seat blocks from ``seat`` and the table size."""
        return jnp.concatenate([jnp.zeros(MID.stop, jnp.float32), self._tail(s.stacks, seat)])


assert MID.stop == 16 and OBS_SIZE == 33  # the four 4-float groups, then the tail
