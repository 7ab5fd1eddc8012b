"""Full records of played rounds and games: every roll, hold, hand and transfer, saved as JSON.

A record written today is format 2 (:data:`~zanzibar_env.core.provenance.RECORD_FORMAT`): beside the
ruleset's options it carries ``format``, ``engine`` (the package version that played it) and
``ruleset_sha256`` (the options' digest, :func:`~zanzibar_env.core.provenance.ruleset_digest`). Records
of format 1 (no such keys, written before versions were stamped) still load; a replay that does not
reproduce one says which format and version it came from.
"""

from __future__ import annotations

import json
import operator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .provenance import RECORD_FORMAT, check_format, engine_version, is_engine_version, ruleset_digest
from .safe_io import atomic_write_text, check_writable_dir


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
        turns, rolloffs = d.get("turns", []), d.get("rolloffs", [])
        if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
            raise ValueError("turns must be a list of objects")
        if not isinstance(rolloffs, list) or not all(isinstance(r, dict) for r in rolloffs):
            raise ValueError("rolloffs must be a list of objects")
        d["turns"] = [TurnRecord(**t) for t in turns]
        d["rolloffs"] = [{int(k): v for k, v in r.items()} for r in rolloffs]
        return cls(**d)

    def _repr_svg_(self) -> str:
        """The round as a picture (notebooks show it; :func:`zanzibar_env.ui.svg.round_svg`)."""
        from .display import svg_of

        return svg_of(self)


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
    format: int = RECORD_FORMAT  # 1: read from a file written before records were stamped
    engine: str = field(default_factory=engine_version)  # "" in a format-1 record
    ruleset_sha256: str = ""  # as read from the file; written from the options (ruleset_digest)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["rounds"] = [r.to_dict() for r in self.rounds]
        if self.format == 1:  # written back as it was read
            for key in ("format", "engine", "ruleset_sha256"):
                del d[key]
        else:
            d["ruleset_sha256"] = self.ruleset_sha256 or (
                ruleset_digest(self.ruleset) if isinstance(self.ruleset, dict) else ""
            )
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        d = dict(d)
        rounds = d.get("rounds", [])
        if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
            raise ValueError("rounds must be a list of objects")
        d["rounds"] = [RoundRecord.from_dict(r) for r in rounds]
        _read_stamp(d)
        return cls(**d)

    def _repr_svg_(self) -> str:
        """The finished table as a picture (notebooks show it; :func:`zanzibar_env.ui.svg.record_svg`)."""
        from .display import svg_of

        return svg_of(self)

    def game_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` without the stamp (format, engine, digest): what the game itself was."""
        d = self.to_dict()
        for key in ("format", "engine", "ruleset_sha256"):
            d.pop(key, None)
        return d

    def to_json(self) -> str:
        """One line of JSON (numpy integers, e.g. a numpy seed, are written as plain integers)."""
        return json.dumps(self.to_dict(), default=_plain_number)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        return cls.from_dict(json.loads(text))

    def save(self, path: str | Path) -> None:
        """Append this game as one JSON line to ``path`` (a JSON-lines replay file).

        ``ValueError`` (and nothing written) if ``path`` is not a replay file or cannot be one (see
        :func:`check_replay_file`); the file is rewritten atomically, never left half-written.
        """
        p = check_replay_file(path)
        old = p.read_text(encoding="utf-8") if p.exists() else ""
        if old and not old.endswith("\n"):
            old += "\n"
        atomic_write_text(p, old + self.to_json() + "\n")


def _read_stamp(d: dict[str, Any]) -> None:
    """Check a record's ``format`` / ``engine`` / ``ruleset_sha256`` in place (format 1: none of them)."""
    if "format" not in d:
        extra = sorted({"engine", "ruleset_sha256"} & set(d))
        if extra:
            raise ValueError(f"{extra} without 'format': a record of format {RECORD_FORMAT} names its format")
        d.update(format=1, engine="", ruleset_sha256="")
        return
    fmt = check_format("record", d["format"], d.get("engine"), RECORD_FORMAT)
    if fmt < 2:
        raise ValueError(f"a record of format {fmt} has no 'format' key; this one says {fmt!r}")
    if not is_engine_version(d.get("engine")):
        raise ValueError(f"engine must read 'zanzibar-env VERSION', got {d.get('engine')!r}")
    sha = d.get("ruleset_sha256")
    if not isinstance(sha, str) or len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise ValueError(f"ruleset_sha256 must be 64 hexadecimal digits, got {str(sha)[:80]!r}")


def _plain_number(value: Any) -> Any:
    try:
        return operator.index(value)  # numpy integers
    except TypeError:
        raise TypeError(f"{type(value).__name__} is not JSON serializable") from None


def check_replay_file(path: str | Path) -> Path:
    """``path`` if a game may be appended there: a new file in an existing directory, or an existing
    JSON-lines file of game records; else ``ValueError`` (checked before a game is played)."""
    try:
        return _check_replay_file(Path(path), str(path))
    except OSError as e:  # e.g. a name too long for the file system
        raise ValueError(f"cannot save to {str(path)[:200]!r}: {e.strerror or type(e).__name__}") from None


def _check_replay_file(p: Path, path: str) -> Path:
    if path == "" or "\x00" in path:
        raise ValueError(f"{path!r} is not a usable file name")
    if p.is_dir():
        raise ValueError(f"{str(path)!r} is a directory, not a replay file")
    if not p.parent.is_dir():
        raise ValueError(f"cannot save to {str(path)!r}: directory {str(p.parent)!r} does not exist")
    if p.exists():
        load_games(p)  # refuses anything that is not a replay file, e.g. a YAML ruleset
    check_writable_dir(p.parent, what=f"cannot save to {str(path)!r}: directory")
    return p


def load_games(path: str | Path) -> list[GameRecord]:
    """Read every game from a JSON-lines file written by :meth:`GameRecord.save` (``ValueError`` with
    the file and line for anything that is not one)."""
    try:
        return _load_games(Path(path))
    except OSError as e:  # e.g. a name too long for the file system, or no permission
        raise ValueError(f"cannot read {str(path)[:200]!r}: {e.strerror or type(e).__name__}") from None


def read_games(path: str | Path) -> tuple[list[GameRecord | None], list[str]]:
    """Every record line of a replay file, the good ones kept: ``(games, problems)``, ``games[k]`` the
    ``k``-th non-empty line's game or ``None`` where that line is not one, ``problems`` one line per bad
    record naming the file and line. One bad record (a float seed, a cut-off line) costs only itself;
    a file that cannot be read at all is still a ``ValueError``."""
    try:
        text = _read_text(Path(path))
    except OSError as e:
        raise ValueError(f"cannot read {str(path)[:200]!r}: {e.strerror or type(e).__name__}") from None
    games: list[GameRecord | None] = []
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                games.append(_parse_line(line, f"{path}:{n}"))
            except ValueError as e:
                games.append(None)
                problems.append(str(e))
    return games, problems


def _read_text(p: Path) -> str:
    if not p.exists():
        raise ValueError(f"replay file not found: {p}")
    if not p.is_file():
        raise ValueError(f"{p} is not a file")
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{p}: not a readable text file ({type(e).__name__})") from None


def _load_games(p: Path) -> list[GameRecord]:
    if not p.exists():
        raise ValueError(f"replay file not found: {p}")
    if not p.is_file():
        raise ValueError(f"{p} is not a file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{p}: not a readable text file ({type(e).__name__})") from None
    games = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            games.append(_parse_line(line, f"{p}:{n}"))
    return games


def _parse_line(line: str, where: str) -> GameRecord:
    """One game from a JSON line, its structure checked (``ValueError`` naming the line otherwise)."""
    try:
        data = json.loads(line)
        if not isinstance(data, dict):
            raise TypeError(f"expected a JSON object, got {type(data).__name__}")
        return check_record(GameRecord.from_dict(data))
    except RecursionError:
        raise ValueError(f"{where}: not a game record: nested too deeply") from None
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        reason = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        raise ValueError(f"{where}: not a game record: {reason}") from None


def _ints(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> None:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ValueError(f"{what} must be a list of integers")
    if any((lo is not None and v < lo) or (hi is not None and v > hi) for v in value):
        raise ValueError(f"{what} must hold integers in {lo}..{hi}")


def check_record(rec: GameRecord) -> GameRecord:
    """``rec`` if its fields have the right types and its seats exist; ``ValueError`` otherwise."""
    n = rec.num_players
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 8:
        raise ValueError(f"num_players must be 2-8, got {n!r}")
    if not isinstance(rec.ruleset, dict):
        raise ValueError("ruleset must be a mapping of options")
    if rec.seed is not None and (not isinstance(rec.seed, int) or isinstance(rec.seed, bool)):
        raise ValueError(f"seed must be null or an integer, got {rec.seed!r}")
    _ints([rec.first_seat], "first_seat", 0, n - 1)
    if not isinstance(rec.truncated, bool):
        raise ValueError(f"truncated must be true or false, got {rec.truncated!r}")
    _ints(rec.final_stacks, "final_stacks")
    _ints(rec.winners, "winners", 0, n - 1)
    for k, r in enumerate(rec.rounds, 1):
        _ints([r.starting_seat, *r.losers], f"round {k}: seats", 0, n - 1)
        _ints(r.stacks_before, f"round {k}: stacks_before")
        _ints(r.stacks_after, f"round {k}: stacks_after")
        _ints(r.dice_drawn, f"round {k}: dice_drawn", 1, 6)
        _ints([r.roll_limit, r.winner], f"round {k}: roll_limit/winner", -1)
        _ints(r.transfers, f"round {k}: transfers")
        if not isinstance(r.ended_by_zanzibar, bool) or not isinstance(r.rolloffs, list):
            raise ValueError(f"round {k}: ended_by_zanzibar must be true/false and rolloffs a list")
        for t in r.turns:
            _ints([t.seat], f"round {k}: turn seat", 0, n - 1)
            _ints([*t.hand, t.rank], f"round {k}: hand", -1)
            if not isinstance(t.category, str):
                raise ValueError(f"round {k}: category must be a string")
            _ints(t.actions, f"round {k}: actions", 0, 7)
            if not isinstance(t.rolls, list) or not all(isinstance(d, list) for d in t.rolls):
                raise ValueError(f"round {k}: rolls must be lists of dice")
            for d in t.rolls:
                _ints(d, f"round {k}: dice", 1, 6)
    return rec
