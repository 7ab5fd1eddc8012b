"""The table as plain text: :func:`snapshot` (what any picture shows) and :func:`render_ansi`; no Pillow.

``render_mode="ansi"`` of the envs uses this module alone, so it works without the ``[ui]`` extra's
Pillow. Text that comes from a ruleset or a record (a ruleset's name, say) reaches a terminal only
through :func:`printable`, which drops control characters (escape codes included).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.engine import STOP, RoundSnapshot, RoundState, mask_from_keep
from ..core.game import GameState
from .narrate import describe_result, describe_round, seat_names

#: C0 controls but tab and newline, DEL and C1 controls (an 8-bit CSI included): what a terminal acts on
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` without control characters (escape codes, bells, carriage returns); tabs and newlines kept."""
    return _CONTROL.sub("", text)


@dataclass(frozen=True)
class PlayerRow:
    """One line of the players' table."""

    name: str
    stack: int
    active: bool  # still in the game (lives rulesets)
    to_act: bool  # it is this player's turn
    highlight: bool  # the highlighted seat (the agent's)
    note: str  # hand this round, "rolling", "out" or ""


@dataclass(frozen=True)
class Snapshot:
    """Everything the pictures show, as text and numbers."""

    title: str
    status: str
    over: bool
    actor: str
    dice: tuple[int, int, int]  # sorted ascending, shown as positions 1-3
    held: int  # hold mask that produced these dice (bit i = die i was kept)
    rolls_used: int
    roll_limit: int
    hand: str
    lowest: str
    highest: str
    stake: str  # "Chips" or "Lives"
    players: tuple[PlayerRow, ...]
    last_round: tuple[str, ...]


def held_mask(rnd: RoundSnapshot | RoundState) -> int:
    """Which of the current (sorted) dice were kept from the previous roll of this turn (0 if none)."""
    rolls, actions = rnd.turn_rolls, rnd.turn_actions
    if rnd.done or not actions or len(rolls) < 2:
        return 0
    last = actions[-1]
    if last == STOP:
        return 0
    kept = [d for i, d in enumerate(rolls[-2]) if last >> i & 1]
    return mask_from_keep(rnd.dice, kept)


def _note(rnd: RoundSnapshot, seat: int) -> str:
    if seat in rnd.hands:
        return rnd.hands[seat].describe()
    if not rnd.active[seat]:
        return "out"
    return "rolling" if seat == rnd.current_seat else ""


def snapshot(game: GameState, seat: int | None = None) -> Snapshot:
    """Collect what the pictures show from a game in progress or finished."""
    if seat is not None and not 0 <= seat < game.num_players:
        raise ValueError(f"seat must be 0-{game.num_players - 1} or None, got {seat!r}")
    rnd, rules, rec = game.round.snapshot(), game.ruleset, game.record
    names = seat_names(game.num_players)
    over = game.done
    n_round = len(rec.rounds) + (0 if rnd.done else 1)
    cur = rnd.current_seat
    stacks = rec.final_stacks if over else rnd.stacks
    rows = tuple(
        PlayerRow(
            name=names[s] + (" (agent)" if s == seat else ""),
            stack=stacks[s],
            active=stacks[s] > 0 or rules.stake != "lives",
            to_act=s == cur,
            highlight=s == seat,
            note=_note(rnd, s) if not over else "",
        )
        for s in range(game.num_players)
    )
    last = describe_round(rec.rounds[-1], rules, names) if rec.rounds else ["(none yet)"]
    low = rnd.lowest_seats[0] if rnd.lowest_seats and not rnd.done else None
    lo = f"{names[low]}: {rnd.hands[low].describe()}" if low is not None else ""
    top = rnd.highest_seat
    hi = f"{names[top]}: {rnd.hands[top].describe()}" if top is not None else ""
    turns = game.round.record.turns
    last_turn = turns[-1].seat if turns else rnd.starting_seat
    return Snapshot(
        title=f"Zanzibar - {printable(rules.name)} - round {n_round}",
        status=describe_result(rec, names) if over else f"{names[cur]} to play" if cur is not None else "",
        over=over,
        actor=f"{names[cur]}'s dice" if cur is not None else f"{names[last_turn]}'s last roll",
        dice=rnd.dice,
        held=held_mask(rnd),
        rolls_used=rnd.rolls_used,
        roll_limit=rnd.turn_limit if not rnd.done else rnd.rolls_used,
        hand=rules.table.score(rnd.dice).describe() if all(rnd.dice) else "",
        lowest=lo,
        highest=hi if not rnd.done else "",
        stake="Lives" if rules.stake == "lives" else "Chips",
        players=rows,
        last_round=tuple(last),
    )


def render_ansi(game: GameState, seat: int | None = None) -> str:
    """The table as plain text (no escape codes): dice with held ones starred, players, last round."""
    s = snapshot(game, seat)
    dice = "  ".join(f"[{i + 1}] {d}{'*' if s.held >> i & 1 else ' '}" for i, d in enumerate(s.dice))
    lines = [f"{s.title} | {s.status}"]
    lines.append(f"{s.actor}: {dice}  => {s.hand}   (roll {s.rolls_used} of {s.roll_limit}; * = held)")
    if s.lowest:
        lines.append(f"To beat (lowest so far): {s.lowest}")
    if s.highest:
        lines.append(f"Highest so far: {s.highest}")
    width = max(len(p.name) for p in s.players)
    for p in s.players:
        mark = ">" if p.to_act else " "
        lines.append(f" {mark} {p.name:<{width}}  {p.stack:>4} {s.stake.lower()}  {p.note}".rstrip())
    lines.append("Last round: " + " ".join(s.last_round))
    return printable("\n".join(lines) + "\n")
