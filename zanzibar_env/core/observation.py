"""The observation: a flat float32 vector encoding a :class:`~zanzibar_env.core.engine.View`.

One layout for all.

The same layout is used by the Gymnasium env, the PettingZoo env, the vector env and the agents, for
every table size (seat-relative blocks are padded to 8 seats), so one model fits all tables.
:func:`encode` fills it from one view, :func:`encode_batch` from a :class:`ViewBatch` of many, and
:func:`decode` reads it back by name. Every index is documented where it is filled (``_fill``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import View
from .hands import MULTISET_INDEX
from .rules import MAX_PLAYERS, Ruleset

OBS_SIZE = 33
#: name -> (first index, length); decode() uses it, README's observation table lists it.
OBS_LAYOUT: dict[str, tuple[int, int]] = {
    "dice": (0, 3),
    "hand_rank": (3, 1),
    "rolls_used": (4, 1),
    "roll_limit": (5, 1),
    "rolls_left": (6, 1),
    "is_first": (7, 1),
    "players_after": (8, 1),
    "has_lowest": (9, 1),
    "lowest_rank": (10, 1),
    "lowest_count": (11, 1),
    "highest_rank": (12, 1),
    "vs_lowest": (13, 1),
    "vs_highest": (14, 1),
    "earlier_payments": (15, 1),
    "stacks": (16, MAX_PLAYERS),
    "active": (24, MAX_PLAYERS),
    "num_players": (32, 1),
}
MAX_EARLIER_PAYMENTS = 4 * (MAX_PLAYERS - 1)


@dataclass
class ViewBatch:
    """Many views at once, as int arrays of shape ``[B]`` (``dice`` ``[B, 3]``, seat blocks ``[B, 8]``).

    ``lowest_rank``/``highest_rank`` are -1 when no earlier player has a hand; ``stacks``/``active``
    are relative to the acting seat and padded with 0 past ``num_players``.
    """

    ruleset: Ruleset
    dice: np.ndarray  # [B, 3] sorted ascending, faces 1..6
    rolls_used: np.ndarray
    roll_limit: np.ndarray
    is_first: np.ndarray
    players_after: np.ndarray
    lowest_rank: np.ndarray
    lowest_count: np.ndarray
    highest_rank: np.ndarray
    earlier_payments: np.ndarray
    stacks: np.ndarray  # [B, 8]
    active: np.ndarray  # [B, 8]
    num_players: np.ndarray

    def __len__(self) -> int:
        return int(self.dice.shape[0])

    @property
    def dice_index(self) -> np.ndarray:
        """Multiset index 0..55 of each row's dice (see ``hands.MULTISETS``)."""
        return _MULTISET_LOOKUP[self.dice[:, 0] - 1, self.dice[:, 1] - 1, self.dice[:, 2] - 1]

    @property
    def hand_rank(self) -> np.ndarray:
        return self.ruleset.table.rank_of_multiset[self.dice_index]

    @classmethod
    def from_views(cls, views: list[View]) -> ViewBatch:
        b = len(views)
        stacks = np.zeros((b, MAX_PLAYERS), np.int64)
        active = np.zeros((b, MAX_PLAYERS), np.int64)
        for i, v in enumerate(views):
            stacks[i, : v.num_players] = v.stacks
            active[i, : v.num_players] = v.active

        def col(f: str) -> np.ndarray:
            return np.array([getattr(v, f) for v in views], np.int64)

        return cls(
            ruleset=views[0].ruleset,
            dice=np.array([v.dice for v in views], np.int64).reshape(b, 3),
            rolls_used=col("rolls_used"),
            roll_limit=col("roll_limit"),
            is_first=col("is_first"),
            players_after=col("players_after"),
            lowest_rank=np.array([v.lowest.rank if v.lowest else -1 for v in views], np.int64),
            lowest_count=col("lowest_count"),
            highest_rank=np.array([v.highest.rank if v.highest else -1 for v in views], np.int64),
            earlier_payments=col("earlier_payments"),
            stacks=stacks,
            active=active,
            num_players=col("num_players"),
        )


_MULTISET_LOOKUP = np.zeros((6, 6, 6), np.int64)
for _m, _k in MULTISET_INDEX.items():
    _MULTISET_LOOKUP[_m[0] - 1, _m[1] - 1, _m[2] - 1] = _k


