"""The batched game core of the vector env: Zanzibar for ``N`` tables as ``[N, ...]`` numpy arrays.

Pure numpy (no gymnasium): dice are throw indices ``0..215`` taken from a pool filled by one
``rng.integers`` call at a time, and a roll is one table lookup ``TRANSITION[multiset, hold, throw]``;
hands are ranked with the ruleset's ``HandTable``. :class:`BatchedGame` is mixed into
:class:`zanzibar_env.envs.vector.ZanzibarVectorEnv`, which sets the attributes it reads.
"""

from __future__ import annotations


import numpy as np

from ..core.dice import DiceSource
from ..core.engine import NUM_ACTIONS, STOP
from ..core.hands import MULTISET_INDEX, MULTISETS, THROWS
from ..core.observation import MAX_EARLIER_PAYMENTS
from ..core.rules import MAX_PLAYERS, Ruleset

_MS_DICE = np.array(MULTISETS, np.int64)  # [56, 3] sorted dice of each multiset


def _transition_table() -> np.ndarray:
    """``T[(m * 8 + hold) * 216 + t]``: the multiset after holding ``hold`` of ``m`` and throwing ``t``.

    The unheld dice take the throw's digits in order (first unheld die <- first digit), so a scripted
    source's faces land exactly as in the engine (``sorted(kept + new)``).
    """
    out = np.zeros((56, NUM_ACTIONS, 216), np.int64)
    for m, dice in enumerate(MULTISETS):
        for hold in range(NUM_ACTIONS):
            kept = [d for i, d in enumerate(dice) if hold >> i & 1]
            for t, throw in enumerate(THROWS):
                new = list(throw[: 3 - len(kept)])
                out[m, hold, t] = MULTISET_INDEX[tuple(sorted(kept + new))]  # type: ignore[index]
    return out.reshape(-1)


_TRANSITION = _transition_table()
_POPCOUNT = np.array([bin(a).count("1") for a in range(NUM_ACTIONS)], np.int64)
_BIG = 1 << 30


def _throw_index(faces: list[int]) -> int:
    """Throw index of up to three faces, missing digits as face 1 (0): ``36*(d1-1) + 6*(d2-1) + (d3-1)``."""
    f = [*faces, 1, 1, 1][:3]
    return 36 * (f[0] - 1) + 6 * (f[1] - 1) + (f[2] - 1)


