"""Deals played in lockstep: every game of a chunk of deals at once, through the numpy engine (the vector env's).

:func:`play_deals` is what the backends call. It plays the games of :func:`~zanzibar_env.train.tournament.
deals.play_deal`, exactly: one row of :class:`LockstepGames` per game (deal ``d``, rotation ``r``), each
row drawing its dice in the engine's order from its own copy of the deal's ``RandomDice`` stream
(:class:`DealDice`), so ``games.csv`` is byte for byte that of the per-game runner (tested). At each step
every row waits for one decision; each agent is asked once for all the rows where it acts:

* an agent with ``act_batch`` that is not stochastic gets one
  :class:`~zanzibar_env.core.observation.ViewBatch` of those rows (a learned agent: one forward pass);
* a stochastic agent (``agent.stochastic`` true, or, without that attribute, an agent that overrides
  ``seed()``: the random bot, a sampling ``PolicyAgent``) plays view by view, each game with its own copy
  of the agent reseeded with the deal's agent seeds, so its draws are those of the per-game runner
  (an agent with ``act_each(batch, copies)``, as ``random``, answers for every copy in one call);
* an agent without ``act_batch`` (or whose ``act_batch`` raises ``NotImplementedError``) plays view by
  view, with views built as the engine builds them.

Games kept as records (``keep_records``) are played by :func:`~zanzibar_env.train.tournament.deals.
play_deal`, one at a time, as are the deals of a stochastic agent that cannot be copied.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any, cast

import numpy as np

import zanzibar_env as zz
from zanzibar_env.core import kernel as K
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.envs._batched import NumpyGames
from zanzibar_env.envs.vector import LazyViewBatch
from zanzibar_env.train.tournament.deals import (
    DealContext,
    DealGames,
    Outcome,
    deal_plan,
    game_row,
    play_deal,
    round_cap,
)
from zanzibar_env.train.tournament.failures import AgentFailed, agent_name, first_bad

#: Faces ``RandomDice`` draws per refill (its default buffer; a refill drops the faces left, tested).
DICE_BUFFER = 1024
#: Games played in lockstep at once (rows of one :class:`LockstepGames`); an ended game's row starts the next.
ROWS = 512
_REROLLED = np.array(K.REROLLED, np.int64)  # dice thrown for each hold mask


class DealDice:
    """Each row's dice as ``RandomDice(seed)`` throws them: blocks of ``buffer`` faces from
    ``default_rng(seed).integers(1, 7, size=buffer)``; a throw that does not fit in the rest of a block
    starts the next block (the faces left are dropped).

    A block is kept as the throw index (``kernel.throw_index``) of the 1, 2 and 3 faces from each of its
    positions, so a throw is one look-up. :meth:`start` gives rows a new stream (a new game)."""

    def __init__(self, rows: int, buffer: int = DICE_BUFFER) -> None:
        self.buffer = buffer
        self.seeds = [0] * rows
        self.table = np.zeros((3, rows, buffer), np.int16)  # [k - 1, row, position]: throw index of k faces
        self._flat = self.table.reshape(-1)
        self.pos = np.zeros(rows, np.int64)  # next face of each row's block
        self.block = np.zeros(rows, np.int64)  # which block of its stream each row reads
        self._base = np.arange(rows, dtype=np.int64) * buffer - rows * buffer  # flat index of row r, k = 0

    def start(self, rows: Sequence[int], seeds: Sequence[int]) -> None:
        """Restart ``rows`` at the first face of ``RandomDice(seed)`` (rows with equal seeds share work)."""
        made: dict[int, np.ndarray] = {}
        for i, seed in zip(rows, seeds, strict=True):
            if seed not in made:
                made[seed] = self._block(seed, 0)
            self.seeds[i] = seed
            self.table[:, i] = made[seed]
        self.pos[list(rows)] = 0
        self.block[list(rows)] = 0

    def _block(self, seed: int, k: int) -> np.ndarray:
        """Block ``k`` of the stream of ``seed``, as throw indices ``[3, buffer]`` (see the class doc)."""
        gen = np.random.default_rng(seed)
        for _ in range(k + 1):
            f = gen.integers(1, 7, size=self.buffer)
        out = np.empty((3, self.buffer), np.int64)
        one, two, three = out  # 36 (f - 1), + 6 (f1 - 1), + f2 - 1: faces past the block count as 1
        np.multiply(f, 36, out=one)
        one -= 36
        two[:] = one
        two[:-1] += 6 * f[1:] - 6
        three[:] = two
        three[:-2] += f[2:] - 1
        return out

    def throws(self, r: np.ndarray, k: np.ndarray) -> np.ndarray:
        """One throw index of ``k[i]`` new dice (``1 <= k <= 3``) per row ``r[i]``; advances the rows."""
        pos = self.pos[r]
        end = pos + k
        if np.count_nonzero(end > self.buffer):  # a row used its block: the next block, from its start
            for j in np.flatnonzero(end > self.buffer):
                i = int(r[j])
                self.block[i] += 1
                self.table[:, i] = self._block(self.seeds[i], int(self.block[i]))
                pos[j], end[j] = 0, k[j]
        self.pos[r] = end
        return self._flat.take(self._base.take(r) + k * (self._flat.size // 3) + pos)

    def faces_of(self, r: np.ndarray, k: np.ndarray) -> np.ndarray:
        """The faces of :meth:`throws`, ``int64[R, 3]`` padded with 1 (tests)."""
        t = self.throws(r, k)
        return np.stack([t // 36 + 1, t // 6 % 6 + 1, t % 6 + 1], axis=1)


class LockstepGames(NumpyGames):
    """``rows`` whole games stepped together; :meth:`begin_game` begins a game in a row (seat 0 rolls first,
    dice from ``RandomDice(dice_seed)``), which ends as the engine's ``GameState`` ends it (or after
    ``max_rounds``). A row without a game counts as ended."""

    def __init__(self, ruleset: zz.Ruleset, players: int, max_rounds: int, rows: int) -> None:
        self.rules, self.n, self.num_envs = ruleset, players, rows
        self.episode, self.reward_kind, self.max_rounds = "game", "chips", max_rounds
        self.fixed_seat, self.seat_of, self._sources, self.same_step = 0, None, None, False
        self._setup_tables()
        self._alloc()
        self._dice = DealDice(rows)
        n = self.n
        self.hms = np.zeros((rows, n), np.int64)  # multiset of each seat's hand this round
        self._hms_flat = self.hms.reshape(-1)
        self.elim = np.full((rows, n), -1, np.int64)  # round index each seat went out (-1: never)
        self.won = np.zeros((rows, n), bool)
        self.term[:] = True

    def begin_game(self, r: np.ndarray, dice_seeds: Sequence[int]) -> None:
        """Begin a new game in each row of ``r`` and play it to its first decision."""
        self._dice.start(r.tolist(), dice_seeds)
        self.elim[r], self.won[r] = -1, False
        self.begin_episode(r, np.zeros(r.size, np.int64))
        self._resolve(r[self._start_turn(r)])

    # ---- the numpy engine's hooks ---------------------------------------------------------------
    def _throws(self, r: np.ndarray, held: np.ndarray) -> np.ndarray:
        return self._dice.throws(r, _REROLLED.take(held))

    def _rolloff_throws(self, r: np.ndarray, tied: list[np.ndarray], multi: np.ndarray) -> list[np.ndarray]:
        out = np.zeros((self.n, r.size), np.int64)
        three = np.full(r.size, 3, np.int64)
        for k in range(self.n):  # in play order, as the engine: each row's draws keep their order
            m = np.flatnonzero(multi & tied[k])
            if m.size:
                out[k, m] = self.RANK_THROW.take(self._dice.throws(r.take(m), three[: m.size]))
        return list(out)

    def _end_turn(self, t: np.ndarray) -> np.ndarray:
        self._hms_flat[t * self.n + self.cur[t]] = self.best_ms[t]  # (views read the lowest, highest hand)
        return super()._end_turn(t)

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
        """The game's end as ``GameState`` decides it: over (winners), or truncated after ``max_rounds``."""
        over = np.broadcast_to(np.asarray(over, bool), s.shape)
        if self.lives:
            gone = (self.stacks[s] == 0) & (self.elim[s] < 0)
            if np.count_nonzero(gone):
                self.elim[s] = np.where(gone, (rounds - 1)[:, None], self.elim[s])
        start, flat = self.start[s], self.won.reshape(-1)
        for p, w in enumerate(won):  # play position p holds seat _rot_t[p, start]
            flat[s * self.n + self._rot_t[p].take(start)] = over & w
        trunc = ~over & (rounds >= self.max_rounds)
        self.term[s], self.trunc[s] = over, trunc
        done = over | trunc
        return s[~done], s[done]

    # ---- what the players see -------------------------------------------------------------------
    def waiting(self) -> np.ndarray:
        """Rows whose game goes on (each waits for a decision of its seat ``cur``)."""
        return np.flatnonzero(~(self.term | self.trunc))

    def ended(self) -> np.ndarray:
        """Where each row's game has ended (or the row has none)."""
        return self.term | self.trunc

    def batch(self, r: np.ndarray) -> LazyViewBatch:
        """The views of the acting players of rows ``r`` (fields computed when an agent reads them)."""
        return LazyViewBatch(cast(Any, self), r)

    def views(self, r: np.ndarray) -> list[View]:
        """The acting players' views of rows ``r``, as the engine's ``RoundState.view`` builds them."""
        n, hands, lives, rules = self.n, self.rules.table.hands, self.lives, self.rules
        cols = [self.cur, self.start, self.ms, self.rolls, self.tlim, self.pos, self.norder, self.lo_rank]
        cols += [self.lo_count, self.hi_rank, self.hi_seat, self.epay, self.best_rank]
        per_seat = (self.stacks, self.hrank, self.hms)
        rows = zip(*(c[r].tolist() for c in cols), *(a[r].tolist() for a in per_seat), strict=True)
        out = []
        for row in rows:
            seat, start, ms, rolls, tlim, pos, norder, lo, lo_count, hi, hi_seat, epay, best, st, hr, hms = (
                row
            )
            act = [x > 0 for x in st] if lives else [True] * n
            lowest = highest = None
            if lo >= 0:  # the hand of the first seat in play order holding the lowest rank
                lowest = hands[hms[next(s for s in (*range(start, n), *range(start)) if hr[s] == lo)]]
            if hi >= 0:
                highest = hands[hms[hi_seat]]
            fields = (
                rules, seat, n, MULTISETS[ms], rolls, tlim, pos == 0, norder - pos - 1, lowest, lo_count,
                highest, epay, (*st[seat:], *st[:seat]), (*act[seat:], *act[:seat]), best,
            )  # fmt: skip  # View's fields in order; one a line is 13 more
            out.append(View(*fields))
        return out


