"""The numpy engine, :class:`NumpyGames`: ``N`` games as ``[N, ...]`` numpy arrays (the vector env's core).

Pure numpy (no gymnasium): dice are throw indices ``0..215``; every draw (dice, roll-offs, the
learner's seat) comes from the row's own random stream (:class:`~zanzibar_env.core.streams.RowStreams`),
so a row's game depends on its own seed only. Every rule comes from the kernel
(:mod:`zanzibar_env.core.kernel`, :mod:`zanzibar_env.core.settlement`), called with ``[rows]`` arrays
where the scalar engine passes ints: this module only keeps the state arrays, draws dice and routes
rows. :class:`NumpyGames` is mixed into :class:`zanzibar_env.envs.vector.ZanzibarVectorEnv`, which
sets the attributes it reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import kernel as K
from ..core import settlement as S
from ..core.dice import DiceSource
from ..core.hands import MULTISETS
from ..core.kernel import STOP, throw_index
from ..core.observation import encoder
from ..core.rules import MAX_PLAYERS, Ruleset
from ..core.streams import RowStreams

_MS_DICE = np.array(MULTISETS, np.int64)  # [56, 3] sorted dice of each multiset
_POPCOUNT = np.array([3 - k for k in K.REROLLED], np.int64)  # dice each hold mask keeps
_BIG = 1 << 30


class NumpyGames:
    """State arrays and the rules of ``num_envs`` tables; every method works on a set of rows."""

    rules: Ruleset
    n: int
    num_envs: int
    _streams: RowStreams
    episode: str
    reward_kind: str
    max_rounds: int | None
    fixed_seat: int | None
    seat_of: np.ndarray | None  # the learner's seat per row when given per env (-1: drawn), else None
    _sources: list[DiceSource] | None
    same_step: bool = True  # autoreset mode: SAME_STEP (True) or NEXT_STEP

    # ---- set-up ---------------------------------------------------------------------------------
    def _setup_tables(self) -> None:
        r = self.rules
        t = r.table
        self.RANK_MS, self.CAT_MS, self.RANK_THROW = (
            t.rank_of_multiset,
            t.category_of_multiset,
            t.rank_of_throw,
        )
        self.PAY = K.chips_of_category(r)
        self.OWN_PAY = K.own_hand_payment(r)
        self._own_pay = bool(self.OWN_PAY.any())
        self.INSTANT = K.ends_turn_at_once(r)
        self.LIVES = K.lives_lost_by_rank(r)
        self.instant = r.instant_zanzibar != "off"
        self.lives = r.stake == "lives"
        self._legal = K.legal_mask(r.holds_allowed)
        self.seats = np.arange(self.n)
        self._rot = (self.seats[:, None] + self.seats[None, :]) % self.n  # _rot[a] = seats from a, clockwise
        self._next_seat = self._rot[:, 1 % self.n]  # the seat after each, clockwise
        self._rot_t = np.ascontiguousarray(self._rot.T)  # _rot_t[p, a]: the seat at play position p from a
        # _rel_seat[a * n + b] = (b - a) % n: the play position of seat b in a round that a starts
        self._rel_seat = ((self.seats[None, :] - self.seats[:, None]) % self.n).reshape(-1)
        self._enc = encoder(r)
        self._best_of_turn = r.final_hand == "best"  # else best_after_roll is the identity

    def _alloc(self) -> None:
        N, n = self.num_envs, self.n

        def z() -> np.ndarray:
            return np.zeros(N, np.int64)

        self.stacks = np.zeros((N, n), np.int64)
        self.hrank = np.full((N, n), -1, np.int64)  # rank of each seat's hand this round, -1 = not yet
        self.hcat = np.zeros((N, n), np.int64)  # category index of each seat's hand this round
        self.seat, self.start, self.cur, self.pos, self.norder = z(), z(), z(), z(), z()
        self.limit, self.rolls, self.ms, self.rounds = z(), z(), z(), z()
        self.lo_rank, self.lo_count, self.hi_rank, self.hi_seat, self.epay = z(), z(), z(), z(), z()
        self.norder[:] = n
        self.best_rank, self.best_ms = z(), z()  # the hand the turn scores if it stops now
        self.tlim = z()  # the roll limit of the turn being played (kernel.turn_limit at its first throw)
        self.inst = np.zeros(N, bool)  # the round ended on an instant Zanzibar
        self.term, self.trunc, self.passing = np.zeros(N, bool), np.zeros(N, bool), np.zeros(N, bool)
        self.acc = np.zeros(N, np.float64)  # reward of the step being played
        self.pend = np.zeros(N, np.float64)  # reward of new episodes before their first decision (next step)
        self.fresh = np.zeros(N, bool)  # the row's episode began during this step (or this reset)
        self._all_rows = np.arange(N)
        self._row_at = self._all_rows[:, None] * n  # flat index of each row's seat 0 in [N, n] arrays
        # views of the [N, n] state by flat (row, seat) index (a fancy set on them beats put)
        self._stacks_flat, self._hrank_flat = self.stacks.reshape(-1), self.hrank.reshape(-1)
        self._hcat_flat = self.hcat.reshape(-1)

    def set_dice_sources(self, sources: list[DiceSource] | None) -> None:
        """Test hook: draw env ``i``'s dice from ``sources[i]`` in the engine's order (``None``: random)."""
        if sources is not None and len(sources) != self.num_envs:
            raise ValueError(f"need one dice source per env ({self.num_envs}), got {len(sources)}")
        self._sources = sources

    # ---- dice -----------------------------------------------------------------------------------
    def _throws(self, r: np.ndarray, held: np.ndarray) -> np.ndarray:
        """One throw index per row of ``r`` for the unheld dice of each (``held`` = hold masks)."""
        if self._sources is None:
            return self._streams.throws(r)
        counts = 3 - _POPCOUNT[held]
        src = self._sources
        return np.array([throw_index(src[i].roll(int(k))) for i, k in zip(r, counts, strict=True)], np.int64)

    def _rolloff_throws(self, r: np.ndarray, tied: list[np.ndarray], multi: np.ndarray) -> list[np.ndarray]:
        """Roll-off throw ranks per play position (``[R]`` each) for the tied seats of rows ``multi``."""
        n = self.n
        out = np.zeros((r.size, n), np.int64)
        if self._sources is None:  # the tied rows throw for every seat; the tied seats' throws count
            m = np.flatnonzero(multi)
            out[m] = self.RANK_THROW.take(self._streams.throws_k(r.take(m), n))
            return list(out.T)
        for j in np.flatnonzero(multi):
            for k in range(n):
                if tied[k][j]:
                    out[j, k] = self.RANK_THROW[throw_index(self._sources[r[j]].roll(3))]
        return list(out.T)

    # ---- turns ----------------------------------------------------------------------------------
    def _roll(self, r: np.ndarray, held: np.ndarray, first: bool = False) -> np.ndarray:
        """Re-throw the unheld dice of rows ``r`` (``first``: the turn's first throw); returns where the
        turn is over (limit or instant)."""
        throw = self._throws(r, held)
        if first:  # no hand yet (best rank -1), no rolls used; nothing held: the dice before do not count
            ms = K.roll(0, 0, throw)
            rolls: Any = 1
            lim = K.turn_limit(self.pos[r] == 0, self.limit[r], self.rules.max_rolls)
            self.tlim[r] = lim  # the turn's roll limit (as the engine's _turn_limit)
        else:
            ms = K.roll(self.ms[r], held, throw)
            rolls, lim = self.rolls[r] + 1, self.tlim[r]
        self.ms[r] = ms
        rank = self.RANK_MS.take(ms)
        if self._best_of_turn:
            best = K.best_after_roll(
                -1 if first else self.best_rank[r], 0 if first else self.best_ms[r], rank, ms, self.rules
            )
        else:  # final_hand: last -- best_after_roll is the identity (rank and multiset of this throw)
            best = rank, ms
        self.best_rank[r], self.best_ms[r] = best
        self.rolls[r] = rolls
        return K.turn_over(rolls, lim, self.INSTANT.take(ms) if self.instant else False)

    def _start_turn(self, r: np.ndarray) -> np.ndarray:
        return self._roll(r, np.zeros(r.size, np.int64), first=True)

    def _apply(self, r: np.ndarray, act: np.ndarray) -> np.ndarray:
        stop = act == STOP
        k = np.count_nonzero(stop)
        if not k:  # every row rolls again: no masks
            return self._roll(r, act)
        if k == stop.size:
            return stop
        over = stop.copy()
        go = ~stop
        over[go] = self._roll(r[go], act[go])
        return over

    def _end_turn(self, t: np.ndarray) -> np.ndarray:
        """Record the current player's hand; returns where the round is over."""
        c, ms = self.cur[t], self.best_ms[t]
        rk = self.RANK_MS.take(ms)
        at = t * self.n + c  # flat index of (row, seat)
        self._hrank_flat[at] = rk
        self._hcat_flat[at] = self.CAT_MS.take(ms)
        (self.lo_rank[t], self.lo_count[t], _, self.hi_rank[t], self.hi_seat[t]) = K.public_after_turn(
            self.lo_rank[t], self.lo_count[t], 0, self.hi_rank[t], self.hi_seat[t], rk, c
        )  # (the lowest hand's seat is not kept: nothing here reads it)
        if self._own_pay:  # (else every hand adds 0)
            self.epay[t] += self.OWN_PAY.take(ms)
        p = self.pos[t]
        if self.rules.first_roller_sets_limit:  # (else the limit stays)
            self.limit[t] = K.limit_after_turn(p == 0, self.rolls[t], self.limit[t], self.rules)
        p += 1
        self.pos[t] = p
        inst: Any = False  # (no instant top hand in this ruleset: inst stays False)
        if self.instant:
            inst = self.INSTANT.take(self.ms[t])
            self.inst[t] = inst
        return K.round_over(p, self.norder[t], inst)

    def _rel(self, a: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Stacks and active flags ``[R, 8]`` of rows ``r`` relative to seats ``a`` (``ViewBatch`` fields,
        padded with 0)."""
        st = self.stacks[r[:, None], self._rot[a]]
        stacks = np.zeros((r.size, MAX_PLAYERS), np.int64)
        active = np.zeros((r.size, MAX_PLAYERS), np.int64)
        stacks[:, : self.n] = st
        active[:, : self.n] = st > 0 if self.lives else 1
        return stacks, active

    def _next_active(self, r: np.ndarray, after: np.ndarray) -> np.ndarray:
        """The first seat clockwise after ``after`` that is still in the game (itself if none other)."""
        if not self.lives:
            return self._next_seat.take(after)
        rel = (self.seats[None, :] - after[:, None] - 1) % self.n
        return np.argmin(np.where(self.stacks[r] > 0, rel, _BIG), axis=1)

    def _new_round(self, r: np.ndarray, starter: np.ndarray) -> None:
        self.start[r], self.cur[r], self.pos[r] = starter, starter, 0
        if self.lives:  # (else every seat plays every round: norder stays n)
            self.norder[r] = (self.stacks[r] > 0).sum(1)
        self.limit[r] = self.rules.max_rolls
        self.hrank[r] = -1
        self.lo_rank[r], self.lo_count[r], self.hi_rank[r], self.hi_seat[r] = -1, 0, -1, -1
        if self._own_pay:  # (else nothing is ever paid before a turn: epay stays 0)
            self.epay[r] = 0
        if self.instant:  # (else inst stays False)
            self.inst[r] = False

    def _resolve(self, t: np.ndarray) -> None:
        """Rows whose turn is over: end turns, settle rounds, start next turns until a decision or the end."""
        while t.size:
            s = self._turns_over(t)
            if not s.size:
                return
            cont, ended = self._settle(s)
            if cont.size:
                self._new_round(cont, self._starter(cont))
            if ended.size:  # report the end; SAME_STEP autoreset: begin the next episode at once
                self._finish(ended)
                if self.same_step:
                    self.begin_episode(ended)
                    cont = np.concatenate([cont, ended])
            t = cont[self._start_turn(cont)]

    def _turns_over(self, t: np.ndarray) -> np.ndarray:
        """End the turns of rows ``t`` and start the next players' turns, ending again those over at once;
        returns the rows whose round is over (to settle: together, one settlement per pass)."""
        done = [t[:0]]
        while t.size:
            over = self._end_turn(t)
            k = np.count_nonzero(over)
            if k:
                done.append(t[over] if k < t.size else t)
                if k == t.size:
                    break
                t = t[~over]
            self.cur[t] = self._next_active(t, self.cur[t])
            t = t[self._start_turn(t)]
        return done[-1] if len(done) == 2 else np.concatenate(done)

    def _starter(self, r: np.ndarray) -> np.ndarray:
        """Who rolls first in the next round of rows ``r`` (``settlement.next_starter``)."""
        return S.next_starter(self.rules, list(self.stacks[r].T), self.hi_seat[r])

    def _finish(self, e: np.ndarray) -> None:
        """Record the end of the episodes of rows ``e`` (the vector env keeps final obs and infos)."""

    def begin_episode(self, r: np.ndarray, seats: np.ndarray | None = None) -> None:
        """Start a new game in rows ``r``: full stacks, a learner seat, seat 0 to roll (turn not started)."""
        self.stacks[r] = self.rules.starting_stack
        if seats is not None:  # (-1: drawn, as reset(options={"seat": "random"}) asks)
            seats = np.array(seats, np.int64)
            drawn = seats < 0
            if drawn.any():
                seats[drawn] = self._streams.integers(r[drawn], self.n)
            self.seat[r] = seats
        elif self.seat_of is not None:
            seats = self.seat_of[r]
            drawn = seats < 0
            if drawn.any():
                seats[drawn] = self._streams.integers(r[drawn], self.n)
            self.seat[r] = seats
        elif self.fixed_seat is not None:
            self.seat[r] = self.fixed_seat
        else:
            self.seat[r] = self._streams.integers(r, self.n)
        self.rounds[r] = 0
        self.term[r], self.trunc[r], self.fresh[r] = False, False, True
        self._new_round(r, np.zeros(r.size, np.int64))

    def _reward(self, s: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Credit rewards: to this step, or to the next one for episodes that began in this step; returns
        which rows of ``s`` began in this step."""
        fresh = self.fresh[s]
        if not np.count_nonzero(fresh):  # (the usual case: nothing to defer)
            self.acc[s] += x
            return fresh
        self.acc[s] += np.where(fresh, 0.0, x)
        self.pend[s] += np.where(fresh, x, 0.0)
        return fresh

    # ---- settlement (kernel: settlement.py, one column per play position) --------------------------
    def _settle(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Settle the rounds of rows ``s``; pay rewards, flag episode ends; returns the rows that play on
        and the rows whose episode ended (not counting episodes that began in this step)."""
        rules, n, start = self.rules, self.n, self.start[s]
        sn = s * n  # flat index into the [N, n] state of each row's seat 0
        at = self._rot_t.take(start, 1) + sn  # each (play position, row): [n, S] (= _rot[start].T)
        hr = list(self.hrank.take(at))
        inst = self.inst[s]
        losers = self._rolloffs(s, S.round_losers(rules, hr, self.lo_rank[s], inst), inst)
        st = self.stacks.take(at)
        before = list(st)
        amounts, lost = None, 0  # (lives or penalty points lost: not read in chip rulesets)
        if rules.stake == "chips":
            hi_cat = self.hcat.take(sn + self.hi_seat[s])
            amounts = S.chip_amounts(rules, self.PAY, list(self.hcat.take(at)), hi_cat)
        else:
            lost = self.LIVES.take(self.hi_rank[s])
        after = S.stacks_after(rules, before, losers, amounts, lost)
        new = np.array(after)
        self._stacks_flat[at] = new
        rounds = self.rounds[s] + 1
        self.rounds[s] = rounds
        played = [r >= 0 for r in hr] if self.lives else hr  # (only the lives tie-break reads it)
        won, ended = S.game_winners(rules, before, after, played, rounds)
        over = np.asarray(ended)  # (a Python False only where no seat could end the game: an array here)
        me = self._rel_seat.take(start * n + self.seat[s])  # the learner's play position
        return self._game_end(s, me, new, st, won, over, losers, rounds)

    def _rolloffs(self, s: np.ndarray, tied: list[np.ndarray], inst: np.ndarray) -> list[np.ndarray]:
        """The losers of rows ``s`` after roll-offs (kernel: ``settlement.rolloff``), played by the rows
        that may hold a tie (kernel: ``settlement.may_tie``, as the engine)."""
        m = np.flatnonzero(S.may_tie(self.lo_count[s], inst))
        if not m.size:
            return tied
        rows = s.take(m)
        sub = S.rolloff(self.rules, [t.take(m) for t in tied], lambda *a: self._rolloff_throws(rows, *a))
        for t, x in zip(tied, sub, strict=True):
            t[m] = x
        return tied

    def _game_end(
        self,
        s: np.ndarray,
        me: np.ndarray,
        new: np.ndarray,
        st: np.ndarray,
        won: list[np.ndarray],
        over: np.ndarray,
        losers: list[np.ndarray],
        rounds: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rewards and episode ends of the learners (play position ``me``) of rows ``s`` (kernel:
        ``settlement.episode_step``); ``new``/``st`` are stacks ``[position, S]`` after/before the round.
        Returns the rows that play on and the rows whose episode ended (see :meth:`_settle`)."""
        mi = me * s.size + self._all_rows[: s.size]  # flat index of (me, row) into the [n, S] arrays
        win_game: Any = 0.0
        result, k = 0.0, 0
        if self.reward_kind == "win" and self.episode == "round":
            lost = np.array(losers)
            active = st > 0 if self.lives else np.ones_like(lost)
            result = S.round_win_reward(lost.any(0), lost.take(mi), (active & ~lost).sum(0))
        elif self.reward_kind == "win":
            won_arr = np.array(won)
            win_game, k = won_arr.take(mi), won_arr.sum(0)
        mine = new.take(mi)
        reward, term = S.episode_step(
            self.rules,
            self.episode,
            self.reward_kind,
            mine - st.take(mi),
            won=win_game,
            winners=k,
            over=over,
            alive=mine > 0,
            round_result=result,
        )
        fresh = self._reward(s, reward)
        if type(term) is not np.ndarray:  # rounds: always True
            term = np.full(s.shape, bool(term))
        self.term[s] = term
        if self.max_rounds is not None and self.episode == "game":
            trunc = ~term & (rounds >= self.max_rounds)
            self.trunc[s] = trunc
            done = term | trunc
        else:
            done = term | self.trunc[s]
        if not np.count_nonzero(done):  # (the usual case: every game goes on)
            return s, s[:0]
        return s[~done], s[done & ~fresh]

    def encode_rows(self, r: np.ndarray | None = None) -> np.ndarray:
        """The acting players' observations of rows ``r`` (``None``: every row; the kernel encoder,
        ``Encoder.rows``)."""
        if r is None:  # every row: the state arrays themselves (rows() only reads them), no gathers

            def g(a: np.ndarray) -> np.ndarray:
                return a

            at = self._row_at
        else:

            def g(a: np.ndarray) -> np.ndarray:
                return a[r]

            at = r[:, None] * self.n
        pos = g(self.pos)
        st = self.stacks.take(at + self._rot.take(g(self.cur), 0))  # (row, seat) flat: no 2-D fancy index
        return self._enc.rows(
            g(self.ms),
            g(self.best_rank),
            g(self.rolls),
            g(self.tlim),
            pos == 0,
            g(self.norder) - pos - 1,
            g(self.lo_rank),
            g(self.lo_count),
            g(self.hi_rank),
            g(self.epay),
            st,
            st > 0 if self.lives else np.ones_like(st),
        )
