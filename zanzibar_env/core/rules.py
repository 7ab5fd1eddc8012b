"""Rulesets as data: one YAML file each in ``configs/rules/``, validated into a frozen :class:`Ruleset`.

The folder ships inside the package as ``zanzibar_env.configs`` (see ``configs/__init__.py``), so a
wheel installed anywhere finds the same files as a checkout.

Every option is checked: an unknown key, a wrong type or an out-of-range value raises ``ValueError``
naming the key and the allowed values. See RULES.md for what each option means and which seed
sentence it rests on.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .hands import HandTable, hand_table

MIN_PLAYERS = 2
MAX_PLAYERS = 8
#: Hard cap on the rounds of one game. Validation rejects rulesets under which a game cannot end (no
#: chip ever changes hands); anything else that runs this long (e.g. huge stacks paid one chip at a
#: time) is truncated here by every engine-driven loop, even when ``max_rounds`` is ``None``.
MAX_GAME_ROUNDS = 100_000

try:  # installed (wheel or editable): ``configs/`` is the subpackage zanzibar_env.configs
    from ..configs import RULES_DIR as _RULES_DIR
except ImportError:  # a bare checkout on sys.path, not installed
    _RULES_DIR = Path(__file__).resolve().parents[2] / "configs" / "rules"

#: Where the shipped rulesets live (``configs/rules/<name>.yaml``, package data of zanzibar_env.configs).
RULES_DIR: Path = _RULES_DIR

_CHOICES: dict[str, tuple[str, ...]] = {
    "hand_ranking": ("zanzibar_456", "zanzibar_421"),
    "stake": ("chips", "lives", "penalty"),
    "tie_rule": ("rolloff", "all"),
    "payment": ("highest_hand", "own_hand", "one_life", "lives_by_highest_hand"),
    "instant_zanzibar": ("off", "no_loss", "worst_so_far_loses"),
    "final_hand": ("last", "best"),
}
_INT_RANGES: dict[str, tuple[int, int]] = {
    "max_rolls": (1, 6),
    "one_points": (0, 1000),
    "six_points": (0, 1000),
    "lives_lost": (1, 100),
}
_CHIP_CATEGORIES = ("points", "one_two_three", "three_of_a_kind", "zanzibar")
#: Keys of ``lives_table``: the categories of the 4-2-1 ranking (seed 001's life table), best first.
LIVES_CATEGORIES = ("zanzibar", "three_of_a_kind", "pair", "sum")
#: The one non-integer ``lives_table`` value: a three of a kind of n costs n lives (RULES.md §7).
FACE = "face"
_LIVES_PAYMENTS = ("one_life", "lives_by_highest_hand")
_DEFAULT_LIVES_TABLE: dict[str, int | str] = {"zanzibar": 1, "three_of_a_kind": 1, "pair": 1, "sum": 1}
_MAX_NUM_ROUNDS = 1000


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

    def __hash__(self) -> int:  # type: ignore[override]  # read-only: hashable
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
    stake: str = "chips"  # "chips": first to 0 wins; "lives": last standing wins; "penalty": fewest points
    starting_stack: int = 20  # chips or lives each player starts with (0 penalty points in "penalty")
    max_rolls: int = 3  # rolls allowed to the first roller (and to everyone if the limit is not set)
    holds_allowed: bool = True  # may dice be kept between rolls
    first_roller_sets_limit: bool = True  # the first roller's number of rolls caps everyone else's
    tie_rule: str = "rolloff"  # tie for lowest: "rolloff" (tied players re-throw) or "all" (all lose)
    payment: str = "highest_hand"  # "highest_hand", "own_hand" (chips); "one_life", "lives_by_highest_hand"
    payments: dict[str, int] = field(
        default_factory=lambda: {"points": 1, "one_two_three": 2, "three_of_a_kind": 3, "zanzibar": 4}
    )  # chips per category of the paying hand (chip rulesets)
    lives_lost: int = 1  # lives (penalty points) the round's loser loses under payment "one_life"
    lives_table: dict[str, int | str] = field(
        default_factory=lambda: dict(_DEFAULT_LIVES_TABLE)
    )  # lives lost by category of the round's highest hand (payment "lives_by_highest_hand")
    instant_zanzibar: str = "off"  # what a top hand does at once: "off", "no_loss", "worst_so_far_loses"
    final_hand: str = "last"  # a turn's hand: "last" throw, or "best" throw of the turn
    num_rounds: int | None = None  # "penalty" stake: the game's fixed number of rounds (else None)
    penalty_limit: int | None = None  # "penalty" stake: the game ends once a player has this many points
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
        """Chips a hand of ``category`` is worth as a payment (``lives_lost`` in lives/penalty rulesets)."""
        if self.stake != "chips":
            return self.lives_lost
        return self.payments.get(category, 1)

    @cached_property
    def lives_by_rank(self) -> tuple[int, ...]:
        """Lives (penalty points) each loser loses, indexed by the rank of the round's highest hand.

        ``lives_lost`` at every rank under ``payment: one_life``; ``lives_table`` by the top hand's
        category under ``lives_by_highest_hand`` (a three of a kind of n costs n where the table says
        ``face``). Chip rulesets raise ``ValueError`` (they pay chips, see :meth:`payment_of`).
        """
        if self.stake == "chips":
            raise ValueError(f"ruleset {self.name!r} pays chips, not lives")
        out = [self.lives_lost] * self.table.num_ranks
        if self.payment == "lives_by_highest_hand":
            for hand in self.table.hands:
                value = self.lives_table[hand.category]
                out[hand.rank] = hand.dice[0] if value == FACE else int(value)
        return tuple(out)

    def lives_lost_for(self, top: Any) -> int:
        """Lives (penalty points) each loser loses when the round's highest hand is ``top`` (a ``Hand``)."""
        return self.lives_by_rank[top.rank]

    @property
    def round_cap(self) -> int:
        """Rounds after which a game is truncated: ``max_rounds``, or :data:`MAX_GAME_ROUNDS` when unset."""
        return self.max_rounds if self.max_rounds is not None else MAX_GAME_ROUNDS

    @property
    def stack_scale(self) -> int:
        """What the observation divides stacks by: ``starting_stack`` for chips and lives; for ``penalty``
        the most points one player can take in the game from 0: ``num_rounds`` times the most per round,
        or with ``penalty_limit`` one round's most past ``penalty_limit - 1`` (the smaller if both)."""
        if self.stake != "penalty":
            return self.starting_stack
        most = max(1, *self.lives_by_rank)
        by_rounds = self.num_rounds * most if self.num_rounds is not None else None
        by_limit = self.penalty_limit - 1 + most if self.penalty_limit is not None else None
        return min(s for s in (by_rounds, by_limit) if s is not None)

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
        _check_int(key, getattr(r, key), lo, hi)
    for key in ("holds_allowed", "first_roller_sets_limit"):
        _check_type(key, getattr(r, key), bool, "true or false")
    for key, hi in (("max_rounds", 0), ("num_rounds", _MAX_NUM_ROUNDS), ("penalty_limit", _MAX_NUM_ROUNDS)):
        value = getattr(r, key)
        if value is not None:
            what = "null or a positive integer" + (f" up to {hi}" if hi else "")
            _check_type(key, value, int, what)
            if value < 1 or (hi and value > hi):
                raise ValueError(f"option {key!r} must be {what}, got {value!r}")
    _validate_stake(r)
    _validate_payments(r)
    _validate_lives_table(r)