def is_stochastic(agent: object) -> bool:
    """Whether ``agent`` draws random numbers: its ``stochastic`` attribute, else whether it overrides
    ``seed()`` (the base class's is a no-op, kept by deterministic agents)."""
    flag = getattr(agent, "stochastic", None)
    if flag is not None:
        return bool(flag)
    seed = getattr(type(agent), "seed", None)
    return seed is not None and seed is not BaseAgent.seed


class _Seat:
    """How one agent of the tournament plays a chunk: batched, view by view, or a copy per game."""

    def __init__(self, agent: Any, copies: list[Any] | None) -> None:
        self.agent, self.copies = agent, copies
        self.batched = copies is None and hasattr(agent, "act_batch")
        self.who = f"agent {getattr(agent, 'name', type(agent).__name__)!r}"

    def actions(self, games: LockstepGames, r: np.ndarray) -> np.ndarray:
        """The agent's actions in rows ``r`` (each checked: ``ValueError`` naming the agent)."""
        act: Any = None
        if self.batched:
            try:
                act = self.agent.act_batch(games.batch(r))
            except NotImplementedError:
                self.batched = False
        if act is None and self.copies is not None and hasattr(self.agent, "act_each"):
            act = self.agent.act_each(games.batch(r), [self.copies[i] for i in r.tolist()])
        if act is None:
            act = self._one_by_one(games, r)
        act = np.asarray(act)
        if act.shape != r.shape:
            raise ValueError(f"{self.who} returned {act.shape} actions for {r.size} games")
        try:
            return K.check_actions(act, games._legal, who=self.who)
        except ValueError as e:  # the row of the first bad answer
            raise _SeatFailed(self.agent, int(r[first_bad(act, games._legal)]), e) from None

    def _one_by_one(self, games: LockstepGames, r: np.ndarray) -> list[Any]:
        """``act(view)`` row by row; an exception is raised as :class:`_SeatFailed` at the row that raised
        (the game it names is the one the agent failed in, not the first of the rows asked)."""
        out = []
        for row, view in zip(r.tolist(), games.views(r), strict=True):
            agent = self.agent if self.copies is None else self.copies[row]
            try:
                out.append(agent.act(view))
            except KeyboardInterrupt:
                raise
            except Exception as e:
                raise _SeatFailed(self.agent, row, e) from None
        return out


