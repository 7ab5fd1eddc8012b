"""The rules kernel: each rule of a round written once, read by every engine.

Where each rule lives
---------------------
* actions and legal masks (:func:`legal_mask`, :func:`check_action`, :func:`check_actions`), dice
  transitions and their probabilities (:data:`TRANSITION`, :func:`transition_probs`), the roll limit of
  a turn and how the first roller sets it (:func:`turn_limit`, :func:`limit_after_turn`), when a turn
  and a round are over, which throw a turn scores (:func:`best_after_roll`, ``final_hand``), the public
  state after each turn (:func:`public_after_turn`), the price tables of a round (chips by category,
  own-hand payments, lives or penalty points by the top hand's rank): **this module**;
* who loses a round (ties, roll-offs, instant Zanzibar; a tie in expectation, ``tie_outcomes``), who
  pays whom and how much, lives lost and penalty points taken, who rolls first in the next round
  (``next_starter``), which starting stacks are valid (``start_problem``), the end of a game (winners,
  the lives tie-break, the penalty game's ``num_rounds``), rewards: :mod:`zanzibar_env.core.settlement`;
* the observation encoding and the terminal observation: :mod:`zanzibar_env.core.observation`;
* hand ranks and categories: :mod:`zanzibar_env.core.hands`; the options themselves:
  :mod:`zanzibar_env.core.rules`.

Design: one formula, two kinds of numbers
-----------------------------------------
The scalar engine (:mod:`~zanzibar_env.core.engine`) plays one table with Python ints; the numpy engine
of the vector env (:mod:`zanzibar_env.envs._batched`) plays thousands of tables with ``int64[N]``
arrays. A batch of one would cost the scalar engine a numpy call per rule and turn (why that matters:
``docs/benchmarks.md``, "Kernel and settlement"), so instead every rule here is either

* **a table** built once per ruleset (legal mask, transitions, which hands end a turn at once), read
  with ``table[i]`` by both engines (the scalar engine reads the same values as Python lists), or
* **a branch-free formula** that uses only ``+ - * < == & |`` and :func:`select` (``b + c * (a - b)``),
  so the very same function body runs on Python ints (one table) and on numpy arrays (every row at
  once). The rule is then written once, and neither engine pays for the other's kind of number.

Per-seat rules (settlement) take one value per seat *in play order* (a list of ints, or a list of
``[N]`` arrays), so the same loop over seats serves both engines.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, TypeAlias, TypeVar, overload

import numpy as np

from .hands import MULTISET_INDEX, MULTISETS, THROWS
from .rules import Ruleset

if TYPE_CHECKING:  # jax is an extra: the kernel never imports it; the JAX engine passes its arrays in
    import jax

#: A rule's value: a Python int or bool (the scalar engine), a numpy array (the batched core) or a JAX array.
Number: TypeAlias = "int | np.ndarray | jax.Array"
#: One kind of :data:`Number` per call: a rule returns the kind it is given (mypy checks each body once per
#: kind). Arguments typed ``N | int`` may also be Python constants (``False``, ``0``) next to arrays.
N = TypeVar("N", int, np.ndarray, "jax.Array")
#: The kinds of a reward: a Python float, or an array of them.
F = TypeVar("F", float, np.ndarray, "jax.Array")
#: The kinds of a table index (the scalar and batched engines; the JAX engine reads its own tables).
Ix = TypeVar("Ix", int, np.ndarray)
#: The array kinds alone (a rule that returns a float for Python numbers is overloaded on them).
A = TypeVar("A", np.ndarray, "jax.Array")
T = TypeVar("T")

STOP = 7  # the action "keep all dice and stop"
NUM_ACTIONS = 8  # hold masks 0..7 over the dice sorted ascending: bit i keeps die i
NUM_THROWS = 216  # ordered throws of three dice, index 36*(d1-1) + 6*(d2-1) + (d3-1)
#: Indices of the sorted dice each hold mask keeps (bit i keeps die i).
KEPT = tuple(tuple(i for i in range(3) if mask >> i & 1) for mask in range(NUM_ACTIONS))
#: Dice each hold mask re-throws.
REROLLED = tuple(3 - len(k) for k in KEPT)


def per_ruleset(build: Callable[[Ruleset], T]) -> Callable[[Ruleset], T]:
    """Cache a table built from a ruleset, per ruleset object (rulesets hold a dict: not hashable)."""
    memo: dict[int, tuple[Ruleset, T]] = {}

    def get(ruleset: Ruleset) -> T:
        hit = memo.get(id(ruleset))
        if hit is None or hit[0] is not ruleset:
            hit = memo[id(ruleset)] = (ruleset, build(ruleset))  # the ruleset is held: its id stays its own
        return hit[1]

    get.__doc__, get.__name__ = build.__doc__, build.__name__
    return get


@overload
def select(cond: N, a: N | int, b: N | int) -> N: ...
@overload
def select(cond: F, a: F | float, b: F | float) -> F: ...
def select(cond: Number | float, a: Number | float, b: Number | float) -> Number | float:
    """``a`` where ``cond`` else ``b``: ``b + cond * (a - b)`` on Python numbers, ``np.where`` (the same
    value, one numpy call) when ``cond`` is an array."""
    if type(cond) is np.ndarray:
        return np.where(cond, a, b)
    return b + cond * (a - b)


# ---- actions ----------------------------------------------------------------------------------------
@cache
def legal_mask(holds_allowed: bool) -> np.ndarray:
    """``bool[8]`` (read-only): legal hold masks, all eight, or only re-throw all (0) and stop (7)."""
    mask = np.ones(NUM_ACTIONS, bool)
    if not holds_allowed:
        mask[1:STOP] = False
    mask.setflags(write=False)
    return mask


def legal_actions(ruleset: Ruleset) -> tuple[int, ...]:
    """The legal hold masks of ``ruleset`` at every decision (the legal set never depends on the dice)."""
    return tuple(int(a) for a in np.flatnonzero(legal_mask(ruleset.holds_allowed)))


def _illegal(value: object, legal: Sequence[bool] | np.ndarray, where: str) -> ValueError:
    return ValueError(
        f"illegal action {value!r}{where}: legal hold masks are {np.flatnonzero(legal).tolist()} "
        "(bit i keeps sorted die i; 7 stops)"
    )


def check_action(action: object, legal: Sequence[bool] | np.ndarray, where: str = "") -> int:
    """``action`` as an int if it is an integer legal hold mask, else ``ValueError`` (``where`` names the
    actor, e.g. ``" in env 3"``). Python and numpy integers (and 0-d integer arrays) are accepted;
    bools, floats and strings are not."""
    if type(action) is int and 0 <= action < NUM_ACTIONS and legal[action]:
        return action
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = action.item()
    if isinstance(action, bool) or not hasattr(action, "__index__") or isinstance(action, np.ndarray):
        raise ValueError(f"action must be an integer hold mask 0-7{where}, got {action!r}")
    a = operator.index(action)
    if not 0 <= a < NUM_ACTIONS or not legal[a]:
        raise _illegal(a, legal, where)
    return a


def check_actions(
    actions: object,
    legal: np.ndarray,
    skip: np.ndarray | None = None,
    who: str = "",
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """``int64[N]`` actions, one per env row, each an integer legal under ``legal`` (``bool[8]``), or
    ``ValueError`` naming the first offending env row and its value. Rows where ``skip`` is true are not
    checked (their action is ignored). ``who`` names the actor (e.g. ``"an opponent"``); ``rows``
    gives the env row of each entry (default ``0..N-1``)."""
    act = np.asarray(actions)
    if act.dtype.kind in "iu" and act.ndim == 1:  # the usual case, every action legal: checked at once
        a = act.astype(np.int64)
        if np.count_nonzero(a.view(np.uint64) < NUM_ACTIONS) == a.size:  # (a negative wraps to >= 2**63)
            if np.count_nonzero(legal.take(a)) == a.size:
                return a
    by = f" from {who}" if who else ""

    def where(i: int) -> str:
        return f" in env {int(rows[i]) if rows is not None else i}{by}"

    todo = np.ones(act.shape, bool) if skip is None else ~np.asarray(skip, bool)
    if act.ndim != 1:
        raise ValueError(f"actions{by} must be a 1-d array of integer hold masks 0-7, got {actions!r}")
    if act.dtype.kind == "f":
        frac = np.flatnonzero(todo & (act != np.floor(act)))
        k = int(frac[0]) if frac.size else int(np.flatnonzero(todo)[0]) if todo.any() else -1
        if k >= 0:
            raise ValueError(
                f"action {act[k]!r}{where(k)} is not an integer hold mask 0-7 ({act.dtype} array)"
            )
    if act.dtype == object or not np.issubdtype(act.dtype, np.integer):
        for i in np.flatnonzero(todo):
            check_action(act[i], legal, where(int(i)))
        act = np.where(todo, act, 0).astype(np.int64)  # every checked entry is an int
    act = act.astype(np.int64)
    inside = (act >= 0) & (act < NUM_ACTIONS)
    bad = ~inside
    bad[inside] = ~legal[act[inside]]
    bad &= todo
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise _illegal(int(act[j]), legal, where(j))
    return act


# ---- dice -------------------------------------------------------------------------------------------
def throw_index(faces: list[int] | tuple[int, ...]) -> int:
    """Throw index of up to three faces, missing digits as face 1: ``36*(d1-1) + 6*(d2-1) + (d3-1)``."""
    f = (*faces, 1, 1, 1)
    return 36 * f[0] + 6 * f[1] + f[2] - 43


@cache
def transition_table() -> np.ndarray:
    """``T[(m * 8 + hold) * 216 + t]``: the multiset after holding ``hold`` of ``m`` and throwing ``t``
    (:data:`TRANSITION`; built on first use and kept).

    The unheld dice take the throw's digits in order (first unheld die <- first digit); the digits
    beyond the unheld dice are ignored, so each outcome of ``k`` new dice appears ``6**(3-k)`` times
    among the 216 throws and counting throws gives exact probabilities (:func:`transition_probs`).
    """
    out = np.zeros((len(MULTISETS), NUM_ACTIONS, NUM_THROWS), np.int64)
    for m, dice in enumerate(MULTISETS):
        for hold in range(NUM_ACTIONS):
            kept = [dice[i] for i in KEPT[hold]]
            for t, throw in enumerate(THROWS):
                new = list(throw[: REROLLED[hold]])
                out[m, hold, t] = MULTISET_INDEX[tuple(sorted(kept + new))]
    flat = out.reshape(-1)
    flat.setflags(write=False)
    return flat


@cache
def transition_list() -> list[int]:
    """:data:`TRANSITION` as a Python list (:data:`TRANSITION_LIST`, the scalar engine's fast read)."""
    return transition_table().tolist()


@cache
def after_faces() -> list[dict[tuple[int, ...], int]]:
    """``AFTER[m * 8 + hold][faces]``: :data:`TRANSITION` keyed by the thrown faces of the unheld dice
    (:data:`AFTER`, the scalar read)."""
    flat = transition_list()
    out: list[dict[tuple[int, ...], int]] = [{} for _ in range(len(MULTISETS) * NUM_ACTIONS)]
    for i, row in enumerate(out):
        k = REROLLED[i % NUM_ACTIONS]
        for t, throw in enumerate(THROWS):
            row[throw[:k]] = flat[i * NUM_THROWS + t]
    return out


# The dice tables are built on first use (``import zanzibar_env`` builds none of them): the first read
# of ``kernel.TRANSITION`` calls its builder through the module ``__getattr__`` below, which binds the
# name, so later reads are plain attribute reads. The names and their types:
#: The dice transition table (flat read-only ``int64[56 * 8 * 216]``), see :func:`transition_table`.
TRANSITION: np.ndarray
#: The same table as a Python list (the scalar engine's fast read).
TRANSITION_LIST: list[int]
#: :data:`TRANSITION` keyed by the faces of the unheld dice, ``AFTER[m * 8 + hold][faces]``.
AFTER: list[dict[tuple[int, ...], int]]
_LAZY: dict[str, Callable[[], object]] = {
    "TRANSITION": transition_table,
    "TRANSITION_LIST": transition_list,
    "AFTER": after_faces,
}


def __getattr__(name: str) -> object:
    """Build a lazy table (:data:`TRANSITION`, :data:`TRANSITION_LIST`, :data:`AFTER`) on first read."""
    build = _LAZY.get(name)
    if build is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = build()
    return value


def roll(ms: Ix | int, hold: Ix | int, throw: Ix) -> Ix:
    """Multiset index after holding ``hold`` of multiset ``ms`` and throwing ``throw`` (ints or arrays)."""
    # take, not T[i]: docs/benchmarks.md#kernel-and-settlement
    return transition_table().take((ms * NUM_ACTIONS + hold) * NUM_THROWS + throw)


@cache
def transition_probs() -> tuple[np.ndarray, np.ndarray]:
    """``(P, p3)``, counted from :data:`TRANSITION`: ``P[m, a, m']`` = probability that mask ``a`` on
    multiset ``m`` gives ``m'`` (``float64[56, 8, 56]``; ``P[m, 7]`` is the identity) and ``p3[m']`` =
    probability that a throw of all three dice gives ``m'``."""
    n = len(MULTISETS)
    t = transition_table().reshape(n * NUM_ACTIONS, NUM_THROWS)
    counts = np.zeros((n * NUM_ACTIONS, n))
    np.add.at(counts, (np.arange(n * NUM_ACTIONS)[:, None], t), 1.0)
    p = (counts / NUM_THROWS).reshape(n, NUM_ACTIONS, n)
    p.setflags(write=False)
    p3 = p[0, 0].copy()
    p3.setflags(write=False)
    return p, p3


# ---- a turn -----------------------------------------------------------------------------------------
@per_ruleset
def ends_turn_at_once(ruleset: Ruleset) -> np.ndarray:
    """``bool[56]`` (read-only): multisets that end the turn (and the round) at once: the top hand when
    ``instant_zanzibar`` is on, nothing otherwise."""
    out = (ruleset.table.category_of_multiset == 0) & (ruleset.instant_zanzibar != "off")
    out.setflags(write=False)
    return out


def turn_limit(is_first: N | int, limit: N, max_rolls: int) -> N:
    """Rolls a player may use: the first roller ``max_rolls``, later players the round's ``limit``."""
    return limit + is_first * (max_rolls - limit)  # select(is_first, max_rolls, limit), spelled out


def turn_over(rolls_used: N, limit: N | int, instant: N | int) -> N:
    """The turn ends after the last allowed roll, or at once on an instant top hand."""
    over = rolls_used >= limit
    return over if instant is False else over | instant  # (``x | False`` is ``x``: one numpy call saved)


def limit_after_turn(is_first: N | int, rolls_used: N | int, limit: N, ruleset: Ruleset) -> N:
    """The round's roll limit after a turn: the first roller's rolls if it sets the limit, else unchanged."""
    return limit + (is_first & ruleset.first_roller_sets_limit) * (rolls_used - limit)  # select, spelled out


def round_over(turns_taken: N, active_players: N | int, instant: N | int) -> N:
    """The round ends when every active player has rolled, or at once on an instant top hand."""
    over = turns_taken >= active_players
    return over if instant is False else over | instant  # (``x | False`` is ``x``: one numpy call saved)


def best_after_roll(best_rank: N | int, best_ms: N | int, rank: N, ms: N, ruleset: Ruleset) -> tuple[N, N]:
    """The hand a turn would score if it stopped now, after a throw of multiset ``ms`` (rank ``rank``):
    the throw itself (``final_hand: last``), or the best throw of the turn so far (``best``; the earliest
    of equal ranks). ``best_rank`` is -1 before the turn's first throw. Returns ``(rank, multiset)``."""
    if ruleset.final_hand == "last":
        return rank, ms
    take = rank > best_rank
    return best_rank + take * (rank - best_rank), best_ms + take * (ms - best_ms)  # select, spelled out


# ---- the public state after each turn ---------------------------------------------------------------
def public_after_turn(
    lo: N, lo_count: N, lo_seat: N | int, hi: N, hi_seat: N, rank: N | int, seat: N | int
) -> tuple[N, N, N, N, N]:
    """What everyone knows after a turn that ended with a hand of ``rank`` by ``seat``.

    ``lo``/``hi``: ranks of the lowest and highest hands so far (``-1``: no hand yet), ``lo_count``: how
    many hands share the lowest rank, ``lo_seat``: the first seat that holds it, ``hi_seat``: the first
    seat that holds the highest (an equal later hand does not take it). Returns the five updated.
    """
    new_lo = (lo < 0) | (rank < lo)  # then: the new lowest, alone
    new_hi = rank > hi  # then: the new highest (an equal hand does not take it)
    count = lo_count + (rank == lo)
    return (  # each select(c, a, b) spelled out as b + c * (a - b): no call per value on Python ints
        lo + new_lo * (rank - lo),
        count + new_lo * (1 - count),
        lo_seat + new_lo * (seat - lo_seat),
        hi + new_hi * (rank - hi),
        hi_seat + new_hi * (seat - hi_seat),
    )


@per_ruleset
def own_hand_payment(ruleset: Ruleset) -> np.ndarray:
    """``int64[56]`` (read-only): what a hand adds to the round's "own-hand payments so far" (the sum
    every later player sees under ``payment: own_hand``; 0 under other payments)."""
    out = np.zeros(len(MULTISETS), np.int64)
    if ruleset.payment == "own_hand":
        out = chips_of_category(ruleset)[ruleset.table.category_of_multiset]
    out.setflags(write=False)
    return out


@per_ruleset
def chips_of_category(ruleset: Ruleset) -> np.ndarray:
    """``int64[4]`` (read-only): chips a hand of each category (index into ``table.categories``) pays."""
    out = np.array([ruleset.payment_of(c) for c in ruleset.table.categories], np.int64)
    out.setflags(write=False)
    return out


@per_ruleset
def lives_lost_by_rank(ruleset: Ruleset) -> np.ndarray:
    """``int64[num_ranks]`` (read-only): lives (penalty points) each loser loses, by the rank of the
    round's highest hand (``Ruleset.lives_by_rank``; RULES.md §7); zeros in chip rulesets."""
    out = np.zeros(ruleset.table.num_ranks, np.int64)
    if ruleset.stake != "chips":
        out[:] = ruleset.lives_by_rank
    out.setflags(write=False)
    return out


class ScalarTables:
    """The per-ruleset tables above as Python lists and tuples (the scalar engine's fast reads)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.legal = legal_actions(ruleset)
        self.legal_mask: list[bool] = legal_mask(ruleset.holds_allowed).tolist()
        self.instant: list[bool] = ends_turn_at_once(ruleset).tolist()
        self.own_payment: list[int] = own_hand_payment(ruleset).tolist()
        self.category: list[int] = ruleset.table.category_of_multiset.tolist()
        self.chips: list[int] = chips_of_category(ruleset).tolist()
        self.lives: list[int] = lives_lost_by_rank(ruleset).tolist()
        self.rank: list[int] = ruleset.table.rank_of_multiset.tolist()
        self.table = ruleset.table
        self.max_rolls = ruleset.max_rolls
        self.chip_stake = ruleset.stake == "chips"
        self.sets_limit = ruleset.first_roller_sets_limit
        self.best_of_turn = ruleset.final_hand == "best"  # else best_after_roll is the identity
        self.lives_stake = ruleset.stake == "lives"


scalar_tables = per_ruleset(ScalarTables)