def _check_int(key: str, value: Any, lo: int, hi: int) -> None:
    _check_type(key, value, int, f"an integer in {lo}..{hi}")
    if not lo <= value <= hi:
        raise ValueError(f"option {key!r} must be an integer in {lo}..{hi}, got {value!r}")


def _validate_payments(r: Ruleset) -> None:
    _check_type("payments", r.payments, dict, f"a mapping with keys {list(_CHIP_CATEGORIES)}")
    if set(r.payments) != set(_CHIP_CATEGORIES):
        raise ValueError(
            f"option 'payments' must have exactly the keys {list(_CHIP_CATEGORIES)}, got {sorted(r.payments)}"
        )
    for cat, n in r.payments.items():
        _check_int(f"payments.{cat}", n, 0, 10)
    if r.payment == "own_hand" and r.instant_zanzibar == "worst_so_far_loses":
        # the seats after the Zanzibar never rolled, so they have no hand to pay by (RULES.md §11)
        raise ValueError(
            "option 'instant_zanzibar' cannot be 'worst_so_far_loses' with payment 'own_hand': "
            "players who never rolled have no hand to pay by; use 'off' or 'no_loss'"
        )
    if r.payment in ("highest_hand", "own_hand") and r.hand_ranking != "zanzibar_456":
        raise ValueError("chip payments by category need hand_ranking 'zanzibar_456'")


