"""The JAX engine, :class:`JaxGames`: turns, rounds, settlement and game ends on an unbatched :class:`State`.

Every rule is the kernel's: the branch-free formulas of :mod:`zanzibar_env.core.kernel` and
:mod:`zanzibar_env.core.settlement` are called with JAX scalars (and ``[n]`` arrays, one value per
seat in play order, where the vector env passes ``[rows]`` arrays); the kernel's tables (dice
transitions, ranks, categories, payments, lives) are converted to ``jnp`` arrays once per ruleset.
This module only keeps the state, draws dice and routes control (``lax.cond`` / ``lax.while_loop``),
as :mod:`zanzibar_env.envs._batched` does for numpy. Functions work on one game; ``jax.vmap`` batches.
"""

from __future__ import annotations

from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import kernel as K
from ..core import settlement as S
from ..core.rules import Ruleset
from ._state import HALT_SCRIPT, RANGES, Array, State, draw_u32

I32 = jnp.int32
_BIG = 1 << 30


class JaxGames:
    """The rules of ``ruleset`` at ``num_players`` seats as JAX functions of a :class:`State`.

    ``episode`` (``"round"`` or ``"game"``), ``reward`` (``"chips"`` or ``"win"``) and ``max_rounds``
    are as the vector env's; ``learner`` says whose episode ends when a seat is out of lives (``True``:
    the seat in ``State.seat``, the envs' learner; ``False``: the game's, every seat played by the caller);
    ``rolloff_unroll``: roll-off rounds played as masked straight-line code before the ``while_loop``
    that finishes the rare longer ones (0: the loop alone).
    """

    def __init__(
        self,
        ruleset: Ruleset,
        num_players: int,
        episode: str,
        reward: str,
        max_rounds: int,
        learner: bool,
        rolloff_unroll: int = 0,
    ) -> None:
        r, t = ruleset, ruleset.table
        self.rolloff_unroll = rolloff_unroll
        self.rules, self.n, self.episode, self.reward = r, num_players, episode, reward
        self.max_rounds, self.learner = max_rounds, learner
        self.lives, self.chips = r.stake == "lives", r.stake == "chips"
        self.instant = r.instant_zanzibar != "off"
        self.best_of_turn = r.final_hand == "best"

        def i32(a: np.ndarray | tuple[int, ...]) -> jax.Array:  # (the kernel's tables are int64 numpy)
            return jnp.asarray(np.asarray(a), I32)

        self.REROLLED = i32(K.REROLLED)  # dice each hold mask throws again
        self.RANK_THROW = i32(t.rank_of_throw)
        self.INSTANT = jnp.asarray(K.ends_turn_at_once(r))  # bool[56]
        self.PAY = i32(K.chips_of_category(r))
        self.LIVES = i32(K.lives_lost_by_rank(r))
        # one gather where three would do: the kernel's tables packed side by side, unpacked by _unpack
        # (multisets < 64, ranks < 64, categories < 8, own-hand payments < 2**15)
        info = (
            t.rank_of_multiset
            | K.ends_turn_at_once(r).astype(np.int64) << 6
            | t.category_of_multiset << 7
            | K.own_hand_payment(r) << 10
        )
        assert t.rank_of_multiset.max() < 64 and t.category_of_multiset.max() < 8
        assert (
            t.num_ranks - 1 <= RANGES["hand_rank"][1]
            and t.category_of_multiset.max() <= RANGES["hand_cat"][1]
        )
        assert 0 <= K.own_hand_payment(r).min() and K.own_hand_payment(r).max() < 1 << 15
        self.MS_INFO = i32(info)  # [ms] -> rank | instant << 6 | category << 7 | own payment << 10
        # [(ms * 8 + hold) * 216 + throw] -> the multiset after the throw (kernel.roll) | its rank and
        # instant flag << 6: 13 bits, int16 (a table of 190 KB; docs/benchmarks.md#jax-env)
        trans = np.asarray(K.TRANSITION)
        self.ROLL = jnp.asarray((trans | (info[trans] & 127) << 6).astype(np.int16))
        self.seats = jnp.arange(num_players, dtype=I32)

    # ---- dice -----------------------------------------------------------------------------------
    def throw(self, s: State, k: Array) -> tuple[State, Array]:
        """A throw index ``0..215`` for ``k`` dice: from the script (``State.dice``, faces in the engine's
        order, missing digits as face 1, as ``kernel.throw_index``) or from the state's random stream."""
        if s.dice.shape[0]:
            f = [
                jnp.where(j < k, s.dice[jnp.minimum(s.dice_at + j, s.dice.shape[0] - 1)], 1) for j in range(3)
            ]
            return s.replace(dice_at=s.dice_at + k), 36 * f[0] + 6 * f[1] + f[2] - 43
        s, x = draw_u32(s)
        return s, (x % np.uint32(K.NUM_THROWS)).astype(I32)  # (a bias below 1e-9: 2**32 % 216 = 184)

    def _rolloff_ranks(self, s: State, tied: Array) -> tuple[State, Array]:
        """Rank of one throw of all three dice per seat (play order); scripted: only tied seats throw."""
        if s.dice.shape[0]:
            before = jnp.cumsum(tied) - tied  # tied seats before each, in play order
            f = [s.dice[jnp.minimum(s.dice_at + 3 * before + j, s.dice.shape[0] - 1)] for j in range(3)]
            s = s.replace(dice_at=s.dice_at + 3 * tied.sum().astype(I32))
            return s, self.RANK_THROW[36 * f[0] + 6 * f[1] + f[2] - 43]
        throws = []
        for _ in range(self.n):
            s, x = draw_u32(s)
            throws.append((x % np.uint32(K.NUM_THROWS)).astype(I32))
        return s, self.RANK_THROW[jnp.stack(throws)]

    # ---- turns ----------------------------------------------------------------------------------
    def roll(self, s: State, held: Array | int, first: Array | bool) -> State:
        """Throw the unheld dice (``first``, a flag: the turn's first throw, all three); sets ``turn_over``."""
        r = self.rules
        s, throw = self.throw(s, jnp.where(first, 3, self.REROLLED[held]))
        base, hold = jnp.where(first, 0, s.ms), jnp.where(first, 0, held)  # first: kernel.roll(0, 0, throw)
        packed = self.ROLL[(base * K.NUM_ACTIONS + hold) * K.NUM_THROWS + throw]  # kernel.roll, and its info
        ms, rank, inst, _, _ = _unpack(packed.astype(I32))
        rolls = jnp.where(first, 1, s.rolls + 1)
        lim = jnp.where(first, K.turn_limit(s.pos == 0, s.limit, r.max_rolls), s.tlim)
        best = K.best_after_roll(
            jnp.where(first, -1, s.best_rank), jnp.where(first, 0, s.best_ms), rank, ms, r
        )  # (before the turn's first throw: no hand, best rank -1)
        over = K.turn_over(rolls, lim, inst if self.instant else False)
        return s.replace(
            ms=ms,
            rolls=rolls,
            tlim=lim,
            best_rank=jnp.asarray(best[0], I32),
            best_ms=jnp.asarray(best[1], I32),
            turn_over=over,
        )

    def apply(self, s: State, action: Array) -> State:
        """The acting seat plays hold mask ``action`` (7 stops the turn)."""
        stop = action == K.STOP
        rolled = self.roll(s, jnp.where(stop, 0, action), first=False)
        return where(stop, s.replace(turn_over=jnp.bool_(True)), rolled)

    def end_turn(self, s: State) -> tuple[State, Array]:
        """Record the acting seat's hand; returns the state and whether the round is over."""
        c = s.current_player
        _, rk, _, cat, own = _unpack(self.MS_INFO[s.best_ms] << 6)
        lo, count, _, hi, hi_seat = K.public_after_turn(s.lo_rank, s.lo_count, 0, s.hi_rank, s.hi_seat, rk, c)
        limit = K.limit_after_turn(s.pos == 0, s.rolls, s.limit, self.rules)
        pos = s.pos + 1
        inst: Array | bool = self.INSTANT[s.ms] if self.instant else False
        me = self.seats == c  # (selects, not scatters ``.at[c]``: docs/benchmarks.md#jax-env)
        s = s.replace(
            hand_rank=jnp.where(me, rk, s.hand_rank),
            hand_cat=jnp.where(me, cat, s.hand_cat),
            lo_rank=lo,
            lo_count=count,
            hi_rank=hi,
            hi_seat=hi_seat,
            limit=limit,
            pos=pos,
        )
        # fields that never change under this ruleset stay the same arrays (no work in a loop's pass)
        if self.rules.payment == "own_hand":
            s = s.replace(epay=s.epay + own)
        if self.instant:
            s = s.replace(instant=inst)
        return s, K.round_over(pos, s.norder, inst)

    def next_active(self, s: State, after: Array) -> Array:
        """The first seat clockwise after ``after`` still in the game (itself if none other)."""
        if not self.lives:
            return (after + 1) % self.n
        rel = (self.seats - after - 1) % self.n
        return jnp.argmin(jnp.where(s.stacks > 0, rel, _BIG)).astype(I32)

    def new_round(self, s: State, starter: Array) -> State:
        """A new round that ``starter`` opens (its first throw still to make: :meth:`roll`)."""
        n = self.n
        norder = (s.stacks > 0).sum().astype(I32) if self.lives else jnp.asarray(n, I32)
        z = jnp.asarray(0, I32)
        s = s.replace(
            start=starter,
            current_player=starter,
            pos=z,
            norder=norder,
            limit=z + self.rules.max_rolls,
            hand_rank=jnp.full(n, -1, I32),
            lo_rank=z - 1,
            lo_count=z,
            hi_rank=z - 1,
            hi_seat=z - 1,
            epay=z,
            instant=jnp.bool_(False),
        )
        return s

    def begin_episode(self, s: State, seat: Array) -> State:
        """A new game (or round episode): full stacks, the learner at ``seat``, seat 0 to roll first."""
        s = s.replace(
            stacks=jnp.full(self.n, self.rules.starting_stack, I32),
            seat=seat,
            rounds=jnp.asarray(0, I32),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
        )
        return self.new_round(s, jnp.asarray(0, I32))

    # ---- settlement (kernel: settlement.py, one value per seat in play order) ---------------------
    def _rolloffs(self, s: State, tied: list[Array]) -> tuple[State, list[Array]]:
        """The losers after roll-offs (``settlement.rolloff`` as a ``while_loop`` of ``rolloff_step``);
        the loop carries only the tied flags and the dice stream."""

        def body(c: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
            t, draws, at = c
            d, ranks = self._rolloff_ranks(s.replace(draws=draws, dice_at=at), t)
            return jnp.stack(S.rolloff_step(list(t), list(ranks), t.sum() > 1)), d.draws, d.dice_at

        faces = s.dice.shape[0]  # a script: the roll-off stops where it runs out (its last face repeats)

        def more(c: tuple[Array, Array, Array]) -> jax.Array:
            return (c[0].sum() > 1) & ((c[2] < faces) if faces else True)

        c = (jnp.stack(tied), s.draws, s.dice_at)
        for _ in range(self.rolloff_unroll):  # (a roll-off of two seats ends in one round 35 times in 36)
            go = more(c)
            c = jax.tree.map(lambda x, y, go=go: jnp.where(go, x, y), body(c), c)
        t, draws, at = lax.while_loop(more, body, c)
        s = s.replace(draws=draws, dice_at=at)
        if faces:  # still tied when the script ran out: halted (settle truncates the episode)
            s = s.replace(halted=jnp.where(t.sum() > 1, HALT_SCRIPT, s.halted))
        return s, list(t)

    def settle(self, s: State, due: Array) -> State:
        """Settle the round: stacks, rewards (added to ``State.rewards``), ends; then the next round (its
        first throw to make) unless the episode is over. ``due``: the round is over (only those roll off:
        a batch's roll-off loop runs until its last table is done)."""
        R, n = self.rules, self.n
        order = (s.start + self.seats) % n  # the seat at each play position
        back = (self.seats - s.start) % n  # the play position of each seat (gathers, not scatters)
        hr = list(_take(s.hand_rank, order))
        losers = S.round_losers(R, hr, s.lo_rank, s.instant)
        if R.tie_rule == "rolloff":
            s, losers = self._rolloffs(s, [x & due for x in losers])
        st = _take(s.stacks, order)
        before = list(st)
        amounts: list[Array] | None = None
        lost: Array | int = 0
        if self.chips:
            amounts = S.chip_amounts(
                R, self.PAY, list(_take(s.hand_cat, order)), _take(s.hand_cat, s.hi_seat)
            )
        else:
            lost = self.LIVES[s.hi_rank]
        new = jnp.stack([jnp.asarray(a, I32) for a in S.stacks_after(R, before, losers, amounts, lost)])
        rounds = s.rounds + 1
        won, ended = S.game_winners(R, before, list(new), [r >= 0 for r in hr] if self.lives else hr, rounds)
        over = jnp.asarray(ended)  # (a Python False only where no seat could end the game)
        reward, term = self._rewards(st, new, jnp.stack(losers), jnp.stack(won), over)
        me = (s.seat - s.start) % n  # the learner's play position
        term = _take(jnp.broadcast_to(term, (n,)), me) if self.learner else over | (self.episode == "round")
        trunc = ~term & (rounds >= self.max_rounds) if self.episode == "game" else jnp.bool_(False)
        if s.dice.shape[0] and R.tie_rule == "rolloff":  # the script ran out: not the rules' end
            bad = s.halted == HALT_SCRIPT
            term, trunc = term & ~bad, trunc | bad
        s = s.replace(
            stacks=_take(new, back),
            rounds=rounds,
            terminated=term,
            truncated=trunc,
            rewards=s.rewards + _take(reward, back),
        )
        return where(term | trunc, s, self._next_round(s))

    def _rewards(self, st: Array, new: Array, lost: Array, won: Array, over: Array) -> tuple[Array, Array]:
        """``(reward, terminated)`` per play position (``settlement.episode_step``, every seat at once)."""
        result: Array | float = 0.0
        win_game: Any = 0.0  # (won and winners: read only by the "win" reward)
        k: Any = 0
        if self.reward == "win" and self.episode == "round":
            active = st > 0 if self.lives else jnp.ones_like(lost)
            result = S.round_win_reward(lost.any(), lost, (active & ~lost).sum())
        elif self.reward == "win":
            win_game, k = won, won.sum()
        reward, term = S.episode_step(
            self.rules,
            self.episode,
            self.reward,
            new - st,
            won=win_game,
            winners=k,
            over=over,
            alive=new > 0,
            round_result=result,
        )
        reward = jnp.broadcast_to(jnp.asarray(reward, jnp.float32), st.shape)
        if self.lives:  # seats out of the game before this round take nothing more (self-play)
            reward = jnp.where(st > 0, reward, 0.0)
        return reward, term

    def _next_round(self, s: State) -> State:
        """The next round, opened by ``settlement.next_starter`` (the highest hand, or the next seat still
        in the game after it)."""
        return self.new_round(s, S.next_starter(self.rules, list(s.stacks), s.hi_seat))

    def record(self, s: State) -> tuple[State, Array]:
        """Record the acting seat's turn and pass to the next seat (its first throw is the caller's to
        make); returns the state and whether the round is over (then the seat is not passed: settle)."""
        s, over = self.end_turn(s)
        return s.replace(
            current_player=jnp.where(over, s.current_player, self.next_active(s, s.current_player))
        ), over


def _take(x: Array, i: Array) -> Array:
    """``x[i]`` for a table's ``[n]`` array ``x`` and an index (or ``[k]`` indices) ``i`` in ``0..n-1``, as
    ``n`` selects: under ``vmap`` a gather is a kernel of its own, selects fuse with their neighbours."""
    i = jnp.asarray(i)
    out = jnp.broadcast_to(x[0], i.shape)
    for j in range(1, x.shape[0]):
        out = jnp.where(i == j, x[j], out)
    return out


def _unpack(p: Array) -> tuple[Array, Array, Array, Array, Array]:
    """``(multiset, rank, instant, category, own payment)`` of a ``JaxGames.ROLL`` entry (the first three) or
    of ``JaxGames.MS_INFO[ms] << 6`` (the last four)."""
    return p & 63, (p >> 6) & 63, (p >> 12) & 1 == 1, (p >> 13) & 7, p >> 16


T = TypeVar("T")  # a pytree


def where(cond: Array, a: T, b: T) -> T:
    """``a`` where ``cond`` else ``b``, field by field (a field both share, untouched by either, is kept
    as it is: no select)."""
    return jax.tree.map(lambda x, y: x if x is y else jnp.where(cond, x, y), a, b)