def _seats(ctx: DealContext, rows: int) -> list[_Seat] | None:
    """Each agent's way of playing; a stochastic agent gets a copy per row (``None`` if a copy cannot be
    made: the chunk is then played game by game)."""
    out = []
    for agent in ctx.agents:
        copies = None
        if is_stochastic(agent):
            try:
                copies = [copy.deepcopy(agent) for _ in range(rows)]
            except Exception:  # an agent holding what cannot be copied (a native bot, a lock)
                return None
        out.append(_Seat(agent, copies))
    return out


class _SeatFailed(Exception):
    """An agent raised or answered badly at lockstep row ``row`` (turned into ``AgentFailed`` by the
    caller, which knows the game the row plays)."""

    def __init__(self, agent: Any, row: int, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.agent, self.row, self.cause = agent, row, cause


def _actions(seat: _Seat, games: LockstepGames, r: np.ndarray) -> np.ndarray:
    """``seat.actions``, any failure raised as :class:`_SeatFailed` at the first row it concerns."""
    try:
        return seat.actions(games, r)
    except (KeyboardInterrupt, _SeatFailed):
        raise
    except Exception as e:  # it raised: the first row it was asked for
        raise _SeatFailed(seat.agent, int(r[0]), e) from None


def _step(games: LockstepGames, seats: list[_Seat], who: np.ndarray, r: np.ndarray) -> None:
    """One decision in each row of ``r``: every agent acts once, for all the rows where it acts."""
    agent_of = who.take(r * games.n + games.cur[r])
    first = int(agent_of[0])
    if np.count_nonzero(agent_of == first) == r.size:
        act = _actions(seats[first], games, r)
    else:
        act = np.zeros(r.size, np.int64)
        for a in np.unique(agent_of).tolist():
            m = agent_of == a
            act[m] = _actions(seats[a], games, r[m])
    games._resolve(r[games._apply(r, act)])


def play_deals(ctx: DealContext, deals: Sequence[int]) -> list[DealGames]:
    """The games of ``deals`` (each as :func:`~zanzibar_env.train.tournament.deals.play_deal` plays it),
    in lockstep unless records are kept; returned in the order of ``deals``."""
    if ctx.keep_records or not ctx.lockstep:
        return [play_deal(ctx, d) for d in deals]
    with one_thread():
        return _Lockstep(ctx, list(deals)).play()


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch (if a learned agent loaded it) and numpy's BLAS (when ``threadpoolctl`` is installed, as the
    ``tournament`` extra does) on one thread meanwhile: jobs run side by side (why one thread:
    ``docs/benchmarks.md``, "Tournaments")."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        blas: Any = nullcontext()
    else:
        blas = threadpool_limits(1)
    with blas:
        if torch is not None:
            torch.set_num_threads(1)
        try:
            yield
        finally:
            if torch is not None:
                torch.set_num_threads(before)


