"""A round of Zanzibar with explicit chance nodes, over the rules kernel (no pyspiel here).

:class:`RoundMachine` keeps one table's public state as Python ints, as the scalar engine
(:class:`zanzibar_env.core.engine.RoundState`) does, but stops *before* every throw so that the dice
can come from outside: a chance node. Every rule is read from :mod:`zanzibar_env.core.kernel` (masks,
transitions, roll limits, turn and round over, the hand a turn scores, the public state after a turn)
and :mod:`zanzibar_env.core.settlement` (losers, roll-offs, payments, caps, lives); the order of the
calls is the engine's, and ``tests/envs/test_openspiel.py`` plays scripted rounds through both.

Chance outcomes (ids shared by both OpenSpiel games):

* a throw of ``k`` dice (1, 2 or 3) is the **multiset of the re-thrown dice**, id
  ``DICE_OUTCOMES.index(faces)`` with ``faces`` sorted ascending: ids 0-55 are the 56 multisets of
  three dice in :data:`zanzibar_env.core.hands.MULTISETS` order (so a full throw's id is its multiset
  index), 56-76 the 21 pairs, 77-82 the six single faces. Probabilities are counted over the kernel's
  216 ordered throws (:data:`zanzibar_env.core.hands.THROWS`), exactly as the kernel's
  :func:`~zanzibar_env.core.kernel.transition_probs` counts them;
* a roll-off (``tie_rule: rolloff``) is one chance node per round of throws that changes who is tied:
  id ``ROLLOFF_BASE + mask``, ``mask`` the seats (bit ``s`` = seat ``s``) still tied for lowest after
  it (one bit: that seat loses). A round of throws that leaves every tied seat tied again repeats
  (``settlement.rolloff``); the node's probabilities are conditioned on progress, which gives the
  same distribution of results and keeps the game tree finite and acyclic (OpenSpiel's value
  iteration expands chance nodes recursively).
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import numpy as np

from ...core import kernel as K
from ...core import settlement as S
from ...core.deprecated import warn_renamed
from ...core.hands import MULTISETS, THROWS
from ...core.rules import Ruleset

#: Sorted faces of every dice outcome, by id: 56 triples (``MULTISETS`` order), 21 pairs, 6 singles.
DICE_OUTCOMES: tuple[tuple[int, ...], ...] = (
    *MULTISETS,
    *sorted({tuple(sorted(t[:2])) for t in THROWS}),
    *((f,) for f in range(1, 7)),
)
DICE_OUTCOME_ID: dict[tuple[int, ...], int] = {f: i for i, f in enumerate(DICE_OUTCOMES)}
ROLLOFF_BASE = 128  # roll-off outcome ids: ROLLOFF_BASE + mask of the seats still tied (8 seats: < 256)
MAX_CHANCE_OUTCOMES = ROLLOFF_BASE + 256


@cache
def dice_outcomes(k: int) -> tuple[tuple[int, float], ...]:
    """``(id, probability)`` of a throw of ``k`` dice: counted over the kernel's 216 ordered throws."""
    counts = Counter(tuple(sorted(t[:k])) for t in THROWS)
    return tuple((DICE_OUTCOME_ID[f], c / len(THROWS)) for f, c in sorted(counts.items()))


@cache
def _dice_ids(k: int) -> frozenset[int]:
    return frozenset(i for i, _ in dice_outcomes(k))


@K.per_ruleset
def rank_probs(ruleset: Ruleset) -> np.ndarray:
    """``float64[num_ranks]``: probability that a throw of three dice has each rank (kernel's ``p3``)."""
    out = np.zeros(ruleset.table.num_ranks)
    np.add.at(out, ruleset.table.rank_of_multiset, K.transition_probs()[1])
    return out


def rolloff_outcomes(ruleset: Ruleset, tied_seats: tuple[int, ...]) -> list[tuple[int, float]]:
    """``(id, probability)`` of one round of roll-off throws by ``tied_seats`` that changes who is tied:
    each non-empty proper subset stays tied when its seats throw the lowest rank and the others higher
    (``settlement.rolloff``), conditioned on not all tying again."""
    p = rank_probs(ruleset)
    higher = p[::-1].cumsum()[::-1] - p  # P(rank > r)
    k = len(tied_seats)
    out = []
    for bits in range(1, (1 << k) - 1):
        j = bin(bits).count("1")
        mask = sum(1 << s for i, s in enumerate(tied_seats) if bits >> i & 1)
        out.append((ROLLOFF_BASE + mask, float((p**j * higher ** (k - j)).sum())))
    total = sum(q for _, q in out)  # = 1 - P(all tie again)
    return [(a, q / total) for a, q in out]