def encode_batch(b: ViewBatch) -> np.ndarray:
    """Observations ``float32[B, OBS_SIZE]`` for a batch of views (the single definition of the layout)."""
    r = b.ruleset
    top = max(r.table.num_ranks - 1, 1)
    rank = b.hand_rank
    has_lo = b.lowest_rank >= 0
    o = np.zeros((len(b), OBS_SIZE), np.float32)
    o[:, 0:3] = b.dice / 6.0  # 0-2: the three dice, sorted ascending, face / 6
    o[:, 3] = rank / top  # 3: current hand's rank, 0 = worst hand, 1 = best (4-5-6 or 4-2-1)
    o[:, 4] = b.rolls_used / r.max_rolls  # 4: rolls used this turn / max_rolls
    o[:, 5] = b.roll_limit / r.max_rolls  # 5: rolls this player may use / max_rolls
    o[:, 6] = (b.roll_limit - b.rolls_used) / r.max_rolls  # 6: rolls left / max_rolls
    o[:, 7] = b.is_first  # 7: 1 if this player rolls first this round
    o[:, 8] = b.players_after / (MAX_PLAYERS - 1)  # 8: players still to roll after this one / 7
    o[:, 9] = has_lo  # 9: 1 if an earlier player has a hand this round
    o[:, 10] = np.where(has_lo, b.lowest_rank / top, 0.0)  # 10: lowest earlier hand's rank (0 if none)
    o[:, 11] = b.lowest_count / (MAX_PLAYERS - 1)  # 11: earlier players sharing the lowest hand / 7
    o[:, 12] = np.where(has_lo, b.highest_rank / top, 0.0)  # 12: highest earlier hand's rank (0 if none)
    o[:, 13] = np.where(has_lo, np.sign(rank - b.lowest_rank), 0)  # 13: current hand vs lowest: -1/0/+1
    o[:, 14] = np.where(has_lo, np.sign(rank - b.highest_rank), 0)  # 14: current hand vs highest: -1/0/+1
    o[:, 15] = b.earlier_payments / MAX_EARLIER_PAYMENTS  # 15: own-hand payments of earlier players / 28
    o[:, 16:24] = b.stacks / r.starting_stack  # 16-23: chips/lives per seat / start, own seat first
    o[:, 24:32] = b.active  # 24-31: 1 if that seat (own first, clockwise) is still in the game
    o[:, 32] = b.num_players / MAX_PLAYERS  # 32: players at the table / 8
    return o


def encode(view: View) -> np.ndarray:
    """The observation ``float32[OBS_SIZE]`` of one view."""
    return encode_batch(ViewBatch.from_views([view]))[0]


def decode(obs: np.ndarray, ruleset: Ruleset) -> dict[str, object]:
    """Read an observation back by name (ranks and counts as integers, seat blocks trimmed)."""
    o = np.asarray(obs, np.float64)
    top = max(ruleset.table.num_ranks - 1, 1)
    n = round(o[32] * MAX_PLAYERS)
    has_lo = bool(o[9] > 0.5)

    def cnt(i: int, scale: float) -> int:
        return round(o[i] * scale)

    return {
        "dice": tuple(round(x * 6) for x in o[0:3]),
        "hand_rank": cnt(3, top),
        "rolls_used": cnt(4, ruleset.max_rolls),
        "roll_limit": cnt(5, ruleset.max_rolls),
        "rolls_left": cnt(6, ruleset.max_rolls),
        "is_first": bool(o[7] > 0.5),
        "players_after": cnt(8, MAX_PLAYERS - 1),
        "has_lowest": has_lo,
        "lowest_rank": cnt(10, top) if has_lo else -1,
        "lowest_count": cnt(11, MAX_PLAYERS - 1),
        "highest_rank": cnt(12, top) if has_lo else -1,
        "vs_lowest": round(o[13]),
        "vs_highest": round(o[14]),
        "earlier_payments": cnt(15, MAX_EARLIER_PAYMENTS),
        "stacks": tuple(round(x * ruleset.starting_stack) for x in o[16 : 16 + n]),
        "active": tuple(bool(x > 0.5) for x in o[24 : 24 + n]),
        "num_players": n,
    }
