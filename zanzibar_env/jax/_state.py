"""The state of one Zanzibar table under JAX (Pgx's ``State`` style: a frozen dataclass, a pytree).

The first seven fields are Pgx's (``pgx.State``); the rest is the game, the same quantities as the
vector env's ``[N]`` state arrays (:mod:`zanzibar_env.envs._batched`) for one table. ``jax.vmap`` over
:meth:`zanzibar_env.jax.Env.init` gives every field a leading batch axis.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

Array = Any  # a jax.Array (a traced one inside jit / vmap)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class State:
    """One table. Seats are absolute (``0..n-1``, clockwise); ``[n]`` fields are indexed by seat."""

    # ---- Pgx's fields ----
    current_player: Array  # int32: the seat to act (at a decision: a seat the caller plays)
    observation: Array  # float32[33]: the acting seat's observation (OBS_LAYOUT); terminal: seat blocks only
    rewards: Array  # float32[n]: each seat's reward from this step (chips or win, as the envs)
    terminated: Array  # bool: the episode is over (the learner's, or the game's in self-play)
    truncated: Array  # bool: the game reached its round cap (max_rounds)
    legal_action_mask: Array  # bool[8]: legal hold masks (all True once the episode is over)
    _step_count: Array  # int32: steps taken in this episode
    # ---- the table ----
    seat: Array  # int32: the learner's seat (the caller plays it; opponents play the others)
    stacks: Array  # int32[n]: chips, lives or penalty points per seat
    hand_rank: Array  # int32[n]: rank of each seat's hand this round (-1: none yet)
    hand_cat: Array  # int32[n]: category index of each seat's hand this round
    rounds: Array  # int32: rounds settled in this game
    # ---- the round ----
    start: Array  # int32: the seat that opened the round
    pos: Array  # int32: play position of the acting seat (0 = first roller)
    norder: Array  # int32: seats playing this round (lives: those with lives)
    limit: Array  # int32: the round's roll limit (kernel.limit_after_turn)
    lo_rank: Array  # int32: lowest hand's rank so far (-1: none)
    lo_count: Array  # int32: hands sharing the lowest rank
    hi_rank: Array  # int32: highest hand's rank so far (-1: none)
    hi_seat: Array  # int32: first seat holding the highest hand (-1: none)
    epay: Array  # int32: own-hand payments of earlier seats this round (payment: own_hand)
    instant: Array  # bool: the round ended on an instant top hand
    # ---- the turn ----
    ms: Array  # int32: multiset index 0..55 of the dice (hands.MULTISETS, sorted dice)
    rolls: Array  # int32: rolls used this turn
    tlim: Array  # int32: the turn's roll limit (kernel.turn_limit at its first throw)
    best_rank: Array  # int32: rank of the hand the turn scores if it stops now
    best_ms: Array  # int32: multiset of that hand
    turn_over: Array  # bool: the acting seat's turn is over (to be recorded)
    # ---- bookkeeping ----
    pending: Array  # float32[n]: rewards of rounds settled before the first decision (paid at next step)
    passing: Array  # int32: 1 (terminated) or 2 (truncated): the episode ended before the learner's first
    #                 decision and waits to be reported (skip_no_decision=False; Env.step_autoreset); else 0
    seed: Array  # uint32: the table's random stream: its seed ...
    draws: Array  # uint32: ... and the draws made from it (two scalars: a [2] pair costs a slower kernel)
    dice: Array  # int32[F]: scripted die faces (tests; F = 0: random dice)
    dice_at: Array  # int32: faces of the script used

    def replace(self, **changes: Any) -> State:
        """A copy with ``changes`` (as ``flax.struct`` / Pgx states)."""
        return dataclasses.replace(self, **changes)

    @property
    def env_id(self) -> str:
        """The env's id (as ``pgx.State.env_id``)."""
        return "zanzibar"


def draw_u32(s: State) -> tuple[State, Array]:
    """One uniform ``uint32`` from the table's stream: a counter-based hash (``lowbias32`` of seed and
    counter, a few integer ops: cheap under ``vmap``, where ``jax.random`` would cost a threefry per draw)."""
    x = s.seed ^ (s.draws * np.uint32(0x9E3779B9))
    x = x ^ (x >> 16)
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * np.uint32(0x846CA68B)
    x = x ^ (x >> 16)
    return s.replace(draws=s.draws + np.uint32(1)), x


def empty_state(n: int, obs_size: int, num_actions: int, dice: Array, seed: Array) -> State:
    """A state of ``n`` seats with every field zero (``begin_episode`` fills it)."""
    i = jnp.asarray(0, jnp.int32)
    f = jnp.asarray(False)
    zn = jnp.zeros(n, jnp.int32)
    return State(
        current_player=i, observation=jnp.zeros(obs_size, jnp.float32), rewards=jnp.zeros(n, jnp.float32),
        terminated=f, truncated=f, legal_action_mask=jnp.ones(num_actions, bool), _step_count=i,
        seat=i, stacks=zn, hand_rank=zn - 1, hand_cat=zn, rounds=i, start=i, pos=i, norder=i, limit=i,
        lo_rank=i - 1, lo_count=i, hi_rank=i - 1, hi_seat=i - 1, epay=i, instant=f, ms=i, rolls=i, tlim=i,
        best_rank=i - 1, best_ms=i, turn_over=f, pending=jnp.zeros(n, jnp.float32), passing=i,
        seed=seed, draws=jnp.asarray(0, jnp.uint32), dice=dice, dice_at=i,
    )  # fmt: skip