_FACES = tuple("".join(map(str, m)) for m in MULTISETS)  # each multiset as text, "116"


class _RollOff(Exception):
    """settlement.rolloff asked for throws: the round waits at a roll-off chance node."""


def _no_throw(tied: Any, multi: Any) -> list[Any]:
    raise _RollOff


class RoundMachine:
    """One round in progress; seats in play order from ``starting_seat``. Drive it with :meth:`apply`
    (a decision) and :meth:`chance` (an outcome id) while :attr:`done` is false.

    Between calls the round is at a decision of :attr:`current_seat` (``pending`` is ``None``), at a
    throw of ``pending[1]`` dice (``("dice", k)``), or at a roll-off (``("rolloff", tied seats)``).
    """

    def __init__(self, ruleset: Ruleset, stacks: list[int], starting_seat: int) -> None:
        tables = K.scalar_tables(ruleset)
        self.ruleset, self.tables, self.n = ruleset, tables, len(stacks)
        self.stacks_before, self.stacks = tuple(stacks), list(stacks)
        n = self.n
        seats = [(starting_seat + k) % n for k in range(n)]
        self.order = tuple(s for s in seats if not tables.lives_stake or stacks[s] > 0)
        self.pos, self.limit, self.paid = 0, ruleset.max_rolls, 0
        self.lo = self.lo_seat = self.hi = self.hi_seat = -1
        self.lo_count = 0
        self.hands: dict[int, int] = {}  # seat -> multiset of the hand it ended its turn with
        self.ranks: list[int] = []  # per ended turn, in play order
        self.cats: list[int] = []
        self.ms = self.best_ms = self.hold = 0
        self.best_rank = -1
        self.rolls_used, self.turn_limit = 0, ruleset.max_rolls
        self.done, self.winner = False, -1
        self.losers: tuple[int, ...] = ()
        self.pending: tuple[str, Any] | None = None
        self._start_turn()

    def copy(self) -> RoundMachine:
        new = RoundMachine.__new__(RoundMachine)
        new.__dict__ = self.__dict__.copy()
        new.stacks, new.hands = list(self.stacks), dict(self.hands)
        new.ranks, new.cats = list(self.ranks), list(self.cats)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> RoundMachine:  # (pyspiel clones states by deepcopy)
        return self.copy()

    @property
    def current_seat(self) -> int | None:
        """The seat to decide, ``None`` at a chance node or when the round is over."""
        return None if self.done or self.pending is not None else self.order[self.pos]

    # ---- moves ----------------------------------------------------------------------------------
    def apply(self, action: Any) -> None:
        """Apply a hold mask of the seat to decide (``ValueError`` if illegal or not a decision)."""
        if self.current_seat is None:
            raise ValueError(f"no decision to take here ({self.where()}); a hold mask cannot be applied")
        action = K.check_action(action, self.tables.legal_mask, f" of seat {self.current_seat}")
        if action == K.STOP:
            self._end_turn()
        else:
            self.hold, self.pending = action, ("dice", K.REROLLED[action])

    def act(self, action: Any) -> None:
        """Deprecated alias of :meth:`apply` (agents ``act``, states ``apply``); removed in the next release."""
        warn_renamed("RoundMachine.act", "RoundMachine.apply")
        self.apply(action)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome id, probability)`` at a chance node (``[]`` elsewhere)."""
        if self.pending is None:
            return []
        if self.pending[0] == "dice":
            return list(dice_outcomes(self.pending[1]))
        return rolloff_outcomes(self.ruleset, self.pending[1])

    def chance(self, outcome: Any) -> None:
        """Apply a chance outcome id (``ValueError`` if not one of :meth:`chance_outcomes`)."""
        pending = self.pending
        legal: Any = (
            _dice_ids(pending[1]) if pending and pending[0] == "dice" else dict(self.chance_outcomes())
        )
        if isinstance(outcome, bool) or not isinstance(outcome, (int, np.integer)) or outcome not in legal:
            raise ValueError(
                f"illegal chance outcome {outcome!r} ({self.where()}): the outcomes here are "
                f"{sorted(legal) if legal else 'none (not a chance node)'}"
            )
        assert self.pending is not None
        kind, self.pending = self.pending[0], None
        if kind == "dice":
            self._roll(DICE_OUTCOMES[int(outcome)])
        else:
            mask = int(outcome) - ROLLOFF_BASE
            self._resolve([bool(mask >> s & 1) for s in self.order])

    def where(self) -> str:
        """Where the round stands, in words (for error messages)."""
        if self.done:
            return "the round is over"
        if self.pending is None:
            return f"seat {self.order[self.pos]} to decide"
        if self.pending[0] == "dice":
            return f"seat {self.order[self.pos]} throws {self.pending[1]} dice"
        return f"roll-off between seats {list(self.pending[1])}"

    # ---- the turn (the engine's order of kernel calls) ------------------------------------------
    def _start_turn(self) -> None:
        self.turn_limit = K.turn_limit(self.pos == 0, self.limit, self.ruleset.max_rolls)
        self.rolls_used, self.best_rank, self.hold = 0, -1, 0
        self.pending = ("dice", 3)

    def _roll(self, faces: tuple[int, ...]) -> None:
        t = self.tables
        self.ms = ms = K.AFTER[self.ms * K.NUM_ACTIONS + self.hold][faces]
        self.rolls_used += 1
        self.best_rank, self.best_ms = K.best_after_roll(
            self.best_rank, self.best_ms, t.rank[ms], ms, self.ruleset
        )
        if K.turn_over(self.rolls_used, self.turn_limit, t.instant[ms]):
            self._end_turn()

    def _end_turn(self) -> None:
        t, seat, ms = self.tables, self.order[self.pos], self.best_ms
        rank = t.rank[ms]
        self.hands[seat] = ms
        self.ranks.append(rank)
        self.cats.append(t.category[ms])
        self.lo, self.lo_count, self.lo_seat, self.hi, self.hi_seat = K.public_after_turn(
            self.lo, self.lo_count, self.lo_seat, self.hi, self.hi_seat, rank, seat
        )
        self.paid += t.own_payment[ms]
        self.limit = K.limit_after_turn(self.pos == 0, self.rolls_used, self.limit, self.ruleset)
        self.pos += 1
        instant = t.instant[self.ms]
        if K.round_over(self.pos, len(self.order), instant):
            self._settle(instant)
        else:
            self._start_turn()

    # ---- settlement (settlement.py) --------------------------------------------------------------
    def _settle(self, instant: bool) -> None:
        n, ranks = len(self.order), self.ranks
        if len(ranks) < n:  # seats skipped by an instant top hand: no hand (as the engine)
            self.ranks = ranks + [-1] * (n - len(ranks))
            self.cats = self.cats + [0] * (n - len(self.cats))
        losers = S.round_losers(self.ruleset, self.ranks, self.lo, instant)
        if S.may_tie(self.lo_count, instant) and sum(losers) > 1:
            self._resolve(losers)
        else:
            self._pay(losers)

    def _resolve(self, tied: list[int]) -> None:
        try:
            self._pay(S.rolloff(self.ruleset, tied, _no_throw))
        except _RollOff:
            self.pending = ("rolloff", tuple(s for s, t in zip(self.order, tied, strict=True) if t))

    def _pay(self, losers: list[Any]) -> None:
        t, order, rules = self.tables, self.order, self.ruleset
        amounts = None
        if t.chip_stake:
            amounts = S.chip_amounts(rules, t.chips, self.cats, self.cats[order.index(self.hi_seat)])
        after = S.stacks_after(rules, [self.stacks[s] for s in order], losers, amounts, t.lives[self.hi])
        for s, a in zip(order, after, strict=True):
            self.stacks[s] = int(a)
        self.losers = tuple(s for s, lost in zip(order, losers, strict=True) if lost)
        self.winner, self.done = self.hi_seat, True

    # ---- reading it -----------------------------------------------------------------------------
    def transfers(self) -> list[int]:
        """Stack change of each seat (chips received, lives or points lost as negative/positive)."""
        return [a - b for a, b in zip(self.stacks, self.stacks_before, strict=True)]

    def key(self) -> str:
        """A sufficient description of the state: equal for states with the same future."""
        dice = _FACES[self.ms]
        hands = " ".join(f"{s}:{_FACES[m]}" for s, m in self.hands.items())
        return (
            f"stacks {list(self.stacks_before)} order {list(self.order)} pos {self.pos} limit {self.limit}"
            f" | hands [{hands}] | dice {dice} best {self.best_rank}/{self.best_ms} rolls"
            f" {self.rolls_used}/{self.turn_limit} | {self.where()}"
            + (f" hold {self.hold}" if self.pending and self.pending[0] == "dice" else "")
            + (f" | losers {list(self.losers)} stacks {self.stacks}" if self.done else "")
        )
