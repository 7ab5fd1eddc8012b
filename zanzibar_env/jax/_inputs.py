"""What the JAX env takes from its caller, checked: scripted dice, an action, the opponents' specs.

Concrete values are checked where they arrive (``ValueError`` naming the problem); traced ones (under
``jit`` / ``vmap``) follow Pgx's convention for actions: anything that is not a legal hold mask is an
illegal action.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from ..core import kernel as K
from ..core.policy_table import PolicyTable
from ..core.registry import agents_with
from ..core.rules import Ruleset
from ..envs import _envutil as U
from ._core import I32
from ._policy import JaxPolicy
from ._state import Array

NUM_ACTIONS = K.NUM_ACTIONS


def check_dice(dice: ArrayLike) -> Array:
    """Scripted dice as ``int32[F]``: concrete faces must be integers 1..6 (``ValueError`` otherwise)."""
    if not isinstance(dice, jax.core.Tracer):
        d = np.asarray(dice)
        if d.dtype.kind not in "iu" or (d.size and (d.min() < 1 or d.max() > 6)):
            raise ValueError(f"dice must be die faces, integers 1..6, got {str(dice)[:60]}")
    return jnp.asarray(dice, I32).reshape(-1)


def check_action(action: ArrayLike) -> Array:
    """The action as an ``int32`` scalar, or ``ValueError`` (raised while the step is traced).

    Pgx's convention: any integer that is not a legal hold mask is an illegal action (the episode ends with
    ``illegal_action_penalty``). A concrete integer outside int32 (``2**32 + 3``) is illegal as it is, not
    wrapped; a traced 64-bit action (``jax_enable_x64``) likewise. With 64-bit types off, JAX itself turns
    an ``int64`` argument of ``jit`` or ``vmap`` into ``int32`` by wrapping before the step is called: pass
    ``int32`` actions there."""
    if not isinstance(action, jax.core.Tracer):
        v = np.asarray(action)
        if v.shape == () and v.dtype.kind in "iu" and not 0 <= int(v) < NUM_ACTIONS:
            return jnp.asarray(-1, I32)  # illegal, whatever its width
    a = jnp.asarray(action)
    if a.shape != ():
        raise ValueError(
            f"action must be one integer hold mask 0-7 per table (jax.vmap the step over a batch), "
            f"got an array of shape {a.shape}"
        )
    if not jnp.issubdtype(a.dtype, jnp.integer):
        raise ValueError(f"action must be an integer hold mask 0-7, got dtype {a.dtype}")
    if a.dtype.itemsize > 4:  # (traced int64 under x64: illegal where it is out of range, not wrapped)
        a = jnp.where((a < 0) | (a >= NUM_ACTIONS), -1, a)
    return a.astype(I32)


def opponent_policies(opponents: Any, rules: Ruleset, n: int) -> list[JaxPolicy]:
    """One :class:`JaxPolicy` per other seat, clockwise after the learner (shared where the spec is)."""
    specs = list(opponents) if isinstance(opponents, Sequence) and not isinstance(opponents, str) else None
    if specs is not None and len(specs) != n - 1:
        raise ValueError(
            f"opponents: got {len(specs)} for {n - 1} other seats; give one spec or one per seat"
        )
    built: dict[int, JaxPolicy] = {}

    def one(spec: Any) -> JaxPolicy:
        if id(spec) not in built:
            table = spec if isinstance(spec, PolicyTable) else _table_of(spec, rules, n)
            built[id(spec)] = JaxPolicy(table, rules, n)
        return built[id(spec)]

    return [one(s) for s in specs] if specs is not None else [one(opponents)] * (n - 1)


def _table_of(spec: Any, rules: Ruleset, n: int) -> PolicyTable:
    agent = U.make_opponents(spec, n, rules)[0]
    make = getattr(agent, "policy_table", None)
    if make is None:
        raise ValueError(
            f"opponent {spec!r} cannot play inside the JAX step (it has no policy_table(ruleset, num_players)); "
            f"JAX opponents: {', '.join(agents_with('policy_table'))}, or a PolicyTable"
        )
    return make(rules, n)
