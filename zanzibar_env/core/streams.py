"""Per-row random streams for batched games: row ``i``'s draws depend on its own seed only.

A counter-based generator vectorised over rows, as Pgx gives each env its own JAX key. Row ``i`` holds
a key ``k_i`` and an odd increment ``g_i``, both from ``np.random.SeedSequence(seed_i)``. Its ``j``-th
draw is ``u = (z >> 11) / 2**53``, a uniform float in ``[0, 1)`` with 53 random bits, where ``z`` is
SplitMix64's output function (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014) applied to ``k_i + j * g_i`` (mod ``2**64``). ``g_i`` is fixed up as Java's
``SplittableRandom.mixGamma`` does, and differs between rows, so two rows never replay one sequence
shifted in time. Draw ``j`` of row ``i`` is thus a function of ``seed_i`` and ``j`` alone: not of the
batch size, the row's position or the other rows.

An integer below ``h`` is ``floor(h * u)``: a throw index ``0..215`` (``h = 216``), a seat, a bot's
choice. The bias is stated, not removed: each outcome's probability differs from ``1/h`` by less than
``2**-51`` (a float multiply of a 53-bit ``u``).

Speed: draws are computed ``WIDTH`` per row at a time by chunked numpy calls and cached (as floats and
as throw indices) in ``[rows, WIDTH]`` tables; a draw is one gather from them. The cache changes no
value.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

WIDTH = 128  # cached draws per row
_BLOCK = 16384  # draws per numpy call of a refill (keeps the temporaries in the CPU cache)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)  # SplitMix64's mix constants
_AR = np.arange(WIDTH, dtype=np.uint64)
_TOP53 = 2.0**-53


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function (Stafford's variant 13), in place on ``uint64``; returns ``z``."""
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


def _gamma(g: int) -> int:
    """An odd Weyl increment from 64 random bits, as ``SplittableRandom.mixGamma`` (no sparse bit runs)."""
    g |= 1
    if bin(g ^ (g >> 1)).count("1") < 24:
        g ^= 0xAAAAAAAAAAAAAAAA
    return g


def key_of_seed(seed: int) -> tuple[int, int]:
    """The key ``(k, g)`` of the stream seeded with ``seed`` (from ``np.random.SeedSequence(seed)``)."""
    k, g = np.random.SeedSequence(seed).generate_state(2, np.uint64).tolist()
    return k, _gamma(g)


def uniforms(key: np.ndarray, gamma: np.ndarray, base: np.ndarray, start: int, count: int) -> np.ndarray:
    """Draws ``base + start .. base + start + count - 1`` of the streams ``(key, gamma)``, each a float
    in ``[0, 1)``: ``float64[count, len(key)]`` (draw-major)."""
    z = base + _AR[start : start + count, None]
    z *= gamma
    z += key
    return (_mix(z) >> np.uint64(11)) * _TOP53