class BatchedGame:
    """State arrays and the rules of ``num_envs`` tables; every method works on a set of rows."""

    rules: Ruleset
    n: int
    num_envs: int
    rng: np.random.Generator
    episode: str
    reward_kind: str
    max_rounds: int | None
    fixed_seat: int | None
    _pool: np.ndarray
    _pool_pos: int
    _sources: list[DiceSource] | None

    # ---- set-up ---------------------------------------------------------------------------------
    def _setup_tables(self) -> None:
        r = self.rules
        t = r.table
        self.RANK_MS, self.CAT_MS, self.RANK_THROW = (
            t.rank_of_multiset,
            t.category_of_multiset,
            t.rank_of_throw,
        )
        self.PAY = np.array([r.payment_of(c) for c in t.categories], np.int64)
        self.instant = r.instant_zanzibar != "off"
        self.lives = r.stake == "lives"
        legal = np.ones(NUM_ACTIONS, bool) if r.holds_allowed else np.isin(np.arange(NUM_ACTIONS), [0, STOP])
        self._legal = legal
        self.seats = np.arange(self.n)
        self._rot = (self.seats[:, None] + self.seats[None, :]) % self.n  # _rot[a] = seats from a, clockwise
        self._obs_tables()

    def _obs_tables(self) -> None:
        """Observation pieces as float32 tables, each entry the float64 expression of ``encode_batch``."""
        t, mr = self.rules.table, self.rules.max_rolls
        top = max(t.num_ranks - 1, 1)
        self._T_MS = np.column_stack([_MS_DICE / 6.0, t.rank_of_multiset / top]).astype(np.float32)  # 0-3
        u, lim = np.meshgrid(np.arange(mr + 1), np.arange(mr + 1), indexing="ij")
        self._T_ROLL = np.stack([u / mr, lim / mr, (lim - u) / mr], -1).astype(np.float32)  # 4-6: [used, lim]
        self._T_7 = (np.arange(MAX_PLAYERS) / (MAX_PLAYERS - 1)).astype(np.float32)  # 8, 11: count / 7
        self._T_RANK = np.concatenate([[0.0], np.arange(t.num_ranks) / top]).astype(np.float32)  # [rank + 1]

    def _alloc(self) -> None:
        N, n = self.num_envs, self.n
        z = lambda: np.zeros(N, np.int64)  # noqa: E731
        self.stacks = np.zeros((N, n), np.int64)
        self.hrank = np.full((N, n), -1, np.int64)  # rank of each seat's hand this round, -1 = not yet
        self.hcat = np.zeros((N, n), np.int64)  # category index of each seat's hand this round
        self.seat, self.start, self.cur, self.pos, self.norder = z(), z(), z(), z(), z()
        self.limit, self.rolls, self.ms, self.rounds = z(), z(), z(), z()
        self.lo_rank, self.lo_count, self.hi_rank, self.hi_seat, self.epay = z(), z(), z(), z(), z()
        self.inst = np.zeros(N, bool)  # the round ended on an instant Zanzibar
        self.term, self.trunc, self.passing = np.zeros(N, bool), np.zeros(N, bool), np.zeros(N, bool)
        self.acc = np.zeros(N, np.float64)  # reward of the step being played
        self.pend = np.zeros(N, np.float64)  # reward of new episodes before their first decision (next step)
        self.fresh = np.zeros(N, bool)  # the row's episode began during this step (or this reset)

    def set_dice_sources(self, sources: list[DiceSource] | None) -> None:
        """Test hook: draw env ``i``'s dice from ``sources[i]`` in the engine's order (``None``: random)."""
        if sources is not None and len(sources) != self.num_envs:
            raise ValueError(f"need one dice source per env ({self.num_envs}), got {len(sources)}")
        self._sources = sources

    # ---- dice -----------------------------------------------------------------------------------
    def _take(self, k: int) -> np.ndarray:
        if self._pool_pos + k > self._pool.size:
            self._pool = self.rng.integers(
                0, 216, size=max(16 * self.num_envs, 4096, k)
            )  # one call per refill
            self._pool_pos = 0
        out = self._pool[self._pool_pos : self._pool_pos + k]
        self._pool_pos += k
        return out

    def _throws(self, r: np.ndarray, held: np.ndarray) -> np.ndarray:
        """One throw index per row of ``r`` for the unheld dice of each (``held`` = hold masks)."""
        if self._sources is None:
            return self._take(r.size)
        counts = 3 - _POPCOUNT[held]
        src = self._sources
        return np.array([_throw_index(src[i].roll(int(k))) for i, k in zip(r, counts, strict=True)], np.int64)

    def _rolloff_throws(self, r: np.ndarray, tied: np.ndarray) -> np.ndarray:
        """Throw indices ``[R, n]`` for the tied seats, drawn seat by seat in play order."""
        if self._sources is None:
            return self._take(r.size * self.n).reshape(r.size, self.n)
        out = np.zeros((r.size, self.n), np.int64)
        for j, i in enumerate(r):
            for k in range(self.n):
                s = (self.start[i] + k) % self.n
                if tied[j, s]:
                    out[j, s] = _throw_index(self._sources[i].roll(3))
        return out

    # ---- turns ----------------------------------------------------------------------------------
    def _roll(self, r: np.ndarray, held: np.ndarray) -> np.ndarray:
        """Re-throw the unheld dice of rows ``r``; returns where the turn is over (limit or instant)."""
        ms = _TRANSITION[(self.ms[r] * NUM_ACTIONS + held) * 216 + self._throws(r, held)]
        self.ms[r] = ms
        rolls = self.rolls[r] + 1
        self.rolls[r] = rolls
        over = rolls >= np.where(self.pos[r] == 0, self.rules.max_rolls, self.limit[r])
        if self.instant:
            over |= self.CAT_MS[ms] == 0
        return over

    def _start_turn(self, r: np.ndarray) -> np.ndarray:
        self.rolls[r] = 0
        return self._roll(r, np.zeros(r.size, np.int64))

    def _act(self, r: np.ndarray, act: np.ndarray) -> np.ndarray:
        stop = act == STOP
        over = stop.copy()
        go = ~stop
        if go.any():
            over[go] = self._roll(r[go], act[go])
        return over

    def _end_turn(self, t: np.ndarray) -> np.ndarray:
        """Record the current player's hand; returns where the round is over."""
        c, ms = self.cur[t], self.ms[t]
        rk, ct = self.RANK_MS[ms], self.CAT_MS[ms]
        self.hrank[t, c], self.hcat[t, c] = rk, ct
        lo = self.lo_rank[t]
        new_lo = (lo < 0) | (rk < lo)
        self.lo_rank[t] = np.where(new_lo, rk, lo)
        self.lo_count[t] = np.where(new_lo, 1, self.lo_count[t] + (rk == lo))
        new_hi = rk > self.hi_rank[t]
        self.hi_rank[t] = np.where(new_hi, rk, self.hi_rank[t])
        self.hi_seat[t] = np.where(new_hi, c, self.hi_seat[t])
        if self.rules.payment == "own_hand":
            self.epay[t] += self.PAY[ct]
        p = self.pos[t]
        if self.rules.first_roller_sets_limit:
            self.limit[t] = np.where(p == 0, self.rolls[t], self.limit[t])
        self.pos[t] = p + 1
        over = p + 1 >= self.norder[t]
        if self.instant:
            inst = ct == 0
            self.inst[t] = inst
            over |= inst
        return over

    def _next_active(self, r: np.ndarray, after: np.ndarray) -> np.ndarray:
        """The first seat clockwise after ``after`` that is still in the game (itself if none other)."""
        if not self.lives:
            return (after + 1) % self.n
        rel = (self.seats[None, :] - after[:, None] - 1) % self.n
        return np.argmin(np.where(self.stacks[r] > 0, rel, _BIG), axis=1)

    def _new_round(self, r: np.ndarray, starter: np.ndarray) -> None:
        self.start[r], self.cur[r], self.pos[r] = starter, starter, 0
        self.norder[r] = (self.stacks[r] > 0).sum(1) if self.lives else self.n
        self.limit[r] = self.rules.max_rolls
        self.hrank[r] = -1
        self.lo_rank[r], self.lo_count[r], self.hi_rank[r], self.hi_seat[r], self.epay[r] = -1, 0, -1, -1, 0
        self.inst[r] = False

    def _resolve(self, t: np.ndarray) -> None:
        """Rows whose turn is over: end turns, settle rounds, start next turns until a decision or the end."""
        while t.size:
            over = self._end_turn(t)
            c = t[~over]
            self.cur[c] = self._next_active(c, self.cur[c])
            s = t[over]
            if s.size:
                cont = self._settle(s)
                if cont.size:
                    hs = self.hi_seat[cont]
                    alive = self.stacks[cont, hs] > 0 if self.lives else np.ones(cont.size, bool)
                    self._new_round(cont, np.where(alive, hs, self._next_active(cont, hs)))
                    c = np.concatenate([c, cont])
                ended = s[(self.term[s] | self.trunc[s]) & ~self.fresh[s]]
                if ended.size:  # SAME_STEP autoreset: report the end, begin the next episode at once
                    self._finish(ended)
                    self.begin_episode(ended)
                    c = np.concatenate([c, ended])
            t = c[self._start_turn(c)]

    def _finish(self, e: np.ndarray) -> None:
        """Record the end of the episodes of rows ``e`` (the vector env keeps final obs and infos)."""

    def begin_episode(self, r: np.ndarray, seats: np.ndarray | None = None) -> None:
        """Start a new game in rows ``r``: full stacks, a learner seat, seat 0 to roll (turn not started)."""
        self.stacks[r] = self.rules.starting_stack
        if seats is not None:
            self.seat[r] = seats
        elif self.fixed_seat is not None:
            self.seat[r] = self.fixed_seat
        else:
            self.seat[r] = self.rng.integers(self.n, size=r.size)
        self.rounds[r] = 0
        self.term[r], self.trunc[r], self.fresh[r] = False, False, True
        self._new_round(r, np.zeros(r.size, np.int64))

    def _reward(self, s: np.ndarray, x: np.ndarray) -> None:
        """Credit rewards: to this step, or to the next one for episodes that began in this step."""
        fresh = self.fresh[s]
        self.acc[s] += np.where(fresh, 0.0, x)
        self.pend[s] += np.where(fresh, x, 0.0)

    # ---- settlement -----------------------------------------------------------------------------
    def _losers(self, s: np.ndarray) -> np.ndarray:
        """bool ``[S, n]``: who loses each settling round (roll-offs resolved)."""
        hr = self.hrank[s]
        played = hr >= 0
        tied = played & (hr == self.lo_rank[s][:, None])
        if self.instant:
            inst = self.inst[s]
            if self.rules.instant_zanzibar == "no_loss":
                tied[inst] = False
            else:  # worst_so_far_loses: the worst hand among the others
                others = played & (self.seats[None, :] != self.cur[s][:, None])
                worst = np.where(others, hr, _BIG).min(1, keepdims=True)
                tied[inst] = (others & (hr == worst))[inst]
        if self.rules.tie_rule == "rolloff":
            multi = tied.sum(1) > 1
            if multi.any():
                tied[multi] = self._rolloff(s[multi], tied[multi])
        return tied

    def _rolloff(self, r: np.ndarray, tied: np.ndarray) -> np.ndarray:
        """Tied seats throw all three dice again, repeated while still tied for lowest."""
        while True:
            multi = tied.sum(1) > 1
            if not multi.any():
                return tied
            idx = np.flatnonzero(multi)
            sub = tied[idx]
            rk = np.where(sub, self.RANK_THROW[self._rolloff_throws(r[idx], sub)], _BIG)
            tied[idx] = sub & (rk == rk.min(1, keepdims=True))

    def _pay(self, s: np.ndarray, losers: np.ndarray, st: np.ndarray) -> np.ndarray:
        """Stacks after payment: lives lost, or chips paid by every non-loser to each loser in play order."""
        if self.lives:
            return np.where(losers, np.maximum(st - self.rules.lives_lost, 0), st)
        if self.rules.payment == "highest_hand":
            amt = self.PAY[self.hcat[s, self.hi_seat[s]]][:, None] + np.zeros_like(st)
        else:
            amt = self.PAY[self.hcat[s]]
        payer = ~losers
        nl = losers.sum(1, keepdims=True)
        if (nl <= 1).all():  # one loser (or none): each payer pays what it can
            paid = np.where(payer & (nl == 1), np.minimum(st, amt), 0)
            return st - paid + losers * paid.sum(1, keepdims=True)
        rel = (self.seats[None, :] - self.start[s][:, None]) % self.n
        k = (losers[:, None, :] & (rel[:, None, :] < rel[:, :, None])).sum(2)  # losers before each loser
        each = np.clip(
            st[:, None, :] - k[:, :, None] * amt[:, None, :], 0, amt[:, None, :]
        )  # [S, loser, payer]
        recv = np.where(payer[:, None, :], each, 0).sum(2)
        paid = np.where(payer, np.minimum(st, losers.sum(1, keepdims=True) * amt), 0)
        return st - paid + np.where(losers, recv, 0)

    def _settle(self, s: np.ndarray) -> np.ndarray:
        """Settle the rounds of rows ``s``; pay rewards, flag episode ends; returns rows that play on."""
        losers = self._losers(s)
        st = self.stacks[s]
        new = self._pay(s, losers, st)
        self.stacks[s] = new
        self.rounds[s] += 1
        seat = self.seat[s]
        rows = np.arange(s.size)
        if self.reward_kind == "chips":
            tr = new[rows, seat] - st[rows, seat]
            self._reward(s, tr if self.lives else -tr)
        if self.episode == "round":
            if self.reward_kind == "win":
                active = st > 0 if self.lives else np.ones_like(losers)
                others = (active & ~losers).sum(1)
                win = np.where(losers[rows, seat], -1.0, 1.0 / np.maximum(others, 1))
                self._reward(s, np.where(losers.any(1), win, 0.0))
            self.term[s] = True
            return s[:0]
        return self._game_end(s, new, st)

    def _game_end(self, s: np.ndarray, new: np.ndarray, st: np.ndarray) -> np.ndarray:
        rows, seat = np.arange(s.size), self.seat[s]
        if self.lives:
            alive = new > 0
            na = alive.sum(1)
            played = self.hrank[s] >= 0
            best = np.where(played, st, -1).max(1, keepdims=True)
            winners = np.where((na == 0)[:, None], played & (st == best), alive)
            over = na <= 1
            out = ~over & ~alive[rows, seat]  # the learner is out while others play on
        else:
            winners = new == 0
            over = winners.any(1)
            out = np.zeros(s.size, bool)
        if self.reward_kind == "win":
            k = np.maximum(winners.sum(1), 1)
            self._reward(
                s, np.where(over, np.where(winners[rows, seat], 1.0 / k, -1.0), np.where(out, -1.0, 0.0))
            )
        term = over | out
        self.term[s] = term
        if self.max_rounds is not None:
            self.trunc[s] = ~term & (self.rounds[s] >= self.max_rounds)
        return s[~(term | self.trunc[s])]

    def encode_rows(self, r: np.ndarray) -> np.ndarray:
        """``encode_batch(view_batch(r))`` from lookup tables (identical floats; tests/test_vector.py)."""
        o = np.empty((r.size, 33), np.float32)
        ms, pos, n = self.ms[r], self.pos[r], self.n
        lo, hi = self.lo_rank[r], self.hi_rank[r]
        o[:, 0:4] = self._T_MS[ms]  # dice / 6, hand rank / best
        o[:, 4:7] = self._T_ROLL[self.rolls[r], np.where(pos == 0, self.rules.max_rolls, self.limit[r])]
        o[:, 7] = pos == 0
        o[:, 8] = self._T_7[self.norder[r] - pos - 1]
        has = lo >= 0
        o[:, 9] = has
        o[:, 10] = self._T_RANK[lo + 1]  # lo = -1 (none) -> 0
        o[:, 11] = self._T_7[self.lo_count[r]]
        o[:, 12] = self._T_RANK[hi + 1]  # hi = -1 exactly when lo = -1
        rank = self.RANK_MS[ms]
        o[:, 13] = np.sign(rank - lo) * has
        o[:, 14] = np.sign(rank - hi) * has
        o[:, 15] = self.epay[r] / MAX_EARLIER_PAYMENTS
        st = self.stacks[r[:, None], self._rot[self.cur[r]]]
        o[:, 16 : 16 + n] = st / self.rules.starting_stack
        o[:, 24 : 24 + n] = st > 0 if self.lives else 1
        o[:, 16 + n : 24] = 0
        o[:, 24 + n : 32] = 0
        o[:, 32] = n / MAX_PLAYERS
        return o
