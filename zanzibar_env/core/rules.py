"""Rulesets as data: one YAML file each in ``configs/rules/``, validated into a frozen :class:`Ruleset`.

Every option is checked: an unknown key, a wrong type or an out-of-range value raises ``ValueError``
naming the key and the allowed values. See RULES.md for what each option means and which seed
sentence it rests on.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .hands import HandTable, hand_table

MIN_PLAYERS = 2
MAX_PLAYERS = 8
#: Hard cap on the rounds of one game. Validation rejects rulesets under which a game cannot end (no
#: chip ever changes hands); anything else that runs this long (e.g. huge stacks paid one chip at a
#: time) is truncated here by every engine-driven loop, even when ``max_rounds`` is ``None``.
MAX_GAME_ROUNDS = 100_000

#: Where the shipped rulesets live (``configs/rules/<name>.yaml``).
RULES_DIR = Path(__file__).resolve().parents[2] / "configs" / "rules"

_CHOICES: dict[str, tuple[str, ...]] = {
    "hand_ranking": ("zanzibar_456", "zanzibar_421"),
    "stake": ("chips", "lives"),
    "tie_rule": ("rolloff", "all"),
    "payment": ("highest_hand", "own_hand", "one_life"),
    "instant_zanzibar": ("off", "no_loss", "worst_so_far_loses"),
}
_INT_RANGES: dict[str, tuple[int, int]] = {
    "starting_stack": (1, 10_000),
    "max_rolls": (1, 6),
    "one_points": (0, 1000),
    "six_points": (0, 1000),
    "lives_lost": (1, 100),
}
_CHIP_CATEGORIES = ("points", "one_two_three", "three_of_a_kind", "zanzibar")


class FrozenDict(dict[Any, Any]):
    """A read-only, hashable ``dict`` (ruleset options that are mappings, such as ``payments``).

    It is a ``dict`` (``isinstance``, ``json.dumps`` and equality with plain dicts work), but every
    mutating method raises ``TypeError``, so a ruleset shared by every ``load_ruleset`` call cannot be
    changed through one of them.
    """

    def _readonly(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("ruleset options are read-only; use Ruleset.replace(...) for a changed copy")

    __setitem__ = __delitem__ = __ior__ = _readonly
    clear = pop = popitem = setdefault = update = _readonly

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self


def _freeze(value: Any) -> Any:
    """Mappings (also nested) as :class:`FrozenDict`, numpy integers as ints; other values unchanged."""
    if isinstance(value, dict):
        return FrozenDict({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, np.integer):
        return int(value)
    return value


@dataclass(frozen=True)
class Ruleset:
    """All options of one ruleset. Build with :func:`load_ruleset` or :meth:`Ruleset.from_dict`."""

    name: str
    description: str = ""
    hand_ranking: str = "zanzibar_456"  # which table ranks hands (4-5-6 on top, or 4-2-1 on top)
    one_points: int = 100  # points a 1 counts in a points hand (4-5-6 ranking only)
    six_points: int = 60  # points a 6 counts in a points hand (4-5-6 ranking only)
    stake: str = "chips"  # "chips": first to 0 wins; "lives": at 0 you are out, last standing wins
    starting_stack: int = 20  # chips or lives each player starts with
    max_rolls: int = 3  # rolls allowed to the first roller (and to everyone if the limit is not set)
    holds_allowed: bool = True  # may dice be kept between rolls
    first_roller_sets_limit: bool = True  # the first roller's number of rolls caps everyone else's
    tie_rule: str = "rolloff"  # tie for lowest: "rolloff" (tied players re-throw) or "all" (all lose)
    payment: str = "highest_hand"  # "highest_hand", "own_hand" (alt chips), "one_life" (lives)
    payments: dict[str, int] = field(
        default_factory=lambda: {"points": 1, "one_two_three": 2, "three_of_a_kind": 3, "zanzibar": 4}
    )  # chips per category of the paying hand (chip rulesets)
    lives_lost: int = 1  # lives the round's loser loses (lives rulesets)
    instant_zanzibar: str = "off"  # what a top hand does at once: "off", "no_loss", "worst_so_far_loses"
    max_rounds: int | None = None  # truncate the game after this many rounds (None = no cap)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # numpy ints as ints; mappings as (hashable) FrozenDicts
            object.__setattr__(self, f.name, _freeze(getattr(self, f.name)))
        _validate(self)
        _check_game_ends(self)

    @property
    def table(self) -> HandTable:
        """The hand ranking table of this ruleset (built once, shared)."""
        return hand_table(self.hand_ranking, self.one_points, self.six_points)

    def score(self, dice: object) -> Any:
        """Score three dice under this ruleset; returns a :class:`~zanzibar_env.core.hands.Hand`."""
        return self.table.score(dice)

    def payment_of(self, category: str) -> int:
        """Chips (or lives) a hand of ``category`` is worth as a payment."""
        if self.stake == "lives":
            return self.lives_lost
        return self.payments.get(category, 1)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "<dict>") -> Ruleset:
        """Validate a mapping of options (unknown keys are errors) into a ruleset."""
        if not isinstance(data, dict):
            raise ValueError(f"{source}: a ruleset must be a mapping of options, got {type(data).__name__}")
        allowed = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ValueError(f"{source}: unknown ruleset key(s) {unknown}; allowed keys: {sorted(allowed)}")
        if "name" not in data:
            raise ValueError(f"{source}: ruleset needs a 'name'")
        try:
            return cls(**data)
        except ValueError as e:
            raise ValueError(f"{source}: {e}") from None

    def to_dict(self) -> dict[str, Any]:
        """All options as a plain, fresh mapping (round-trips through :meth:`from_dict`)."""
        return {f.name: _thaw(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some options changed (validated)."""
        return Ruleset.from_dict({**self.to_dict(), **changes}, source=f"ruleset {self.name!r}")