def _validate_lives_table(r: Ruleset) -> None:
    """``lives_table``: keys exactly the 4-2-1 categories, values 0..10 (``face`` for three of a kind)."""
    what = f"a mapping with keys {list(LIVES_CATEGORIES)}"
    _check_type("lives_table", r.lives_table, dict, what)
    if set(r.lives_table) != set(LIVES_CATEGORIES):
        raise ValueError(f"option 'lives_table' must be {what}, got keys {sorted(r.lives_table)}")
    for cat, n in r.lives_table.items():
        if cat == "three_of_a_kind" and n == FACE:
            continue
        allowed = "an integer in 0..10" + (" or 'face'" if cat == "three_of_a_kind" else "")
        _check_type(f"lives_table.{cat}", n, int, allowed)
        if not (isinstance(n, int) and 0 <= n <= 10):
            raise ValueError(f"option 'lives_table.{cat}' must be {allowed}, got {n!r}")
    if r.payment == "lives_by_highest_hand":
        if r.hand_ranking != "zanzibar_421":
            raise ValueError("payment 'lives_by_highest_hand' needs hand_ranking 'zanzibar_421'")
        if r.lives_lost != 1:
            raise ValueError("option 'lives_lost' is unused with 'lives_by_highest_hand' (leave it 1)")
        if not any(r.lives_table.values()):  # "face" counts as non-zero
            raise ValueError("option 'lives_table' must cost a life somewhere (all entries are 0)")
    elif r.lives_table != _DEFAULT_LIVES_TABLE:
        raise ValueError("option 'lives_table' is only used with payment 'lives_by_highest_hand'")


def _validate_stake(r: Ruleset) -> None:
    """Cross-checks of ``stake`` with ``payment``, ``starting_stack``, ``num_rounds`` and ``max_rounds``."""
    if (r.stake == "chips") == (r.payment in _LIVES_PAYMENTS):
        raise ValueError(
            "option 'payment' must be one of ['one_life', 'lives_by_highest_hand'] exactly when 'stake' is "
            f"'lives' or 'penalty', else 'highest_hand' or 'own_hand'; got stake {r.stake!r}, "
            f"payment {r.payment!r}"
        )
    if r.stake != "penalty":
        _check_int("starting_stack", r.starting_stack, 1, 10_000)
        for key in ("num_rounds", "penalty_limit"):
            if getattr(r, key) is not None:
                raise ValueError(f"option {key!r} is only for stake 'penalty' (use 'max_rounds' to truncate)")
        return
    _check_type("starting_stack", r.starting_stack, int, "0 with stake 'penalty'")
    if r.starting_stack != 0:
        raise ValueError(
            "option 'starting_stack' must be 0 with stake 'penalty' (points count up from 0), "
            f"got {r.starting_stack!r}"
        )
    if r.num_rounds is None and r.penalty_limit is None:
        raise ValueError(
            f"stake 'penalty' needs option 'num_rounds' (1..{_MAX_NUM_ROUNDS}, the game's length) or "
            f"'penalty_limit' (1..{_MAX_NUM_ROUNDS}, the points that end it), or both"
        )
    if r.num_rounds is not None and r.max_rounds is not None and r.max_rounds >= r.num_rounds:
        raise ValueError(
            f"option 'max_rounds' must be null or below num_rounds={r.num_rounds} with stake 'penalty' "
            f"(the game ends after num_rounds anyway), got {r.max_rounds!r}"
        )


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
    from .safe_load import read_yaml  # (imports PyYAML: on the first ruleset read, not at import)

    data = read_yaml(path, "ruleset file")  # size, nesting, aliases and duplicate keys bounded
    rules = Ruleset.from_dict(data, source=str(path))
    _FILE_CACHE[key] = rules
    return rules
