"""Zanzibar as a functional JAX env in the style of Pgx: ``init(key)``, ``step(state, action, key)``.

Needs the ``[jax]`` extra (``pip install "zanzibar-env[jax]"``). Example::

    import jax
    from zanzibar_env.jax import Env

    env = Env("classic", num_players=2, opponents="optimal", episode="round")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step_autoreset))
    state = init(jax.random.split(jax.random.PRNGKey(0), 4096))
    logits = jax.numpy.where(state.legal_action_mask, 0.0, -jax.numpy.inf)
    action = jax.random.categorical(jax.random.PRNGKey(1), logits)
    state = step(state, action)
    learner_reward = state.rewards[jax.numpy.arange(4096), state.seat]

Where it follows Pgx (``pgx.Env`` / ``pgx.State``, pgx 2.x): :class:`State` has Pgx's seven fields
(``current_player``, ``observation``, ``rewards`` per seat, ``terminated``, ``truncated``,
``legal_action_mask``, ``_step_count``) and ``replace``; :class:`Env` has ``init(key)``,
``step(state, action, key=None)``, ``observe(state)``, ``id``, ``version``, ``num_players``,
``num_actions``, ``observation_shape``; stepping a finished state returns it with zero rewards; an
illegal action ends the episode with a penalty; the functions are unbatched (``jax.vmap`` them);
:func:`auto_reset` is ``pgx.experimental.auto_reset``.

Where it differs:

* dice are chance, not a player: the opponents (bots) play inside ``step``, so ``current_player`` is
  always a seat the caller plays (the learner's ``state.seat``; every seat under ``opponents=None``);
* ``init`` plays to the learner's first decision and begins again an episode that ends before it;
  rewards of rounds settled in ``init`` are paid with the first step (Pgx's ``init`` pays nothing);
* ``step``'s ``key`` is optional: without it the table's own counter-based stream (seeded by ``init``'s
  key) throws the dice; :meth:`Env.step_autoreset` begins the next episode from that stream;
* ``State`` is a ``jax.tree_util`` dataclass, not a subclass of ``pgx.State``, and ``Env`` is not a
  ``pgx.Env`` (``isinstance`` is False): Pgx's classes fix their ids to Pgx's own games (a closed
  ``Literal``) and importing Pgx here would load it for every user of this env. ``State.to_svg`` /
  ``save_svg`` draw a small picture as Pgx's do; ``pgx.api_test`` passes but for its two checks of
  Pgx's own ids and fields (``tests/jax/test_pgx_api.py``, docs/jax.md);
* ``init`` takes an optional ``dice`` script (tests).
"""

from __future__ import annotations

from ..extras import requires_extra

with requires_extra("jax", "the JAX env (zanzibar_env.jax)"):
    import jax  # noqa: F401  (imported to check the extra is installed)

from ._state import State
from .env import Env, auto_reset

__all__ = ["Env", "State", "auto_reset"]
