"""What a player sees of a round: :class:`View` (one decision), :class:`RoundSnapshot` (renderers), and
:func:`mask_from_keep` (a hold mask from the die values to keep). :mod:`~zanzibar_env.core.engine` builds
them and re-exports all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .hands import Hand
from .rules import Ruleset

__all__ = ["RoundSnapshot", "View", "mask_from_keep"]


class View(NamedTuple):
    """What the acting player knows at a decision (the same information as the env observation).

    Immutable; build it by keyword. ``stacks`` and ``active`` are relative to the acting seat: index
    0 is the acting seat, then clockwise. (A named tuple, not a frozen dataclass: built once per decision;
    ``docs/benchmarks.md``, "Scalar engine and single env".)
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
    #: rank of the hand the turn scores if the player stops now: the current dice under ``final_hand:
    #: last``, the best throw of the turn so far under ``best`` (RULES.md §9); -1 if unknown
    turn_best_rank: int = -1

    @property
    def hand(self) -> Hand:
        """The hand the current dice make."""
        return self.ruleset.table.score(self.dice)

    def _repr_svg_(self) -> str:
        """The table as this player sees it (notebooks show it; :func:`zanzibar_env.ui.svg.view_svg`)."""
        from .display import svg_of

        return svg_of(self)


@dataclass(frozen=True, slots=True)
class RoundSnapshot:
    """A read-only picture of a round in progress, for renderers and narrators (seats are absolute).

    ``hands`` maps each seat that has ended its turn to its hand; ``turn_rolls`` are the throws of the
    turn in progress (sorted dice, oldest first) and ``turn_actions`` the hold masks between them;
    ``lowest_seats`` share the lowest hand so far, in play order; ``highest_seat`` holds the highest
    (the earliest of equal hands).
    """

    ruleset: Ruleset
    num_players: int
    starting_seat: int
    order: tuple[int, ...]  # active seats in play order
    position: int  # index in ``order`` of the player to act (== len(order) when the round is over)
    current_seat: int | None
    dice: tuple[int, int, int]
    rolls_used: int
    turn_limit: int
    roll_limit: int
    turn_rolls: tuple[tuple[int, int, int], ...]
    turn_actions: tuple[int, ...]  # hold masks chosen so far in the turn in progress
    hands: dict[int, Hand]
    lowest_seats: tuple[int, ...]
    highest_seat: int | None
    earlier_payments: int
    stacks: tuple[int, ...]
    active: tuple[bool, ...]
    done: bool


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
