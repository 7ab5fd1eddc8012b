"""The state of one Zanzibar table under JAX (Pgx's ``State`` style: a frozen dataclass, a pytree).

The first seven fields are Pgx's (``pgx.State``); the rest is the game, the same quantities as the
vector env's ``[N]`` state arrays (:mod:`zanzibar_env.envs._batched`) for one table. ``jax.vmap`` over
:meth:`zanzibar_env.jax.Env.init` gives every field a leading batch axis.

The small quantities that change at every event of a turn live as bit fields of three ``int32`` words
(``turn``, ``public``, ``hands``), read and written by name (``state.ms``, ``state.replace(ms=...)``)
as if they were fields of their own: under ``vmap`` every array the step's loops change costs a kernel
per pass, and one word costs one where six fields cost six.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeAlias, overload

import jax
import jax.numpy as jnp
import numpy as np

from ..core.hands import MULTISETS
from ..core.rules import _INT_RANGES, MAX_PLAYERS

Array: TypeAlias = jax.Array  # (a traced one inside jit / vmap)

#: ``State.halted``: the learner reached no decision in ``MAX_SKIPS`` (1000) episodes begun in one call
#: (opponents that never let it choose; ``skip_no_decision=True``)
HALT_NO_DECISION = 1
#: ``State.halted``: a scripted roll-off ran out of dice (the tied seats would tie for ever)
HALT_SCRIPT = 2


class _Bits:
    """A quantity stored in bits ``shift .. shift + width - 1`` of the ``int32`` word field ``word``, as
    ``value + offset`` (``offset`` 1 stores ``-1``, "none", as 0); ``flag``: read as a bool."""

    def __init__(self, word: str, shift: int, width: int, offset: int = 0, flag: bool = False) -> None:
        self.word, self.shift, self.offset, self.flag = word, shift, offset, flag
        self.ones = (1 << width) - 1

    @overload
    def __get__(self, s: None, owner: type | None = None) -> _Bits: ...
    @overload
    def __get__(self, s: State, owner: type | None = None) -> Array: ...
    def __get__(self, s: State | None, owner: type | None = None) -> _Bits | Array:
        if s is None:  # read on the class (``State.ms``: help, docs): the field itself
            return self
        v = (getattr(s, self.word) >> self.shift) & self.ones
        return v == 1 if self.flag else v - self.offset

    def put(self, word: Array, value: Array | int) -> Array:
        """``word`` with this quantity set to ``value`` (an int, bool or integer array)."""
        v = (jnp.asarray(value).astype(jnp.int32) + self.offset) & self.ones
        return (word & ~(self.ones << self.shift)) | (v << self.shift)


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
    hands: Array  # int32[n]: each seat's hand this round: hand_rank, hand_cat (bit fields below)
    rounds: Array  # int32: rounds settled in this game
    # ---- the round ----
    start: Array  # int32: the seat that opened the round
    norder: Array  # int32: seats playing this round (lives: those with lives)
    public: Array  # int32: what every seat sees of the round: pos .. hi_seat (bit fields below)
    epay: Array  # int32: own-hand payments of earlier seats this round (payment: own_hand)
    instant: Array  # bool: the round ended on an instant top hand
    # ---- the turn ----
    turn: Array  # int32: the acting seat's turn: ms .. turn_over (bit fields below)
    # ---- bookkeeping ----
    pending: Array  # float32[n]: rewards of rounds settled before the first decision (paid at next step)
    passing: Array  # int32: 1 (terminated) or 2 (truncated): the episode ended before the learner's first
    #                 decision and waits to be reported (skip_no_decision=False; Env.step_autoreset); else 0
    halted: Array  # int32: why the compiled loops stopped short of the rules (0: they did not): 1
    #                (HALT_NO_DECISION) no decision in 1000 episodes begun in one call of a skipping env,
    #                2 (HALT_SCRIPT) the dice script ran out in a roll-off; truncated there, then kept
    seed: Array  # uint32: the table's random stream: its seed ...
    draws: Array  # uint32: ... and the draws made from it (two scalars, not a [2] pair: docs/benchmarks.md#jax-env)
    dice: Array  # int32[F]: scripted die faces (tests; F = 0: random dice)
    dice_at: Array  # int32: faces of the script used
    # ---- the env it belongs to (static: part of the pytree's structure, not an array) ----
    env_key: str = dataclasses.field(default="", metadata={"static": True})  # Env.key: rules and table

    # ---- bit fields of ``hands`` (per seat) ----
    hand_rank = _Bits("hands", 0, 7, offset=1)  # rank of the seat's hand this round (-1: none yet)
    hand_cat = _Bits("hands", 7, 3)  # category index of that hand
    # ---- bit fields of ``public`` ----
    pos = _Bits("public", 0, 4)  # play position of the acting seat (0 = first roller)
    limit = _Bits("public", 4, 3)  # the round's roll limit (kernel.limit_after_turn)
    lo_rank = _Bits("public", 7, 7, offset=1)  # lowest hand's rank so far (-1: none)
    lo_count = _Bits("public", 14, 4)  # hands sharing the lowest rank
    hi_rank = _Bits("public", 18, 7, offset=1)  # highest hand's rank so far (-1: none)
    hi_seat = _Bits("public", 25, 4, offset=1)  # first seat holding the highest hand (-1: none)
    # ---- bit fields of ``turn`` ----
    ms = _Bits("turn", 0, 6)  # multiset index 0..55 of the dice (hands.MULTISETS, sorted dice)
    rolls = _Bits("turn", 6, 3)  # rolls used this turn
    tlim = _Bits("turn", 9, 3)  # the turn's roll limit (kernel.turn_limit at its first throw)
    best_rank = _Bits("turn", 12, 7, offset=1)  # rank of the hand the turn scores if it stops now
    best_ms = _Bits("turn", 19, 6)  # multiset of that hand
    turn_over = _Bits("turn", 25, 1, flag=True)  # the acting seat's turn is over (to be recorded)

    def replace(self, **changes: Any) -> State:
        """A copy with ``changes`` (as ``flax.struct`` / Pgx states); bit fields are set by name. A
        concrete bit-field value outside its range (:data:`RANGES`) is a ``ValueError``, not wrapped."""
        words: dict[str, Array] = {}
        for name in [k for k in changes if k in BITS]:
            b = BITS[name]
            _check_bits(name, changes[name])
            words[b.word] = b.put(words.get(b.word, getattr(self, b.word)), changes.pop(name))
        if clash := sorted(changes.keys() & words.keys()):
            raise TypeError(f"State.replace() got the word(s) {clash} and bit fields stored in them")
        return dataclasses.replace(self, **(changes | words))

    @property
    def env_id(self) -> str:
        """The env's id (as ``pgx.State.env_id``)."""
        return "zanzibar"

    def to_svg(self) -> str:
        """A small SVG picture of the table(s) (as ``pgx.State.to_svg``; :mod:`zanzibar_env.jax.svg`)."""
        from .svg import state_svg

        return state_svg(self)

    def save_svg(self, filename: str) -> None:
        """Write :meth:`to_svg` to ``filename`` (as ``pgx.State.save_svg``)."""
        from .svg import save_svg

        save_svg(self, filename)


