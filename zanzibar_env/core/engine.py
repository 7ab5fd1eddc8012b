"""The rules engine: a round as an explicit state machine (pure Python, no gymnasium, no torch).

A round runs every active seat clockwise from the starting seat. A turn is up to ``roll_limit`` rolls;
after each roll but the last the player chooses an action, a hold mask over the dice *sorted
ascending*: bit ``i`` keeps die ``i`` and the others are re-thrown; ``7`` (keep all) stops. Turns with
no choice are played without asking. After the last turn the round is settled (RULES.md).

Drive it with :meth:`RoundState.apply` while :attr:`RoundState.current_seat` is not ``None``.
"""

from __future__ import annotations

from functools import cache
from itertools import compress
from operator import sub
from types import MappingProxyType
from typing import Any

from . import kernel as K
from . import settlement as S
from .deprecated import warn_renamed
from .dice import DiceSource
from .hands import MULTISETS, Hand
from .kernel import (
    NUM_ACTIONS,
    STOP,
    best_after_roll,
    check_action,
    limit_after_turn,
    public_after_turn,
    round_over,
    turn_limit,
    turn_over,
)
from .kernel import REROLLED as _REROLLED
from .records import RoundRecord, TurnRecord
from .rules import MAX_PLAYERS, Ruleset
from .view import RoundSnapshot, View, mask_from_keep

__all__ = ["NUM_ACTIONS", "STOP", "RoundSnapshot", "RoundState", "View", "mask_from_keep"]

_new_view: Any = tuple.__new__
_NO_ACTIONS: frozenset[int] = frozenset()  # what a round that is over accepts (act raises)


class _RoundRules:
    """What a round reads of its ruleset, gathered once per ruleset (:func:`_round_rules`): the kernel's
    scalar tables (:class:`~zanzibar_env.core.kernel.ScalarTables`), the dice table keyed by faces
    (``kernel.AFTER``), per multiset what a turn that ends on it adds to the round (``end``: hand,
    category index, own-hand payment, rank, category name, dice), and the kernel's turn rules as tables
    indexed by their arguments (``turn_limits``, ``turn_ends``, ``limit_after``, ``round_ends``: each
    entry is the kernel function's value there). Nothing here is a rule: every value is read from the
    kernel."""

    __slots__ = (
        "after", "amounts", "best_of_turn", "chip_stake", "chips", "end", "instant", "legal", "legal_mask",
        "legal_set", "limit_after", "lives", "lives_stake", "losers", "max_rolls", "rank", "round_ends",
        "sets_limit", "stacks_after", "table", "turn_ends", "turn_limits",
    )  # fmt: skip  # packed: 22 slot names, one a line is 19 lines more

    def __init__(self, ruleset: Ruleset) -> None:
        k = K.scalar_tables(ruleset)
        self.after = K.after_faces()
        self.legal, self.legal_mask, self.instant, self.rank = k.legal, k.legal_mask, k.instant, k.rank
        self.legal_set = frozenset(k.legal)
        self.table, self.chips, self.lives, self.max_rolls = k.table, k.chips, k.lives, k.max_rolls
        self.chip_stake, self.lives_stake, self.sets_limit = k.chip_stake, k.lives_stake, k.sets_limit
        self.best_of_turn = k.best_of_turn
        # the settlement's rules for this ruleset (settlement.round_losers, chip_amounts, stacks_after)
        self.losers, self.amounts = S.losers_rule(ruleset), S.amounts_rule(ruleset)
        self.stacks_after = S.stacks_rule(ruleset)
        self.end = [
            (h, k.category[m], k.own_payment[m], h.rank, h.category, h.dice)
            for m, h in enumerate(k.table.hands)
        ]
        rolls, inst = range(k.max_rolls + 1), k.instant
        # turn_limits[is_first][limit], turn_ends[limit][rolls_used][ms], limit_after[is_first][rolls][limit],
        # round_ends[active players][turns taken][instant]
        self.turn_limits = [[turn_limit(f, lim, k.max_rolls) for lim in rolls] for f in (False, True)]
        self.turn_ends = [[[bool(turn_over(u, lim, i)) for i in inst] for u in rolls] for lim in rolls]
        self.limit_after = [
            [[limit_after_turn(f, u, lim, ruleset) for lim in rolls] for u in rolls] for f in (False, True)
        ]
        seats = range(MAX_PLAYERS + 1)
        self.round_ends = [[[bool(round_over(p, n, i)) for i in (False, True)] for p in seats] for n in seats]