class _Lockstep:
    """The games of a list of deals on :data:`ROWS` rows: a row whose game ends starts the next game."""

    def __init__(self, ctx: DealContext, deals: list[int]) -> None:
        self.ctx, self.deals, n = ctx, deals, ctx.players
        self.plans = [deal_plan(ctx.seed, d, len(ctx.agents), n) for d in deals]
        self.total = len(deals) * n  # game g: deal deals[g // n], rotation g % n
        rows = min(self.total, ROWS)
        self.games = LockstepGames(ctx.ruleset, n, round_cap(ctx), rows)
        self.who = np.zeros(rows * n, np.int64)  # who[row * n + seat]: the agent (index) in that seat
        self.game_of = np.full(rows, -1, np.int64)  # the game each row plays (-1: none)
        self.next = 0
        # each game's result (:meth:`_collect`), by game
        self.res_rounds, self.res_trunc = np.zeros(self.total, np.int64), np.zeros(self.total, bool)
        self.res_stacks = np.zeros((self.total, n), np.int64)
        self.res_won, self.res_elim = np.zeros((self.total, n), bool), np.zeros((self.total, n), np.int64)

    def _start(self, r: np.ndarray) -> None:
        """Begin the next games in rows ``r`` (as many as are left), agents reseeded as ``play_deal``."""
        n, r = self.ctx.players, r[: self.total - self.next]
        seeds = []
        for i in r.tolist():
            g = self.next
            lineup, dice_seed, agent_seeds = self.plans[g // n]
            rot = g % n
            self.who[i * n : i * n + n] = [lineup[(s + rot) % n] for s in range(n)]
            for pos, idx in enumerate(lineup):
                copies = self.seats[idx].copies
                if copies is not None:
                    copies[i].seed(agent_seeds[pos])
            self.game_of[i] = g
            seeds.append(dice_seed)
            self.next += 1
        if r.size:
            self.games.begin_game(r, seeds)

    def _collect(self, r: np.ndarray) -> None:
        """Keep the results of the games that ended in rows ``r``."""
        g, games = self.game_of[r], self.games
        self.res_rounds[g], self.res_trunc[g] = games.rounds[r], games.trunc[r]
        self.res_stacks[g], self.res_won[g], self.res_elim[g] = games.stacks[r], games.won[r], games.elim[r]
        self.game_of[r] = -1

    def _rows(self) -> list[DealGames]:
        """Every game's ``results.json`` row, by deal."""
        n, ctx = self.ctx.players, self.ctx
        out: list[DealGames] = []
        stacks, won, elim = self.res_stacks.tolist(), self.res_won.tolist(), self.res_elim.tolist()
        rounds, trunc = self.res_rounds.tolist(), self.res_trunc.tolist()
        for k, (deal, (lineup, dice_seed, _)) in enumerate(zip(self.deals, self.plans, strict=True)):
            deal_games: DealGames = []
            for rot in range(n):
                g = k * n + rot
                game = Outcome(
                    rounds[g],
                    trunc[g],
                    stacks[g],
                    [s for s in range(n) if won[g][s]],
                    [None if e < 0 else e for e in elim[g]],
                )
                seats = [lineup[(s + rot) % n] for s in range(n)]
                deal_games.append((game_row(game, ctx, deal, rot, seats, dice_seed), None))
            out.append(deal_games)
        return out

    def play(self) -> list[DealGames]:
        seats = _seats(self.ctx, self.games.num_envs)
        if seats is None:
            return [play_deal(self.ctx, d) for d in self.deals]
        self.seats, games = seats, self.games
        self._start(games._all_rows)
        refill = max(1, games.num_envs // 16)  # start new games in batches (a start is a few numpy calls)
        while True:
            r = games.waiting()
            over = np.flatnonzero(games.ended() & (self.game_of >= 0))
            if over.size >= refill or not r.size:
                self._collect(over)
                self._start(over)
                r = games.waiting()
                if not r.size:
                    break
            try:
                _step(games, seats, self.who, r)
            except _SeatFailed as f:
                g, n = int(self.game_of[f.row]), self.ctx.players
                deal = self.deals[g // n]
                raise AgentFailed(
                    agent_name(f.agent), deal * n + g % n, deal, int(games.cur[f.row]), f.cause
                ) from None
        return self._rows()
