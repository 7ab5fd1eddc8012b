"""Hands and their ranking, as tables built once from the scoring rules.

Every consumer (engine, envs, vector env, solver, bots) reads the same :class:`HandTable`:

* ``rank_of_throw[i]`` for the 216 ordered throws ``i = 36*(d1-1) + 6*(d2-1) + (d3-1)``;
* ``hands[k]`` for the 56 multisets, ``k`` = index in :data:`MULTISETS` (sorted dice, lexicographic).

Ranks are dense integers, 0 = worst hand; equal rank means equal hands (e.g. 2,4,5 and 3,3,5 both
score 11 points in ``classic``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cache, total_ordering

import numpy as np

FACES = (1, 2, 3, 4, 5, 6)
#: The 56 multisets of three dice, each sorted ascending, in lexicographic order.
MULTISETS: tuple[tuple[int, int, int], ...] = tuple(itertools.combinations_with_replacement(FACES, 3))
MULTISET_INDEX: dict[tuple[int, ...], int] = {m: k for k, m in enumerate(MULTISETS)}
#: All 216 ordered throws, in index order 36*(d1-1) + 6*(d2-1) + (d3-1).
THROWS: tuple[tuple[int, int, int], ...] = tuple((a, b, c) for a, b, c in itertools.product(FACES, repeat=3))
#: Multiset index of each ordered throw.
THROW_TO_MULTISET = np.array([MULTISET_INDEX[tuple(sorted(t))] for t in THROWS], dtype=np.int64)

RANKINGS = ("zanzibar_456", "zanzibar_421")


def validate_dice(dice: object) -> tuple[int, int, int]:
    """Return ``dice`` (a list, tuple or 1-d array; numpy ints welcome) as a sorted tuple of three ints
    in 1..6, or raise ``ValueError`` (floats, bools, strings, dicts and sets are refused)."""
    if not isinstance(dice, (list, tuple, np.ndarray)) or (isinstance(dice, np.ndarray) and dice.ndim != 1):
        # a str, dict, set or iterator has no order or no integer faces to score
        raise ValueError(f"dice must be a list, tuple or 1-d array of three integers 1-6, got {dice!r}")
    values = tuple(dice)
    if len(values) != 3:
        raise ValueError(f"dice must be exactly three values 1-6, got {len(values)}: {dice!r}")
    faces: list[int] = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= int(v) <= 6:
            raise ValueError(f"each die must be an integer 1-6, got {v!r} in {dice!r}")
        faces.append(int(v))
    a, b, c = sorted(faces)
    return (a, b, c)


@total_ordering
@dataclass(frozen=True, eq=False)
class Hand:
    """A scored hand: ``>`` means better. Hashable; equal rank (same table) means equal hands.

    Attributes:
        dice: the three dice, sorted ascending.
        rank: dense rank in its table, 0 = worst.
        category: the scoring category (``"zanzibar"``, ``"three_of_a_kind"``, ``"one_two_three"``,
            ``"points"`` in 4-5-6 rulesets; ``"zanzibar"``, ``"three_of_a_kind"``, ``"pair"``, ``"sum"``
            in 4-2-1 rulesets).
        points: the points total for ``points``/``sum`` hands, else ``None``.
        table: the name of the ranking table the hand was scored with.
    """

    dice: tuple[int, int, int]
    rank: int
    category: str
    points: int | None
    table: str = field(repr=False)

    def _same_table(self, other: Hand) -> None:
        if other.table != self.table:
            raise TypeError(f"cannot compare hands of different tables ({self.table} vs {other.table})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        self._same_table(other)
        return self.rank == other.rank

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        self._same_table(other)
        return self.rank < other.rank

    def __hash__(self) -> int:
        return hash((self.table, self.rank))

    def describe(self) -> str:
        """Human-readable name, e.g. ``'4-5-6 Zanzibar'`` or ``'109 points'``."""
        d = "-".join(map(str, self.dice))
        if self.category == "zanzibar":
            return f"{d} Zanzibar"
        if self.category == "three_of_a_kind":
            return f"{d} three of a kind"
        if self.category == "one_two_three":
            return "1-2-3"
        if self.category == "pair":
            return f"{d} pair"
        unit = "points" if self.category == "points" else "sum"
        return f"{d} ({self.points} {unit})"


def _key_456(
    dice: tuple[int, int, int], one_points: int, six_points: int
) -> tuple[int, int, str, int | None]:
    """Sort key, category and points of a hand under the 4-5-6 ranking (seed 000)."""
    if dice == (4, 5, 6):
        return (3, 0, "zanzibar", None)
    if dice[0] == dice[2]:
        return (2, -dice[0], "three_of_a_kind", None)  # 1-1-1 best, 6-6-6 worst
    if dice == (1, 2, 3):
        return (1, 0, "one_two_three", None)
    value = {1: one_points, 6: six_points}
    pts = sum(value.get(d, d) for d in dice)
    return (0, pts, "points", pts)


def _key_421(dice: tuple[int, int, int]) -> tuple[int, int, str, int | None]:
    """Sort key, category and points of a hand under the 4-2-1 ranking (seed 001, as read in RULES.md)."""
    if dice == (1, 2, 4):
        return (3, 0, "zanzibar", None)
    if dice[0] == dice[2]:
        return (2, dice[0], "three_of_a_kind", None)  # 6-6-6 best, 1-1-1 worst
    if dice[0] == dice[1] or dice[1] == dice[2]:
        pair = dice[1]
        kicker = dice[2] if dice[0] == dice[1] else dice[0]
        return (1, 10 * pair + kicker, "pair", None)
    return (0, sum(dice), "sum", sum(dice))


@dataclass(frozen=True)
class HandTable:
    """The ranking of all 56 hands under one scoring rule, plus numpy views for fast paths."""

    name: str
    hands: tuple[Hand, ...]  # indexed by multiset index
    rank_of_multiset: np.ndarray  # int64[56]
    rank_of_throw: np.ndarray  # int64[216]
    num_ranks: int
    categories: tuple[str, ...]  # category names, best first
    category_of_multiset: np.ndarray  # int64[56], index into ``categories``

    def score(self, dice: object) -> Hand:
        """Score three dice (any order)."""
        return self.hands[MULTISET_INDEX[validate_dice(dice)]]

    def hand_of_rank(self, rank: int) -> Hand:
        """One hand with the given rank (the first multiset in lexicographic order)."""
        return self.hands[int(np.flatnonzero(self.rank_of_multiset == rank)[0])]


@cache
def hand_table(ranking: str = "zanzibar_456", one_points: int = 100, six_points: int = 60) -> HandTable:
    """Build (once, cached) the table for a ranking and, for 4-5-6 rankings, the point values of 1 and 6."""
    if ranking == "zanzibar_456":
        keys = [_key_456(m, one_points, six_points) for m in MULTISETS]
        categories = ("zanzibar", "three_of_a_kind", "one_two_three", "points")
        name = f"{ranking}:{one_points}:{six_points}"
    elif ranking == "zanzibar_421":
        keys = [_key_421(m) for m in MULTISETS]
        categories = ("zanzibar", "three_of_a_kind", "pair", "sum")
        name = ranking
    else:
        raise ValueError(f"unknown hand ranking {ranking!r}; allowed: {', '.join(RANKINGS)}")
    distinct = sorted({k[:2] for k in keys})
    dense = {k: r for r, k in enumerate(distinct)}
    ranks = np.array([dense[k[:2]] for k in keys], dtype=np.int64)
    hands = tuple(
        Hand(dice=m, rank=int(ranks[i]), category=keys[i][2], points=keys[i][3], table=name)
        for i, m in enumerate(MULTISETS)
    )
    cat_idx = np.array([categories.index(k[2]) for k in keys], dtype=np.int64)
    for arr in (ranks, cat_idx):
        arr.setflags(write=False)
    by_throw = ranks[THROW_TO_MULTISET]
    by_throw.setflags(write=False)
    return HandTable(name, hands, ranks, by_throw, len(distinct), categories, cat_idx)