def _thaw(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _thaw(v) for k, v in value.items()}
    return value


def _check_type(key: str, value: Any, kind: type | tuple[type, ...], what: str) -> None:
    if isinstance(value, bool) and kind is not bool:
        raise ValueError(f"option {key!r} must be {what}, got {value!r}")
    if not isinstance(value, kind):
        raise ValueError(f"option {key!r} must be {what}, got {value!r}")


def _validate(r: Ruleset) -> None:
    _check_type("name", r.name, str, "a string")
    _check_type("description", r.description, str, "a string")
    for key, allowed in _CHOICES.items():
        value = getattr(r, key)
        if value not in allowed:
            raise ValueError(f"option {key!r} must be one of {list(allowed)}, got {value!r}")
    for key, (lo, hi) in _INT_RANGES.items():
        value = getattr(r, key)
        _check_type(key, value, int, f"an integer in {lo}..{hi}")
        if not lo <= value <= hi:
            raise ValueError(f"option {key!r} must be an integer in {lo}..{hi}, got {value!r}")
    for key in ("holds_allowed", "first_roller_sets_limit"):
        _check_type(key, getattr(r, key), bool, "true or false")
    if r.max_rounds is not None:
        _check_type("max_rounds", r.max_rounds, int, "null or a positive integer")
        if r.max_rounds < 1:
            raise ValueError(f"option 'max_rounds' must be null or a positive integer, got {r.max_rounds!r}")
    _check_type("payments", r.payments, dict, f"a mapping with keys {list(_CHIP_CATEGORIES)}")
    if set(r.payments) != set(_CHIP_CATEGORIES):
        raise ValueError(
            f"option 'payments' must have exactly the keys {list(_CHIP_CATEGORIES)}, got {sorted(r.payments)}"
        )
    for cat, n in r.payments.items():
        _check_type(f"payments.{cat}", n, int, "an integer in 0..10")
        if not 0 <= n <= 10:
            raise ValueError(f"option 'payments.{cat}' must be an integer in 0..10, got {n!r}")
    if (r.stake == "lives") != (r.payment == "one_life"):
        raise ValueError("option 'payment' must be 'one_life' exactly when 'stake' is 'lives'")
    if r.payment == "own_hand" and r.instant_zanzibar == "worst_so_far_loses":
        # the seats after the Zanzibar never rolled, so they have no hand to pay by (RULES.md)
        raise ValueError(
            "option 'instant_zanzibar' cannot be 'worst_so_far_loses' with payment 'own_hand': "
            "players who never rolled have no hand to pay by; use 'off' or 'no_loss'"
        )
    if r.payment == "highest_hand" or r.payment == "own_hand":
        if r.hand_ranking != "zanzibar_456":
            raise ValueError("chip payments by category need hand_ranking 'zanzibar_456'")


