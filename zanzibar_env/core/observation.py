"""The observation: a flat float32 vector encoding a :class:`~zanzibar_env.core.engine.View`.

One layout for all.

The same layout is used by the Gymnasium env, the PettingZoo env, the vector env and the agents, for
every table size (seat-relative blocks are padded to 8 seats), so one model fits all tables.
The encoding is the rules kernel's (one :class:`Encoder` per ruleset, every slot defined once in its
tables): the envs, the vector env, :func:`encode` (one view) and :func:`encode_batch` (a
:class:`ViewBatch`) all call it, and :meth:`Encoder.terminal` gives the observation after an episode.
:func:`decode` reads a vector back by name. Every index is documented in :class:`Encoder`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .checks import show
from .engine import View
from .hands import MULTISET_INDEX, MULTISETS
from .kernel import per_ruleset
from .rules import MAX_PLAYERS, Ruleset, load_ruleset

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
    #: rank of the hand each turn scores if it stops now (``View.turn_best_rank``; RULES.md §9)
    turn_best_rank: np.ndarray | None = field(default_factory=lambda: None)  # no class attribute: lazy-able

    def __len__(self) -> int:
        return int(self.dice.shape[0])

    def direct_observations(self) -> np.ndarray | None:
        """The batch's observations read from where its fields come from, or ``None`` (here): a batch
        over a game's state arrays (the vector env's lazy one) encodes them directly, the floats
        :func:`encode_batch` makes from its fields (tested). :func:`encode_batch` asks this first."""
        return None

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
            turn_best_rank=col("turn_best_rank"),
        )


_MULTISET_LOOKUP = np.zeros((6, 6, 6), np.int64)
for _m, _k in MULTISET_INDEX.items():
    _MULTISET_LOOKUP[_m[0] - 1, _m[1] - 1, _m[2] - 1] = _k


def _at(name: str) -> slice:
    first, length = OBS_LAYOUT[name]
    return slice(first, first + length)


#: Where each block goes (from ``OBS_LAYOUT``; no literal slot numbers elsewhere).
DICE, RANK, ROLLS, MID, STACKS, ACTIVE, SIZE = (
    _at("dice"),
    OBS_LAYOUT["hand_rank"][0],
    slice(4, 7),  # rolls_used, roll_limit, rolls_left
    slice(7, 16),  # is_first .. earlier_payments
    _at("stacks"),
    _at("active"),
    OBS_LAYOUT["num_players"][0],
)
TAIL = slice(STACKS.start, OBS_SIZE)  # the seat blocks and the table size: all a finished episode shows


class Encoder:
    """The observation encoding of one ruleset: every slot's value is defined once, in the tables below,
    and :meth:`rows` (many players, numpy) and :meth:`one` (one player: the tables' float32 bytes,
    joined) only gather them, so the two give identical float32 vectors (``tests/envs/test_scalar_fast.py``
    checks it on a grid). :meth:`terminal` is the observation after an episode.

    Slots (each value is computed in float64 and rounded to float32 once):

    * 0-2 ``dice``: the three dice, sorted ascending, face / 6;
    * 3 ``hand_rank``: rank of the hand the turn scores if the player stops now / best rank (0 = worst
      hand, 1 = best: 4-5-6 or 4-2-1): the current dice under ``final_hand: last``, the best throw of
      the turn so far under ``best`` (RULES.md §9; the current dice are in slots 0-2);
    * 4 ``rolls_used``, 5 ``roll_limit``, 6 ``rolls_left``: each / ``max_rolls``;
    * 7 ``is_first``: 1 if this player rolls first this round;
    * 8 ``players_after``: active players still to roll after this one / 7;
    * 9 ``has_lowest``: 1 if an earlier player has a hand this round;
    * 10 ``lowest_rank``, 12 ``highest_rank``: the lowest / highest earlier hand's rank / best (0 if none);
    * 11 ``lowest_count``: earlier players sharing the lowest hand / 7;
    * 13 ``vs_lowest``, 14 ``vs_highest``: the slot-3 hand compared with them, -1 / 0 / +1 (0 if none);
    * 15 ``earlier_payments``: own-hand payments of earlier players / 28 (``payment: own_hand``);
    * 16-23 ``stacks``: chips, lives or penalty points / ``Ruleset.stack_scale`` (the starting stack;
      under ``stake: penalty`` the most points one player can take) per seat, own seat first,
      clockwise, 0-padded;
    * 24-31 ``active``: 1 if that seat is still in the game; 32 ``num_players``: players / 8.
    """

    def __init__(self, ruleset: Ruleset) -> None:
        t, mr = ruleset.table, ruleset.max_rolls
        self.ruleset, self.top, self.scale = ruleset, max(t.num_ranks - 1, 1), ruleset.stack_scale
        self.head = (np.array(MULTISETS, np.float64) / 6.0).astype(np.float32)  # [56, 3] dice / 6
        u, lim = np.meshgrid(np.arange(mr + 1), np.arange(mr + 1), indexing="ij")
        self.rolls = np.stack([u / mr, lim / mr, (lim - u) / mr], -1).astype(np.float32)  # [used, limit]
        self.per7 = (np.arange(MAX_PLAYERS) / (MAX_PLAYERS - 1)).astype(np.float32)  # counts / 7
        self.rank = np.concatenate([[0.0], np.arange(t.num_ranks) / self.top]).astype(np.float32)  # [r + 1]
        self.rank_ms = t.rank_of_multiset
        self._rolls_flat, self._rolls_stride = self.rolls.reshape(-1, 3), mr + 1
        self._pads = [[0.0] * (MAX_PLAYERS - k) for k in range(MAX_PLAYERS + 1)]  # padding per table size
        # slot 15 as float32 bytes for :meth:`one` (no float conversion per step)
        self._b_paid = _f32_bytes(np.arange(MAX_EARLIER_PAYMENTS + 1) / MAX_EARLIER_PAYMENTS)
        self._groups()

    def _groups(self) -> None:
        """:meth:`rows` writes slots 0-15 as four groups of four, each one row of a table joined from the
        tables above (the same float32 values, copied as 16 raw bytes: one copy per group, not per slot)."""
        nb, per7, rank = len(self.rank), self.per7, self.rank  # nb: ranks -1..top
        signs = [(a, b) for a in (-1.0, 0.0, 1.0) for b in (-1.0, 0.0, 1.0)]  # [sign + 1, sign + 1]
        # slots (table index): 0-3 [ms, best + 1]; 4-7 [used, limit, is_first]; 8-11 [after, lo + 1,
        # lo_count]; 12-14 [has, hi + 1, sign(best - lo) + 1, sign(best - hi) + 1] (15: written after)
        groups = (
            [(*d, r) for d in self.head for r in rank],
            [(*u, f) for u in self._rolls_flat for f in (0.0, 1.0)],
            [(p, lo >= 0, r, c) for p in per7 for lo, r in enumerate(rank, -1) for c in per7],
            [(r, *(s if h else (0.0, 0.0)), 0.0) for h in (0, 1) for r in rank for s in signs],
        )
        self._nb = nb
        self._t_groups = tuple(np.array(g, np.float32).view("V16")[:, 0] for g in groups)
        # the same groups as bytes for :meth:`one` (the last without slot 15, which :meth:`one` appends)
        widths = (16, 16, 16, 12)
        self._b_groups = tuple([bytes(x)[:w] for x in t] for t, w in zip(self._t_groups, widths, strict=True))
        self._dtypes: dict[int, np.dtype] = {}

    def _row_dtype(self, k: int) -> np.dtype:
        """An observation row as named byte groups (for ``k`` seats): what :meth:`rows` writes at once."""
        dt = self._dtypes.get(k)
        if dt is None:
            fields = {"g0": 0, "g1": 16, "g2": 32, "g3": 48, "stacks": 64, "active": 96}
            dt = self._dtypes[k] = np.dtype(
                {
                    "names": list(fields),
                    "formats": ["V16"] * 4 + [f"V{4 * k}"] * 2,
                    "offsets": list(fields.values()),
                    "itemsize": 4 * OBS_SIZE,
                }
            )
        return dt

    def rows(
        self, ms: np.ndarray, best: np.ndarray, used: np.ndarray, limit: np.ndarray, is_first: np.ndarray,
        after: np.ndarray, lo: np.ndarray, lo_count: np.ndarray, hi: np.ndarray, paid: np.ndarray,
        stacks: np.ndarray, active: np.ndarray, num_players: np.ndarray | int | None = None,
    ) -> np.ndarray:  # fmt: skip  # packed: one parameter a line is 11 lines more
        """``float32[R, 33]``; ``best`` is the rank of the hand that counts now (``turn_best_rank``);
        ``lo``/``hi`` are -1 without earlier hands; ``stacks``/``active`` are
        ``[R, k]``, relative to each acting seat, 0-padded past ``num_players`` (default ``k``)."""
        o = np.zeros((ms.size, OBS_SIZE), np.float32)
        k, nb, t = stacks.shape[1], self._nb, self._t_groups
        g = o.view(self._row_dtype(k))[:, 0]  # byte groups of each row (see _groups)
        g["g0"] = t[0].take(ms * nb + best + 1)
        g["g1"] = t[1].take((used * self._rolls_stride + limit) * 2 + is_first)
        g["g2"] = t[2].take((after * nb + lo) * 8 + lo_count + 8)
        g["g3"] = t[3].take(((lo >= 0) * nb + hi) * 9 + np.sign(best - lo) * 3 + np.sign(best - hi) + 13)
        if np.count_nonzero(paid):  # (else slot 15 stays 0)
            o[:, MID.stop - 1] = paid / MAX_EARLIER_PAYMENTS
        self._tail(o, stacks, active, num_players)
        return o

    def _tail(
        self, o: np.ndarray, stacks: np.ndarray, active: np.ndarray, n: np.ndarray | int | None
    ) -> None:
        """Slots 16-32 of ``o`` (zeros there): the seat blocks (each written as one group of bytes) and
        the table size."""
        k = stacks.shape[1]
        g = o.view(self._row_dtype(k))[:, 0]
        g["stacks"] = (stacks / self.scale).astype(np.float32, order="C").view(f"V{4 * k}")[:, 0]
        g["active"] = active.astype(np.float32, order="C").view(f"V{4 * k}")[:, 0]
        o[:, SIZE] = (k if n is None else n) / MAX_PLAYERS

    def tail(self, stacks: Sequence[int], active: Sequence[bool]) -> bytes:
        """Slots 16-32 as float32 bytes for :meth:`one` (seat blocks change only between rounds: callers
        may cache it)."""
        n, scale = len(stacks), self.scale
        pad = self._pads[n]
        flags = [1.0 if x else 0.0 for x in active]
        floats = [x / scale for x in stacks] + pad + flags + pad + [n / MAX_PLAYERS]
        return np.array(floats, np.float32).tobytes()

    def one(
        self, ms: int, best: int, used: int, limit: int, is_first: bool, after: int,
        lo: int, lo_count: int, hi: int, paid: int, tail: bytes,
    ) -> np.ndarray:  # fmt: skip  # packed: one parameter a line is 10 lines more
        """The observation of one player (``tail`` from :meth:`tail`): the same floats as :meth:`rows`,
        joined from the float32 bytes of the same tables (not built as floats: ``docs/benchmarks.md``,
        "Scalar engine and single env")."""
        return self.one_of((ms, best, used, limit, is_first, after, lo, lo_count, hi, paid), tail)

    def one_of(
        self, numbers: tuple[int, int, int, int, bool, int, int, int, int, int], tail: bytes
    ) -> np.ndarray:
        """:meth:`one` with its first ten arguments as one tuple (``RoundState.public_numbers()``): slots
        0-14 are the four byte groups of :meth:`_groups`, indexed as :meth:`rows` indexes them."""
        ms, best, used, limit, is_first, after, lo, lo_count, hi, paid = numbers
        nb, (g0, g1, g2, g3) = self._nb, self._b_groups
        paid_b = self._b_paid[paid] if paid <= MAX_EARLIER_PAYMENTS else _f32(paid / MAX_EARLIER_PAYMENTS)
        buf = b"".join((
            g0[ms * nb + best + 1], g1[(used * self._rolls_stride + limit) * 2 + is_first],
            g2[(after * nb + lo) * 8 + lo_count + 8],
            g3[((lo >= 0) * nb + hi) * 9 + ((best > lo) - (best < lo)) * 3 + (best > hi) - (best < hi) + 13],
            paid_b, tail,
        ))  # fmt: skip  # one line per byte group g0 .. g3
        return np.frombuffer(bytearray(buf), _F32)  # writable: the bytearray is its own

    def terminal(self, stacks: np.ndarray, active: np.ndarray) -> np.ndarray:
        """``float32[R, 33]`` after an episode: zeros but the seat blocks and the table size
        (``stacks``/``active`` ``[R, n]``, relative to the player's seat)."""
        stacks = np.asarray(stacks).reshape(-1, np.shape(stacks)[-1])
        o = np.zeros((stacks.shape[0], OBS_SIZE), np.float32)
        self._tail(o, stacks, np.asarray(active).reshape(stacks.shape), None)
        return o


_F32 = np.dtype(np.float32)


def _f32(x: float) -> bytes:
    return np.float32(x).tobytes()


def _f32_bytes(table: np.ndarray) -> list[bytes]:
    """Each row (or value) of ``table`` as float32 bytes."""
    rows = np.asarray(table, np.float32)
    return [r.tobytes() for r in rows]


encoder = per_ruleset(Encoder)


def _check_batch(b: ViewBatch) -> None:
    """``ValueError`` naming the first field of ``b`` outside what a view can hold (:meth:`Encoder.rows`
    reads joined tables: an out-of-range value would silently read another row's slots)."""
    top, rolls = b.ruleset.table.num_ranks - 1, b.ruleset.max_rolls
    bounds = (
        ("dice", b.dice, 1, 6),
        ("rolls_used", b.rolls_used, 0, rolls),
        ("roll_limit", b.roll_limit, 0, rolls),
        ("is_first", b.is_first, 0, 1),
        ("players_after", b.players_after, 0, MAX_PLAYERS - 1),
        ("lowest_rank", b.lowest_rank, -1, top),
        ("lowest_count", b.lowest_count, 0, MAX_PLAYERS - 1),
        ("highest_rank", b.highest_rank, -1, top),
    )
    for name, x, lo, hi in bounds:
        x = np.asarray(x)
        if x.size and (x.min() < lo or x.max() > hi):
            raise ValueError(f"ViewBatch.{name} must lie in {lo}..{hi}, got values {x.min()}..{x.max()}")


def encode_batch(b: ViewBatch) -> np.ndarray:
    """Observations ``float32[B, OBS_SIZE]`` for a batch of views (``ValueError`` on a field no view
    can hold); a batch's :meth:`~ViewBatch.direct_observations` when it has them."""
    direct = b.direct_observations()
    if direct is not None:
        return direct
    _check_batch(b)
    best = (
        b.hand_rank
        if b.turn_best_rank is None
        else np.where(b.turn_best_rank < 0, b.hand_rank, b.turn_best_rank)
    )
    return encoder(b.ruleset).rows(
        b.dice_index, best, b.rolls_used, b.roll_limit, b.is_first, b.players_after, b.lowest_rank,
        b.lowest_count, b.highest_rank, b.earlier_payments, b.stacks, b.active, b.num_players,
    )  # fmt: skip  # packed: in the order of rows(); one a line is 11 more


def encode(view: View) -> np.ndarray:
    """The observation ``float32[OBS_SIZE]`` of one view."""
    e = encoder(view.ruleset)
    lo = view.lowest.rank if view.lowest is not None else -1
    hi = view.highest.rank if view.highest is not None else -1
    ms = MULTISET_INDEX[view.dice]
    best = view.turn_best_rank if view.turn_best_rank >= 0 else int(e.rank_ms[ms])
    return e.one(
        ms,
        best,
        view.rolls_used,
        view.roll_limit,
        view.is_first,
        view.players_after,
        lo,
        view.lowest_count,
        hi,
        view.earlier_payments,
        e.tail(list(view.stacks), list(view.active)),
    )


def _check_obs(obs: object) -> np.ndarray:
    """``obs`` as ``float64[33]`` if it can be an observation, else ``ValueError`` saying why: 33 finite
    numbers in ``[-1, 8]``, dice faces 1-6 (all 0 after the episode), a table of 2-8 players."""
    try:
        o = np.asarray(obs, np.float64)
    except (TypeError, ValueError):
        o = None
    if o is None or o.shape != (OBS_SIZE,):
        got = f"shape {o.shape}" if o is not None else show(obs)
        raise ValueError(
            f"obs must be the {OBS_SIZE} numbers of a flat observation (the first {OBS_SIZE} of a one-hot "
            f"one), got {got}"
        )
    if not np.isfinite(o).all() or o.min() < -1 or o.max() > MAX_PLAYERS:
        i = int(np.flatnonzero(~np.isfinite(o) | (o < -1) | (o > MAX_PLAYERS))[0])
        raise ValueError(
            f"obs[{i}] is {float(o[i])!r}; every entry must be a finite number in [-1, {MAX_PLAYERS}]"
        )
    faces, n = o[:3] * 6, o[32] * MAX_PLAYERS
    whole = np.abs(faces - np.round(faces)).max() < 1e-3 and abs(n - round(n)) < 1e-3
    f = np.round(faces)
    if not whole or not ((f == 0).all() or ((f >= 1) & (f <= 6)).all()) or not 2 <= round(n) <= MAX_PLAYERS:
        raise ValueError(
            f"obs is not an observation: dice {show(faces.tolist())} must be faces 1-6 (all 0 after the "
            f"episode) and num_players {n!r} an integer 2-{MAX_PLAYERS} (each scaled as OBS_LAYOUT says)"
        )
    return o


def decode(obs: np.ndarray, ruleset: Ruleset) -> dict[str, object]:
    """Read an observation back by name (ranks and counts as integers, seat blocks trimmed).

    ``obs``: the 33 floats of a flat observation (a one-hot observation's first 33); NaN, infinities,
    entries outside ``[-1, 8]``, dice other than faces 1-6 (or all 0, after the episode) and a wrong
    length raise ``ValueError``. ``ruleset``: a :class:`Ruleset` or a ruleset name."""
    o = _check_obs(obs)
    ruleset = load_ruleset(ruleset)
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
        "stacks": tuple(round(x * ruleset.stack_scale) for x in o[16 : 16 + n]),
        "active": tuple(bool(x > 0.5) for x in o[24 : 24 + n]),
        "num_players": n,
    }