_round_rules = K.per_ruleset(_RoundRules)


def _check_round_start(ruleset: Ruleset, stacks: list[int], starting_seat: int) -> None:
    """Raise ``ValueError`` unless a round can start from these stacks and this seat
    (``settlement.start_problem``)."""
    problem = S.start_problem(ruleset, stacks, starting_seat, whole_game=False)
    if problem is not None:
        raise ValueError(problem)


@cache
def _rotation(n: int, start: int) -> tuple[int, ...]:
    """The seats ``0..n-1`` in play order from ``start`` (every seat active)."""
    return tuple((start + k) % n for k in range(n))


class RoundState:
    """One round in progress. Create it, then call :meth:`act` while :attr:`current_seat` is set.

    Every rule comes from the kernel (:mod:`~zanzibar_env.core.kernel`,
    :mod:`~zanzibar_env.core.settlement`); this class keeps one table's state as Python ints and
    records the round. Its state is read through the documented read-only properties below and
    :meth:`snapshot`; everything with a leading underscore is private.
    """

    # slots: ~40 attributes, more than an instance dict shares keys for (30 in CPython 3.11); see
    # docs/benchmarks.md#scalar-engine-and-single-env
    __slots__ = (
        "_actions", "_active", "_after", "_best_ms", "_best_of_turn", "_best_rank", "_cats", "_draw",
        "_drawn", "_ends", "_hands", "_hi", "_hi_seat", "_instant", "_legal_now", "_limit", "_lo",
        "_lo_count", "_lo_seat", "_ms", "_n_order", "_order", "_paid", "_pos", "_rank", "_ranks",
        "_relative", "_round_ends", "_stacks", "_tables", "_turn_limit", "_turn_rolls", "_view_mid",
        "current_seat", "num_players", "record", "rolls_used", "ruleset", "source", "table",
    )  # fmt: skip  # packed: 40 slot names, one a line is 35 lines more
    _turn_rolls: list[list[int]]  # the turn in progress: its throws (sorted dice) and actions
    _actions: list[int]
    _view_mid: tuple[Any, ...] | None  # the view's fields fixed through a turn (None: not built yet)
    _best_rank: int

    def __init__(
        self,
        ruleset: Ruleset,
        stacks: list[int],
        starting_seat: int,
        dice: DiceSource,
        *,
        validate: bool = True,
    ) -> None:
        n = len(stacks)
        if validate:  # GameState passes validate=False for the rounds it starts itself
            _check_round_start(ruleset, stacks, starting_seat)
            stacks, starting_seat = [int(s) for s in stacks], int(starting_seat)  # numpy ints welcome
        t = self._tables = _round_rules(ruleset)
        self.ruleset, self.table, self.source, self.num_players = ruleset, t.table, dice, n
        self._draw = dice.roll
        # (every field given: no default factories to call)
        self.record = rec = RoundRecord(starting_seat, list(stacks), 0, [], [], [], -1, [], [], False, [])
        self._drawn = rec.dice_drawn
        self._stacks = list(stacks)
        if t.lives_stake:
            self._active = [s > 0 for s in stacks]
            self._order = tuple(
                (starting_seat + k) % n for k in range(n) if self._active[(starting_seat + k) % n]
            )
        else:
            self._active = [True] * n
            self._order = _rotation(n, starting_seat)
        self._n_order = len(self._order)
        self._round_ends = t.round_ends[self._n_order]
        self._legal_now, self._instant, self._rank, self._after = t.legal_set, t.instant, t.rank, t.after
        self._best_of_turn = t.best_of_turn
        self._pos = self._paid = self._lo_count = self._ms = self._best_ms = 0
        self._hands: dict[int, Hand] = {}
        self._relative: dict[int, tuple[tuple[int, ...], tuple[bool, ...]]] = {}  # seat -> view.stacks/active
        self._ranks: list[int] = []  # rank of each ended turn's hand, in play order
        self._cats: list[int] = []  # category index of each ended turn's hand, in play order
        # the public state after each turn (kernel.public_after_turn); -1 = no hand yet
        self._lo = self._lo_seat = self._hi = self._hi_seat = -1
        self._limit = ruleset.max_rolls  # the round's roll limit (set by the first roller)
        self.current_seat: int | None = None
        self.rolls_used = 0
        self._start_turn()  # sets the turn's fields: the seat, its limit, the hand it would score, ...

    # ---- public, read-only ------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.current_seat is None

    @property
    def dice(self) -> tuple[int, int, int]:
        """The current dice, sorted ascending."""
        return MULTISETS[self._ms]

    @property
    def dice_index(self) -> int:
        """Multiset index (``hands.MULTISETS``) of the current dice."""
        return self._ms

    @property
    def turn_best_rank(self) -> int:
        """Rank of the hand the turn scores if the player stops now (RULES.md §9; -1 between turns)."""
        return self._best_rank

    @property
    def turn_limit(self) -> int:
        """Rolls the current player may use (the first roller: ``max_rolls``; later: ``roll_limit``)."""
        return self._turn_limit

    @property
    def roll_limit(self) -> int:
        """The round's roll limit for later players (the first roller's rolls once it has ended its turn)."""
        return self._limit

    @property
    def position(self) -> int:
        """How many players have ended their turn this round (the acting player's index in :attr:`order`)."""
        return self._pos

    @property
    def order(self) -> tuple[int, ...]:
        """The active seats in play order, starting seat first."""
        return self._order

    @property
    def players_after(self) -> int:
        """Active players still to roll after the acting one."""
        return self._n_order - self._pos - 1

    @property
    def hands(self) -> MappingProxyType[int, Hand]:
        """Seat -> hand of every seat that has ended its turn this round (read-only)."""
        return MappingProxyType(self._hands)

    @property
    def lowest_rank(self) -> int:
        """Rank of the lowest hand so far (-1: none)."""
        return self._lo

    @property
    def lowest_count(self) -> int:
        """How many hands so far share the lowest rank."""
        return self._lo_count

    @property
    def lowest_seats(self) -> tuple[int, ...]:
        """Seats holding the lowest hand so far, in play order."""
        return tuple(s for s, h in self._hands.items() if h.rank == self._lo)

    @property
    def highest_rank(self) -> int:
        """Rank of the highest hand so far (-1: none)."""
        return self._hi

    @property
    def highest_seat(self) -> int | None:
        """Seat of the highest hand so far (the earliest of equal hands), ``None`` before the first."""
        return None if self._hi_seat < 0 else self._hi_seat

    @property
    def earlier_payments(self) -> int:
        """Sum of the own-hand payments of the players who have ended their turn (``payment: own_hand``)."""
        return self._paid

    @property
    def stacks(self) -> tuple[int, ...]:
        """Chips or lives per seat (after settlement once the round is over)."""
        return tuple(self._stacks)

    @property
    def active(self) -> tuple[bool, ...]:
        """Whether each seat plays this round."""
        return tuple(self._active)

    @property
    def turn_rolls(self) -> tuple[tuple[int, int, int], ...]:
        """The throws of the turn in progress (sorted dice), oldest first; empty when the round is over."""
        if self.current_seat is None:
            return ()
        return tuple(tuple(r) for r in self._turn_rolls)  # type: ignore[misc]  # three dice a throw

    @property
    def turn_actions(self) -> tuple[int, ...]:
        """The hold masks chosen so far in the turn in progress."""
        return tuple(self._actions) if self.current_seat is not None else ()

    def public_numbers(self) -> tuple[int, int, int, int, bool, int, int, int, int, int]:
        """The acting player's public state as the encoder reads it (``observation.Encoder.one``), in one
        call: ``(dice_index, turn_best_rank, rolls_used, turn_limit, is_first, players_after,
        lowest_rank, lowest_count, highest_rank, earlier_payments)``."""
        pos = self._pos
        return (
            self._ms,
            self._best_rank,
            self.rolls_used,
            self._turn_limit,
            pos == 0,
            self._n_order - pos - 1,
            self._lo,
            self._lo_count,
            self._hi,
            self._paid,
        )

    def snapshot(self) -> RoundSnapshot:
        """A frozen copy of the public state (for renderers; the env encoders read the properties)."""
        return RoundSnapshot(
            ruleset=self.ruleset, num_players=self.num_players, starting_seat=self.record.starting_seat,
            order=self._order, position=self._pos, current_seat=self.current_seat, dice=self.dice,
            rolls_used=self.rolls_used, turn_limit=self._turn_limit, roll_limit=self._limit,
            turn_rolls=self.turn_rolls,
            turn_actions=self.turn_actions, hands=dict(self._hands), lowest_seats=self.lowest_seats,
            highest_seat=self.highest_seat, earlier_payments=self._paid, stacks=self.stacks,
            active=self.active, done=self.done,
        )  # fmt: skip  # packed: one field a line is 12 lines more

    def legal_actions(self) -> list[int]:
        """Legal hold masks now: all 8, or only re-throw all (0) and stop (7) without holds."""
        return [] if self.done else list(self._tables.legal)

    def view(self) -> View:
        """The acting player's view (raises if the round is over)."""
        seat = self.current_seat
        if seat is None:
            raise RuntimeError("the round is over; start a new round")
        mid = self._view_mid  # the fields that stay the same through a turn, built at its first view
        if mid is None:
            mid = self._view_mid = self._turn_view_fields(seat)
        return _new_view(  # View(ruleset=..., ..., turn_best_rank=...) in field order, minus a call
            View,
            (
                self.ruleset,
                seat,
                self.num_players,
                MULTISETS[self._ms],
                self.rolls_used,
                *mid,
                self._best_rank,
            ),
        )

    def _turn_view_fields(self, seat: int) -> tuple[Any, ...]:
        """The view's fields ``roll_limit`` .. ``active`` (fixed through a turn)."""
        lo = self._hands[self._lo_seat] if self._lo >= 0 else None
        hi = self._hands[self._hi_seat] if self._hi >= 0 else None
        rel = self._relative.get(seat)  # stacks and flags seen from the seat: fixed until settlement
        if rel is None:
            st, act = self._stacks, self._active
            rel = self._relative[seat] = ((*st[seat:], *st[:seat]), (*act[seat:], *act[:seat]))
        pos = self._pos
        return (
            self._turn_limit,
            pos == 0,
            self._n_order - pos - 1,
            lo,
            self._lo_count,
            hi,
            self._paid,
            rel[0],
            rel[1],
        )

    def apply(self, action: Any) -> None:
        """Apply a hold mask for the current player (``ValueError`` if it is not legal)."""
        if type(action) is not int or action not in self._legal_now:  # (empty once the round is over)
            if self.current_seat is None:
                raise RuntimeError("the round is over; start a new round")
            action = check_action(action, self._tables.legal_mask)  # converts, or raises ValueError
        self._actions.append(action)
        if action == STOP:
            self._end_turn()
        else:
            self._roll(action)

    def act(self, action: Any) -> None:
        """Deprecated alias of :meth:`apply` (agents ``act``, states ``apply``); removed in the next release."""
        warn_renamed("RoundState.act", "RoundState.apply")
        self.apply(action)

    # ---- turn -----------------------------------------------------------------------------------
    def _start_turn(self) -> None:
        pos = self._pos
        self.current_seat = self._order[pos]
        self._turn_rolls, self._actions, self._view_mid = [], [], None
        t = self._tables
        self._turn_limit = limit = t.turn_limits[pos == 0][self._limit]  # kernel.turn_limit
        self._ends = t.turn_ends[limit]  # kernel.turn_over, by rolls used and multiset
        self.rolls_used = 0
        self._best_rank = -1
        self._roll(0)

    def _roll(self, hold: int) -> None:
        new = self._draw(_REROLLED[hold])
        self._drawn += new
        self._ms = ms = self._after[self._ms * 8 + hold][(*new,)]
        self.rolls_used = used = self.rolls_used + 1
        self._turn_rolls.append([*MULTISETS[ms]])
        if self._best_of_turn:
            self._best_rank, self._best_ms = best_after_roll(
                self._best_rank, self._best_ms, self._rank[ms], ms, self.ruleset
            )
        else:  # final_hand: last -- best_after_roll is the identity (rank and multiset of this throw)
            self._best_rank, self._best_ms = self._rank[ms], ms
        if self._ends[used][ms]:
            self._end_turn()

    def _end_turn(self) -> None:
        seat = self.current_seat
        assert seat is not None
        hand, cat, paying, rank, category, dice = self._tables.end[self._best_ms]
        self.record.turns.append(TurnRecord(seat, self._turn_rolls, self._actions, [*dice], category, rank))
        self._hands[seat] = hand
        self._ranks.append(rank)
        self._cats.append(cat)
        self._lo, self._lo_count, self._lo_seat, self._hi, self._hi_seat = public_after_turn(
            self._lo, self._lo_count, self._lo_seat, self._hi, self._hi_seat, rank, seat
        )
        self._paid += paying
        pos = self._pos
        self._limit = self._tables.limit_after[pos == 0][self.rolls_used][
            self._limit
        ]  # kernel.limit_after_turn
        self._pos = pos = pos + 1
        instant = self._instant[self._ms]
        if self._round_ends[pos][instant]:  # kernel.round_over
            self._settle(instant)
        else:
            self._start_turn()

    # ---- settlement (kernel: settlement.py) -------------------------------------------------------
    def _settle(self, instant: bool) -> None:
        self.current_seat, self._legal_now = None, _NO_ACTIONS
        rec, order, tables = self.record, self._order, self._tables
        rec.roll_limit = self._limit if tables.sets_limit else tables.max_rolls
        rec.ended_by_zanzibar = instant
        rec.winner = hi = self._hi_seat
        ranks, cats, n = self._ranks, self._cats, self._n_order
        if len(ranks) < n:  # seats skipped by an instant top hand: no hand, pay by the top hand (category 0)
            ranks, cats = ranks + [-1] * (n - len(ranks)), cats + [0] * (n - len(cats))
        losers = tables.losers(ranks, self._lo, instant)
        if S.may_tie(self._lo_count, instant) and sum(losers) > 1:  # else one loser: the lowest hand's seat
            losers = S.rolloff(self.ruleset, losers, self._rolloff_throws)
        rec.losers = list(compress(order, losers))
        stacks = self._stacks
        amounts = None
        if tables.chip_stake:
            amounts = tables.amounts(tables.chips, cats, cats[order.index(hi)])
        after = tables.stacks_after(
            list(map(stacks.__getitem__, order)), losers, amounts, tables.lives[self._hi]
        )
        for s, a in zip(order, after, strict=True):
            stacks[s] = a
        rec.transfers = list(map(sub, stacks, rec.stacks_before))
        rec.stacks_after = stacks[:]

    def _rolloff_throws(self, tied: list[Any], multi: Any) -> list[int]:
        """Each tied seat throws all three dice once, in play order (recorded); returns their ranks."""
        throws = {s: sorted(self.source.roll(3)) for s, t in zip(self._order, tied, strict=True) if t}
        for faces in throws.values():
            self.record.dice_drawn.extend(faces)
        self.record.rolloffs.append(throws)
        score = self.table.score
        return [score(throws[s]).rank if s in throws else -1 for s in self._order]
