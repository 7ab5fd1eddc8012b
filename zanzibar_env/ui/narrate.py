"""Plain-English text for turns, rounds and games, shared by the play command, replays and ``ansi`` render.

Seats are named by a list ``names`` (``names[seat]``, e.g. ``["You", "Player 2", ...]``). Dice
positions shown to people are 1-3 over the dice sorted ascending, so position ``i`` is bit ``i - 1``
of a hold mask.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.engine import STOP
from ..core.hands import Hand
from ..core.records import GameRecord, RoundRecord, TurnRecord
from ..core.rules import Ruleset

YOU = "You"


def seat_names(num_players: int, you: int | None = None) -> list[str]:
    """``["Player 1", "Player 2", ...]``, with seat ``you`` (if given) named ``"You"``."""
    return [YOU if s == you else f"Player {s + 1}" for s in range(num_players)]


def possessive(name: str) -> str:
    """``"your"`` for ``"You"``, else ``"<name>'s"``."""
    return "your" if name == YOU else f"{name}'s"


def objective(name: str) -> str:
    """``"you"`` for ``"You"`` (as an object), else the name."""
    return "you" if name == YOU else name


def unit(rules: Ruleset, amount: int) -> str:
    """``"1 chip"``, ``"4 chips"``, ``"1 life"``, ``"2 lives"``."""
    if rules.stake == "lives":
        return f"{amount} {'life' if abs(amount) == 1 else 'lives'}"
    if rules.stake == "penalty":
        return f"{amount} penalty {'point' if abs(amount) == 1 else 'points'}"
    return f"{amount} {'chip' if abs(amount) == 1 else 'chips'}"


def dice_text(dice: Sequence[int]) -> str:
    """``"2-5-6"``."""
    return "-".join(str(d) for d in dice)


def join_names(names: Sequence[str]) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def hold_text(dice: Sequence[int], mask: int) -> str:
    """What a hold mask does to sorted ``dice``: ``"stops"``,``"rerolls all"``; ``"keeps 5 6, rerolls 1"``."""
    if mask == STOP:
        return "stops"
    if mask == 0:
        return "rerolls all"
    kept = [str(d) for i, d in enumerate(dice) if mask >> i & 1]
    n = len(dice) - len(kept)
    return f"keeps {' '.join(kept)}, rerolls {n}"


def hand_of(rules: Ruleset, dice: Sequence[int]) -> Hand:
    """The hand ``dice`` make under ``rules``."""
    return rules.table.score(tuple(dice))


def describe_turn(turn: TurnRecord, rules: Ruleset, names: Sequence[str]) -> str:
    """One line for a finished turn: each roll, each hold, and the final hand."""
    steps = []
    for i, roll in enumerate(turn.rolls):
        step = dice_text(roll)
        if i < len(turn.actions):
            step += f" ({hold_text(roll, turn.actions[i])})"
        steps.append(step)
    hand = hand_of(rules, turn.hand)
    n = len(turn.rolls)
    ending = ""
    if len(turn.actions) < n:  # the last roll was not followed by a decision
        instant = rules.instant_zanzibar != "off" and hand.category == "zanzibar"
        ending = " Zanzibar, ends the round!" if instant else " no rolls left"
    rolls = f"{n} roll{'s' if n != 1 else ''}"
    return f"{names[turn.seat]}: {' -> '.join(steps)}{ending} => {hand.describe()} in {rolls}"


def _hands(rec: RoundRecord, rules: Ruleset) -> dict[int, Hand]:
    return {t.seat: hand_of(rules, t.hand) for t in rec.turns}


def _loser_text(rec: RoundRecord, rules: Ruleset, names: Sequence[str], hands: dict[int, Hand]) -> str:
    worst = "lowest" if rules.stake == "chips" else "worst"
    losers = rec.losers
    if rec.rolloffs:
        tied = sorted(rec.rolloffs[0])
        hand = hands[tied[0]].describe()
        throws = "; ".join(
            ", ".join(f"{names[s]} {dice_text(d)}" for s, d in sorted(r.items())) for r in rec.rolloffs
        )
        return (
            f"{join_names([names[s] for s in tied])} tied for the {worst} hand, {hand}; "
            f"roll-off: {throws}; {names[losers[0]]} lost the roll-off"
        )
    if len(losers) == 1:
        return f"{names[losers[0]]} had the {worst} hand, {hands[losers[0]].describe()}"
    return f"{join_names([names[s] for s in losers])} tied for the {worst} hand {hands[losers[0]].describe()}"


def _payment_text(rec: RoundRecord, rules: Ruleset, names: Sequence[str], hands: dict[int, Hand]) -> str:
    losers = rec.losers
    them = join_names([objective(names[s]) for s in losers])
    if rules.stake != "chips":
        who = join_names([names[s] for s in losers])
        plural = len(losers) > 1 or who == YOU
        verb = (
            ("take" if plural else "takes") if rules.stake == "penalty" else ("lose" if plural else "loses")
        )
        each = "each " if len(losers) > 1 else ""
        return f"{objective(who)} {verb} {each}{unit(rules, rules.lives_lost_for(hands[rec.winner]))}"
    if rules.payment == "highest_hand":
        top = hands[rec.winner]
        amount = rules.payment_of(top.category)
        return (
            f"the highest was {possessive(names[rec.winner])} {top.describe()}, "
            f"so everyone else pays {them} {unit(rules, amount)}"
        )
    parts = [
        f"{names[s]} {rules.payment_of(h.category)} ({h.category.replace('_', ' ')} hand)"
        for s, h in sorted(hands.items())
        if s not in losers
    ]
    return f"everyone else pays {them} by their own hand: {', '.join(parts)}"


def describe_transfers(rec: RoundRecord, rules: Ruleset, names: Sequence[str]) -> str:
    """``"Chips: Player 3 +8; You -4, Player 2 -4."`` (only seats whose stack changed)."""
    word = {"lives": "Lives", "penalty": "Points"}.get(rules.stake, "Chips")
    moved = [f"{names[s]} {d:+d}" for s, d in enumerate(rec.transfers) if d]
    return f"{word}: {', '.join(moved) if moved else 'no change'}."


def describe_round(rec: RoundRecord, rules: Ruleset, names: Sequence[str]) -> list[str]:
    """Sentences saying who lost the round, who pays whom and why, and the resulting transfers."""
    hands = _hands(rec, rules)
    lines = []
    if rec.ended_by_zanzibar:
        z = rec.turns[-1].seat
        lines.append(f"{names[z]} rolled {hands[z].describe()}, which ends the round at once.")
    if not rec.losers:
        lines.append("Nobody loses this round.")
    else:
        prefix = "Of the others, " if rec.ended_by_zanzibar else ""
        why = _payment_text(rec, rules, names, hands)
        lines.append(f"{prefix}{_loser_text(rec, rules, names, hands)}; {why}.")
    lines.append(describe_transfers(rec, rules, names))
    return lines


def stacks_text(stacks: Sequence[int], rules: Ruleset, names: Sequence[str]) -> str:
    """``"You 18, Player 2 22 chips"``."""
    word = {"lives": "lives", "penalty": "points"}.get(rules.stake, "chips")
    return ", ".join(f"{names[s]} {c}" for s, c in enumerate(stacks)) + f" {word}"


def describe_result(record: GameRecord, names: Sequence[str]) -> str:
    """Who won the game (or that it was cut short)."""
    if record.winners:
        who = join_names([names[s] for s in record.winners])
        how = {"lives": "last one standing", "penalty": "fewest penalty points"}.get(
            str(record.ruleset.get("stake")), "out of chips first"
        )
        if who == YOU:
            return f"You win ({how}) after {len(record.rounds)} rounds!"
        verb = "win" if len(record.winners) > 1 else "wins"
        return f"{who} {verb} ({how}) after {len(record.rounds)} rounds."
    if record.truncated:
        return f"No winner: the game was stopped after {len(record.rounds)} rounds."
    return f"The game is unfinished after {len(record.rounds)} rounds."
