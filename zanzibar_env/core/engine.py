"""The rules engine: a round as an explicit state machine (pure Python, no gymnasium, no torch).

A round runs every active seat clockwise from the starting seat. A turn is up to ``roll_limit`` rolls;
after each roll but the last the player chooses an action, a hold mask over the dice *sorted
ascending*: bit ``i`` keeps die ``i`` and the others are re-thrown; ``7`` (keep all) stops. Turns with
no choice are played without asking. After the last turn the round is settled (RULES.md).

Drive it with :meth:`RoundState.act` while :attr:`RoundState.current_seat` is not ``None``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from .dice import DiceSource
from .hands import MULTISET_INDEX, Hand
from .records import RoundRecord, TurnRecord
from .rules import Ruleset

STOP = 7  # the action "keep all dice and stop"
NUM_ACTIONS = 8
#: Indices of the sorted dice each hold mask keeps (bit i keeps die i).
_KEPT = tuple(tuple(i for i in range(3) if mask >> i & 1) for mask in range(NUM_ACTIONS))


@dataclass(frozen=True, slots=True)
class View:
    """What the acting player knows at a decision (the same information as the env observation).

    ``stacks`` and ``active`` are relative to the acting seat: index 0 is the acting seat, then
    clockwise.
    """

    ruleset: Ruleset
    seat: int
    num_players: int
    dice: tuple[int, int, int]  # sorted ascending
    rolls_used: int  # 1..roll_limit
    roll_limit: int  # rolls this player may use this turn
    is_first: bool  # this player rolls first this round
    players_after: int  # active players still to roll after this one
    lowest: Hand | None  # lowest hand among earlier players this round
    lowest_count: int  # how many earlier players share it
    highest: Hand | None  # highest hand among earlier players this round
    earlier_payments: int  # sum of own-hand payments of earlier players (alt_chips)
    stacks: tuple[int, ...]  # chips or lives, relative to the acting seat
    active: tuple[bool, ...]  # still in the game, relative to the acting seat

    @property
    def hand(self) -> Hand:
        """The hand the current dice make."""
        return self.ruleset.table.score(self.dice)


def mask_from_keep(dice: tuple[int, ...], keep: list[int] | tuple[int, ...]) -> int:
    """The hold mask that keeps the die *values* in ``keep`` (e.g. keep ``[6, 6]`` of ``(2, 6, 6)``)."""
    mask, used = 0, [False] * len(dice)
    for value in keep:
        for i, d in enumerate(dice):
            if d == value and not used[i]:
                used[i] = True
                mask |= 1 << i
                break
        else:
            raise ValueError(f"cannot hold a {value}: no such unheld die in {tuple(dice)}")
    return mask


def _check_round_start(ruleset: Ruleset, stacks: list[int], starting_seat: int) -> None:
    """Raise ``ValueError`` unless a round can start from these stacks and this seat."""
    n = len(stacks)
    if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in stacks):
        raise ValueError(f"stacks must be non-negative integers, got {list(stacks)!r}")
    if not 0 <= starting_seat < n or (stacks[starting_seat] <= 0 and ruleset.stake == "lives"):
        raise ValueError(f"starting seat {starting_seat} is not an active seat of {n}")
    if ruleset.stake == "lives" and sum(s > 0 for s in stacks) < 2:
        raise ValueError(f"a lives round needs two or more players with lives left, got {list(stacks)!r}")


class RoundState:
    """One round in progress. Create it, then call :meth:`act` while :attr:`current_seat` is set."""

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
        self.ruleset = ruleset
        self.table = ruleset.table
        self.source = dice
        self.num_players = n
        self.active = [s > 0 for s in stacks] if ruleset.stake == "lives" else [True] * n
        self.order = [(starting_seat + k) % n for k in range(n) if self.active[(starting_seat + k) % n]]
        self.record = RoundRecord(starting_seat=starting_seat, stacks_before=list(stacks))
        self.stacks = list(stacks)
        self.roll_limit = ruleset.max_rolls
        self._legal = tuple(range(NUM_ACTIONS)) if ruleset.holds_allowed else (0, STOP)
        self._instant = ruleset.instant_zanzibar != "off"
        self._own_hand = ruleset.payment == "own_hand"
        self._sets_limit = ruleset.first_roller_sets_limit
        self.pos = 0
        self.hands: dict[int, Hand] = {}
        self.lowest: list[int] = []  # seats sharing the lowest hand so far
        self.highest: int | None = None  # seat of the highest hand so far (earliest keeps ties)
        self.earlier_payments = 0
        self.current_seat: int | None = None
        self.dice: tuple[int, int, int] = (0, 0, 0)
        self.rolls_used = 0
        self._turn_limit = ruleset.max_rolls
        self._turn: TurnRecord | None = None
        self._start_turn()

    # ---- public ---------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.current_seat is None

    @property
    def turn_limit(self) -> int:
        """Rolls the current player may use (the first roller: ``max_rolls``; later: ``roll_limit``)."""
        return self._turn_limit

    def legal_actions(self) -> list[int]:
        """Legal hold masks now: all 8, or only re-throw all (0) and stop (7) without holds."""
        return [] if self.done else list(self._legal)

    def view(self) -> View:
        """The acting player's view (raises if the round is over)."""
        seat = self._require_seat()
        n = self.num_players
        lo = self.hands[self.lowest[0]] if self.lowest else None
        hi = self.hands[self.highest] if self.highest is not None else None
        pos = self.pos
        return View(  # positional, in field order: the hot path of every bot decision
            self.ruleset, seat, n, self.dice, self.rolls_used, self._turn_limit, pos == 0,
            len(self.order) - pos - 1, lo, len(self.lowest), hi, self.earlier_payments,
            (*self.stacks[seat:], *self.stacks[:seat]), (*self.active[seat:], *self.active[:seat]),
        )  # fmt: skip

    def act(self, action: int) -> None:
        """Apply a hold mask for the current player (``ValueError`` if it is not legal)."""
        self._require_seat()
        if type(action) is not int:  # plain ints skip the checks below
            if isinstance(action, bool) or not hasattr(action, "__index__"):
                raise ValueError(f"action must be an integer hold mask 0-7, got {action!r}")
            action = operator.index(action)
        if action not in self._legal:
            raise ValueError(
                f"illegal action {action}: legal hold masks are {list(self._legal)} "
                "(bit i keeps sorted die i; 7 stops)"
            )
        assert self._turn is not None
        self._turn.actions.append(action)
        if action == STOP:
            self._end_turn()
        else:
            dice = self.dice
            self._roll(tuple(dice[i] for i in _KEPT[action]))

    # ---- turn -----------------------------------------------------------------------------------
    def _hand(self, sorted_dice: tuple[int, ...]) -> Hand:
        """The hand of dice already sorted and checked (the table lookup, without re-validation)."""
        return self.table.hands[MULTISET_INDEX[sorted_dice]]  # type: ignore[index]

    def _require_seat(self) -> int:
        if self.current_seat is None:
            raise RuntimeError("the round is over; start a new round")
        return self.current_seat

    def _start_turn(self) -> None:
        self.current_seat = self.order[self.pos]
        self._turn = TurnRecord(seat=self.current_seat)
        self._turn_limit = self.ruleset.max_rolls if self.pos == 0 else self.roll_limit
        self.rolls_used = 0
        self._roll(())

    def _roll(self, keep: tuple[int, ...]) -> None:
        new = self.source.roll(3 - len(keep))
        self.record.dice_drawn.extend(new)
        a, b, c = sorted((*keep, *new))
        self.dice = dice = (a, b, c)
        self.rolls_used += 1
        self._turn.rolls.append([a, b, c])  # type: ignore[union-attr]
        instant = self._instant and self._hand(dice).category == "zanzibar"
        if instant or self.rolls_used >= self._turn_limit:
            self._end_turn()

    def _end_turn(self) -> None:
        seat, turn = self.current_seat, self._turn
        assert seat is not None and turn is not None
        hand = self._hand(self.dice)
        turn.hand, turn.category, turn.rank = list(self.dice), hand.category, hand.rank
        self.record.turns.append(turn)
        self.hands[seat] = hand
        rank = hand.rank  # same table: compare ranks directly
        if not self.lowest or rank < self.hands[self.lowest[0]].rank:
            self.lowest = [seat]
        elif rank == self.hands[self.lowest[0]].rank:
            self.lowest.append(seat)
        if self.highest is None or rank > self.hands[self.highest].rank:
            self.highest = seat
        if self._own_hand:
            self.earlier_payments += self.ruleset.payment_of(hand.category)
        if self.pos == 0 and self._sets_limit:
            self.roll_limit = self.rolls_used
        self.pos += 1
        if self._instant and hand.category == "zanzibar":
            self._settle(instant_by=seat)
        elif self.pos == len(self.order):
            self._settle()
        else:
            self._start_turn()

    # ---- settlement -----------------------------------------------------------------------------
    def _settle(self, instant_by: int | None = None) -> None:
        self.current_seat, self._turn = None, None
        rec = self.record
        rec.roll_limit = self.roll_limit if self.ruleset.first_roller_sets_limit else self.ruleset.max_rolls
        rec.ended_by_zanzibar = instant_by is not None
        assert self.highest is not None
        rec.winner = self.highest
        rec.losers = self._losers(instant_by)
        before = list(self.stacks)
        if self.ruleset.stake == "lives":
            for s in rec.losers:
                self.stacks[s] = max(0, self.stacks[s] - self.ruleset.lives_lost)
        else:
            self._pay_chips(rec.losers)
        rec.transfers = [a - b for a, b in zip(self.stacks, before, strict=True)]
        rec.stacks_after = list(self.stacks)

    def _losers(self, instant_by: int | None) -> list[int]:
        if instant_by is not None:
            if self.ruleset.instant_zanzibar == "no_loss":
                return []
            others = [s for s in self.hands if s != instant_by]
            if not others:
                return []
            worst = min(self.hands[s] for s in others)
            tied = [s for s in others if self.hands[s] == worst]
        else:
            tied = list(self.lowest)
        if len(tied) == 1 or self.ruleset.tie_rule == "all":
            return tied
        return [self._rolloff(tied)]

    def _rolloff(self, tied: list[int]) -> int:
        """Tied players each throw all three dice once more, repeated while still tied for lowest."""
        while len(tied) > 1:
            throws = {s: sorted(self.source.roll(3)) for s in tied}
            for faces in throws.values():
                self.record.dice_drawn.extend(faces)
            self.record.rolloffs.append(throws)
            hands = {s: self._hand(tuple(d)) for s, d in throws.items()}
            worst = min(hands.values())
            tied = [s for s in tied if hands[s] == worst]
        return tied[0]

    def _pay_chips(self, losers: list[int]) -> None:
        """Each loser receives from each other player; a payer gives at most what they hold."""
        hi_cat = self.hands[self.highest].category if self.highest is not None else "points"
        for loser in losers:
            for s in self.order:
                if s in losers:
                    continue
                cat = hi_cat if self.ruleset.payment == "highest_hand" else self.hands[s].category
                amount = min(self.ruleset.payment_of(cat), self.stacks[s])
                self.stacks[s] -= amount
                self.stacks[loser] += amount