class RowStreams:
    """One counter-based random stream per row of a batch (see the module docstring).

    The caches are ``[WIDTH, rows]`` tables stored flat, column-major so that rows drawing together
    read nearby memory: ``ptr[i] = column * rows + i`` is row ``i``'s next draw, ``base[i]`` the stream
    position of its column 0. A row that used its whole cache makes ``take`` raise ``IndexError``,
    which triggers a refill of every row (no bookkeeping on the hot path; the draws a row had left
    are recomputed, not lost).
    """

    def __init__(self, num_rows: int) -> None:
        self.num_rows = num_rows
        self.key = np.zeros(num_rows, np.uint64)
        self.gamma = np.ones(num_rows, np.uint64)
        self.base = np.zeros(num_rows, np.uint64)
        self._rows = np.arange(num_rows, dtype=np.int64)
        self.ptr = self._rows + WIDTH * num_rows  # cache used up: refilled at the first draw
        self.u = np.zeros(WIDTH * num_rows)  # cached draws
        self.t = np.zeros(WIDTH * num_rows, np.uint8)  # the same draws as throw indices floor(216 u)
        # (uint8: an eighth of int64's memory, so the table of 4096 rows stays in the CPU cache)
        self.seed(self._rows, [None] * num_rows)

    def seed(self, rows: np.ndarray, seeds: Sequence[int | None]) -> None:
        """Restart the streams of ``rows`` from ``seeds`` (one each; ``None``: fresh entropy)."""
        fresh = iter(np.random.SeedSequence().generate_state(2 * len(seeds), np.uint64).tolist())
        for i, s in zip(rows, seeds, strict=True):
            k, g = key_of_seed(s) if s is not None else (next(fresh), _gamma(next(fresh)))
            self.key[i], self.gamma[i] = k, g
        self.base[rows] = 0
        self.ptr[rows] = rows + WIDTH * self.num_rows

    def _refill(self) -> None:
        """Recompute every row's cache from where the row is in its stream (contiguous numpy calls)."""
        n = self.num_rows
        self.base += (self.ptr // n).astype(np.uint64)
        self.ptr[:] = self._rows
        u, t = self.u.reshape(WIDTH, n), self.t.reshape(WIDTH, n)
        step = max(1, _BLOCK // n)
        for c in range(0, WIDTH, step):
            x = u[c : c + step] = uniforms(self.key, self.gamma, self.base, c, min(step, WIDTH - c))
            x *= 216
            t[c : c + step] = x  # floor: throw index 0..215

    def _draw(self, cache: np.ndarray, rows: np.ndarray, k: int = 0) -> np.ndarray:
        """The next draw (``k = 0``) or next ``k`` draws (``[len(rows), k]``) of ``rows`` (distinct) from
        ``cache``; advances the rows."""
        step = self.num_rows
        for _ in range(2):
            f = self.ptr[rows]
            try:
                v = cache.take(f if not k else f[:, None] + step * np.arange(k))
                break
            except IndexError:  # a row used its whole cache
                self._refill()
        self.ptr[rows] = f + step * max(k, 1)
        return v

    def throws(self, rows: np.ndarray) -> np.ndarray:
        """One throw index ``0..215`` (three ordered dice, ``kernel.throw_index``) per row, ``uint8``."""
        f = self.ptr[rows]  # the hot path of the vector env: _draw inlined
        try:
            v = self.t.take(f)
        except IndexError:  # a row used its whole cache
            self._refill()
            f = self.ptr[rows]
            v = self.t.take(f)
        f += self.num_rows
        self.ptr[rows] = f
        return v

    def throws_k(self, rows: np.ndarray, k: int) -> np.ndarray:
        """``k`` throw indices per row, ``uint8[len(rows), k]`` (``1 <= k <= WIDTH / 2``)."""
        return self._draw(self.t, rows, k)

    def random(self, rows: np.ndarray) -> np.ndarray:
        """One uniform float in ``[0, 1)`` per row."""
        return self._draw(self.u, rows)

    def integers(self, rows: np.ndarray, high: int) -> np.ndarray:
        """One integer in ``0..high-1`` per row: ``floor(high * u)``."""
        return (self._draw(self.u, rows) * high).astype(np.int64)

    def rows(self, rows: np.ndarray) -> RowRandom:
        """The streams of ``rows`` as a :class:`RowRandom` (what a batched bot draws from)."""
        return RowRandom(self, rows)


class RowRandom:
    """Per-row draws for a batch of ``len(rows)`` views: each call takes one value from each row's stream.

    The vector env hands one to batched bots as ``batch.row_rng`` (see :mod:`zanzibar_env.core.bots`).
    Row ``b`` of a result comes from row ``b``'s own stream, so a bot that draws through it, the same
    calls for a row whatever the other rows are, keeps every env reproducible from its own seed.
    """

    def __init__(self, streams: RowStreams, rows: np.ndarray) -> None:
        self._streams, self._rows = streams, rows

    def __len__(self) -> int:
        return int(self._rows.size)

    def __getitem__(self, index: np.ndarray) -> RowRandom:
        """The streams of a subset of the rows (for a bot that passes part of a batch on)."""
        return RowRandom(self._streams, self._rows[index])

    def random(self) -> np.ndarray:
        """``float64[B]`` uniform in ``[0, 1)``."""
        return self._streams.random(self._rows)

    def integers(self, high: int) -> np.ndarray:
        """``int64[B]`` uniform in ``0..high-1`` (``high`` >= 1)."""
        if isinstance(high, bool) or not isinstance(high, (int, np.integer)) or high < 1:
            raise ValueError(f"high must be a positive integer, got {high!r}")
        return self._streams.integers(self._rows, int(high))