BITS = {k: v for k, v in vars(State).items() if isinstance(v, _Bits)}
_SEATS, _ROLLS, _RANK = MAX_PLAYERS, _INT_RANGES["max_rolls"][1], 63  # (JaxGames checks a ruleset's ranks)
#: the values each bit field must hold: seats and positions from MAX_PLAYERS, rolls from the largest
#: max_rolls a ruleset may set, multisets from hands.MULTISETS, ranks and categories checked by JaxGames
RANGES: dict[str, tuple[int, int]] = {
    "hand_rank": (-1, _RANK), "hand_cat": (0, 7), "pos": (0, _SEATS), "limit": (0, _ROLLS),
    "lo_rank": (-1, _RANK), "lo_count": (0, _SEATS), "hi_rank": (-1, _RANK), "hi_seat": (-1, _SEATS - 1),
    "ms": (0, len(MULTISETS) - 1), "rolls": (0, _ROLLS), "tlim": (0, _ROLLS), "best_rank": (-1, _RANK),
    "best_ms": (0, len(MULTISETS) - 1), "turn_over": (0, 1),
}  # fmt: skip
assert RANGES.keys() == BITS.keys() and all(
    0 <= lo + BITS[k].offset and hi + BITS[k].offset <= BITS[k].ones for k, (lo, hi) in RANGES.items()
)  # every value fits its bits
assert all(b.shift + b.ones.bit_length() <= 31 for b in BITS.values())  # and every word its int32


def _check_bits(name: str, value: Array | int) -> None:
    """``ValueError`` for a concrete (not traced) value of bit field ``name`` outside its range."""
    if isinstance(value, jax.core.Tracer):
        return
    v = np.asarray(value)
    lo, hi = RANGES[name]
    kinds = "iub" if BITS[name].flag else "iu"  # (a bool only for a flag)
    if v.dtype.kind not in kinds or (v.size and (v.min() < lo or v.max() > hi)):
        raise ValueError(f"State.{name} must hold integers {lo}..{hi}, got {str(value)[:60]}")


def draw_u32(s: State) -> tuple[State, Array]:
    """One uniform ``uint32`` from the table's stream: a counter-based hash (``lowbias32`` of seed and
    counter, a few integer ops, not ``jax.random``'s threefry: ``docs/benchmarks.md``, "JAX env")."""
    x = s.seed ^ (s.draws * np.uint32(0x9E3779B9))
    x = x ^ (x >> 16)
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * np.uint32(0x846CA68B)
    x = x ^ (x >> 16)
    return s.replace(draws=s.draws + np.uint32(1)), x


def empty_state(
    n: int, obs_size: int, num_actions: int, dice: Array, seed: Array, env_key: str = ""
) -> State:
    """A state of ``n`` seats with every field zero and no hands (``begin_episode`` fills it), marked as
    a state of the env ``env_key``."""
    i = jnp.asarray(0, jnp.int32)
    f = jnp.asarray(False)
    zn = jnp.zeros(n, jnp.int32)  # (bit fields stored 0: no hand, no lowest or highest hand yet)
    return State(
        current_player=i, observation=jnp.zeros(obs_size, jnp.float32), rewards=jnp.zeros(n, jnp.float32),
        terminated=f, truncated=f, legal_action_mask=jnp.ones(num_actions, bool), _step_count=i,
        seat=i, stacks=zn, hands=zn, rounds=i, start=i, norder=i, public=i, epay=i, instant=f, turn=i,
        pending=jnp.zeros(n, jnp.float32), passing=i, halted=i, seed=seed,
        draws=jnp.asarray(0, jnp.uint32), dice=dice, dice_at=i, env_key=env_key,
    )  # fmt: skip  # packed: one field a line is 20 lines more
