"""The JAX PPO's envs: groups of ``vmap``-ed :mod:`zanzibar_env.jax` tables with automatic reset.

An :class:`EnvGroup` is ``size`` tables of one env (self-play: the learner plays every seat; or a bot
played inside the env's ``step``). Its :meth:`~EnvGroup.step` steps every table, reads the mover's
reward, resets the tables whose episode ended (``terminated | truncated``) from fresh keys, and says
for each table whether the next decision is the same seat's (the self-play advantage flips its sign
where it is not; :func:`zanzibar_env.train.jax_ppo.gae`).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from zanzibar_env.jax import Env
from zanzibar_env.train.config import JaxPPOConfig


class EnvGroup:
    """``size`` tables of ``env``; ``self_play``: the learner moves in every seat (see the module docstring)."""

    def __init__(self, env: Env, size: int) -> None:
        self.env, self.size, self.self_play = env, size, env.self_play
        self._init, self._step = jax.vmap(env.init), jax.vmap(env.step_autoreset)

    def reset(self, keys: jax.Array) -> Any:
        """The tables' first states; eager (not traced): ``ValueError`` where a table's learner never gets a
        decision (``Env.check_halted``), before any training."""
        return self.env.check_halted(self._init(keys))

    def obs(self, state: Any) -> jax.Array:
        return state.observation

    def mask(self, state: Any) -> jax.Array:
        return state.legal_action_mask

    def step(self, state: Any, action: jax.Array) -> tuple[Any, tuple[jax.Array, ...]]:
        """``(next state, (reward of the mover, episode ended, same mover next))``; a table whose episode
        ended has begun the next one (:meth:`zanzibar_env.jax.Env.step_autoreset`, its own dice stream)."""
        mover = state.current_player
        nxt = self._step(state, action)
        reward = jnp.take_along_axis(nxt.rewards, mover[:, None], 1)[:, 0].astype(jnp.float32)
        done = nxt.terminated | nxt.truncated
        same = nxt.current_player == mover if self.self_play else jnp.ones_like(done)
        return nxt, (reward, done, same)


def make_groups(cfg: JaxPPOConfig) -> list[EnvGroup]:
    """The self-play group (``self_play_frac`` of the envs) and the group against ``opponent`` (the rest;
    under ``seat: split`` two groups, the learner rolling first in ``first_frac`` of them and second in
    the others); a group of no envs is left out."""
    n_self = round(cfg.num_envs * cfg.self_play_frac)
    n_bot = cfg.num_envs - n_self
    n_first = round(n_bot * cfg.first_frac) if cfg.seat == "split" else 0
    bots = [(0, n_first), (1, n_bot - n_first)] if cfg.seat == "split" else [(cfg.seat, n_bot)]
    groups = [(None, "random", n_self)] + [(cfg.opponent, seat, k) for seat, k in bots]
    return [
        EnvGroup(Env(cfg.ruleset, cfg.num_players, opponents=o, seat=seat, skip_no_decision=True), k)
        for o, seat, k in groups
        if k
    ]
