"""Full records of played rounds and games: every roll, hold, hand and transfer, saved as JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(slots=True)
class TurnRecord:
    """One player's turn: each roll's dice (sorted), the action after each decision, the final hand."""

    seat: int
    rolls: list[list[int]] = field(default_factory=list)  # sorted dice after each roll
    actions: list[int] = field(default_factory=list)  # hold mask after each decision (7 = stop)
    hand: list[int] = field(default_factory=list)
    category: str = ""
    rank: int = -1


@dataclass(slots=True)
class RoundRecord:
    """One round: who rolled what, the roll-offs, who lost, the transfers and the stacks after."""

    starting_seat: int
    stacks_before: list[int]
    roll_limit: int = 0
    turns: list[TurnRecord] = field(default_factory=list)
    rolloffs: list[dict[int, list[int]]] = field(default_factory=list)  # each: seat -> dice thrown
    losers: list[int] = field(default_factory=list)
    winner: int = -1  # the round's highest hand (first to reach it); rolls first next round
    transfers: list[int] = field(default_factory=list)  # change of each seat's stack this round
    stacks_after: list[int] = field(default_factory=list)
    ended_by_zanzibar: bool = False
    dice_drawn: list[int] = field(default_factory=list)  # every die thrown, in order (for replay)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["rolloffs"] = [{str(k): v for k, v in r.items()} for r in self.rolloffs]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RoundRecord:
        d = dict(d)
        d["turns"] = [TurnRecord(**t) for t in d.get("turns", [])]
        d["rolloffs"] = [{int(k): v for k, v in r.items()} for r in d.get("rolloffs", [])]
        return cls(**d)


@dataclass(slots=True)
class GameRecord:
    """A whole game: the ruleset options, the rounds, the final stacks and the winners."""

    ruleset: dict[str, Any]
    num_players: int
    first_seat: int
    seed: int | None = None
    rounds: list[RoundRecord] = field(default_factory=list)
    final_stacks: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["rounds"] = [r.to_dict() for r in self.rounds]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        d = dict(d)
        d["rounds"] = [RoundRecord.from_dict(r) for r in d.get("rounds", [])]
        return cls(**d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        return cls.from_dict(json.loads(text))

    def save(self, path: str | Path) -> None:
        """Append this game as one JSON line to ``path`` (a JSON-lines replay file)."""
        with Path(path).open("a") as f:
            f.write(self.to_json() + "\n")


def load_games(path: str | Path) -> list[GameRecord]:
    """Read every game from a JSON-lines file written by :meth:`GameRecord.save`."""
    p = Path(path)
    if not p.exists():
        raise ValueError(f"replay file not found: {p}")
    games = []
    for n, line in enumerate(p.read_text().splitlines(), 1):
        if line.strip():
            try:
                games.append(GameRecord.from_json(line))
            except (json.JSONDecodeError, TypeError, KeyError) as e:
                raise ValueError(f"{p}:{n}: not a game record: {e}") from None
    return games