def _check_game_ends(r: Ruleset) -> None:
    """Reject rulesets under which no game can end; :data:`MAX_GAME_ROUNDS` truncates the rest."""
    if r.max_rounds is not None and r.max_rounds > MAX_GAME_ROUNDS:
        raise ValueError(f"option 'max_rounds' must be at most {MAX_GAME_ROUNDS}, got {r.max_rounds!r}")
    if r.stake == "chips" and not any(r.payments.values()):
        raise ValueError("option 'payments': every category pays 0 chips, so no game could ever end")


def available_rulesets() -> list[str]:
    """Names of the rulesets shipped in ``configs/rules/``."""
    return sorted(p.stem for p in RULES_DIR.glob("*.yaml"))


def load_ruleset(spec: str | Path | Ruleset | dict[str, Any] = "classic", **overrides: Any) -> Ruleset:
    """Load a ruleset by name (``"classic"``), YAML path, mapping, or pass a :class:`Ruleset` through.

    Keyword ``overrides`` change single options, e.g. ``load_ruleset("classic", starting_stack=10)``.
    """
    if isinstance(spec, Ruleset):
        return spec.replace(**overrides) if overrides else spec
    if isinstance(spec, dict):
        return Ruleset.from_dict({**spec, **overrides})
    if not isinstance(spec, (str, Path)):
        raise ValueError(f"ruleset must be a name, a path, a mapping or a Ruleset, got {type(spec).__name__}")
    if not overrides and spec in _NAMED:
        return _NAMED[spec]  # shipped rulesets are parsed once per process
    try:
        return _load_file(spec, overrides)
    except OSError as e:  # e.g. a name too long for the file system, or no permission
        raise ValueError(f"ruleset {str(spec)[:200]!r}: {e.strerror or type(e).__name__}") from None


def _load_file(spec: str | Path, overrides: dict[str, Any]) -> Ruleset:
    """:func:`load_ruleset` for a name or a path."""
    path = Path(spec)
    if path.suffix not in (".yaml", ".yml"):
        named = RULES_DIR / f"{spec}.yaml"
        if not named.exists():
            names = available_rulesets()
            raise ValueError(f"unknown ruleset {str(spec)!r}; available: {names}, or a .yaml path")
        if not overrides:
            _NAMED[str(spec)] = _read_ruleset_file(named)
            return _NAMED[str(spec)]
        path = named
    if not path.exists():
        raise ValueError(f"ruleset file not found: {path}")
    if overrides:
        return _read_ruleset_file(path).replace(**overrides)
    return _read_ruleset_file(path)


_FILE_CACHE: dict[tuple[str, int], Ruleset] = {}
_NAMED: dict[str | Path, Ruleset] = {}


def _read_ruleset_file(path: Path) -> Ruleset:
    """Parse and validate a ruleset YAML file; cached by path and modification time."""
    key = (str(path.resolve()), path.stat().st_mtime_ns)
    if key in _FILE_CACHE:
        return _FILE_CACHE[key]
    if not path.is_file():
        raise ValueError(f"ruleset file {str(path)!r} is not a file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError) as e:
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path}: not valid YAML ({reason})") from None
    rules = Ruleset.from_dict(data, source=str(path))
    _FILE_CACHE[key] = rules
    return rules
