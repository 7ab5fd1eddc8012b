"""The Zanzibar env as pure JAX functions, in the style of Pgx (``pgx.Env``): ``init``, ``step``, ``observe``.

See :class:`Env` (the documentation page) and the package docstring for where it differs from Pgx.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.typing import ArrayLike

from ..core import kernel as K
from ..core.checks import check_bool, check_float
from ..core.deprecated import warn_renamed
from ..core.observation import OBS_SIZE
from ..core.provenance import ruleset_digest
from ..envs import _envutil as U
from ._core import I32, JaxGames, where
from ._inputs import check_action, check_dice, opponent_policies
from ._obs import JaxEncoder
from ._policy import JaxPolicy
from ._state import HALT_NO_DECISION, HALT_SCRIPT, Array, State, draw_u32, empty_state

NUM_ACTIONS = K.NUM_ACTIONS
#: ``(ended, terminated, truncated, rewards)`` of the first episode that ended in a step (:meth:`Env._play`).
Report = tuple[Array, Array, Array, Array]


class Env:
    """Zanzibar for one table as pure functions of a :class:`State`; ``jax.jit`` and ``jax.vmap`` batch it.

    ## Description
    The game of :class:`zanzibar_env.envs.vector.ZanzibarVectorEnv`, rule for rule (the kernel's tables
    and formulas, see :mod:`zanzibar_env.jax._core`): a learner plays one seat, the opponents play the
    others inside :meth:`step` (``opponents=None``: the caller plays every seat, self-play).

    ## Action Space
    ``int`` hold mask ``0..7`` (bit ``i`` keeps sorted die ``i``; 7 keeps all and stops);
    ``state.legal_action_mask`` (``bool[8]``) gives the legal ones (only 0 and 7 without holds).

    ## Observation Space
    ``state.observation``, ``float32[33]``: the acting seat's observation, float for float the vector
    env's (``zanzibar_env.core.observation.OBS_LAYOUT``, read from the kernel encoder's tables).

    ## Starting State
    :meth:`init` deals a new episode (full stacks, seat 0 rolls first, the learner's seat drawn from
    ``key`` unless ``seat`` fixes it) and plays until the learner's first decision; an episode that ends
    before it (the learner never got to choose) is begun again, as the vector env's
    ``skip_no_decision=True``, at most 1000 times in one call (``MAX_SKIPS``, as the numpy envs):
    opponents that never let the learner choose (one that always stops at once, before a learner that
    rolls second) are a ``ValueError`` ("no decision in 1000 resets: ...") of an eager call, and under
    ``jit`` / ``vmap`` a state truncated with ``halted == HALT_NO_DECISION`` (:meth:`check_halted`).

    ## Rewards
    ``state.rewards``, ``float32[num_players]`` by seat: each seat's reward from the rounds settled in
    this step (``"chips"``: chips given away minus chips received, positive is good, as every env of
    the package; lives: minus lives lost; ``"win"``: as the vector
    env). Rewards of rounds settled in :meth:`init` before the first decision are paid with the first
    step (the vector env's deferral). The learner's reward is ``state.rewards[state.seat]``.

    ## Episode End
    ``terminated``: round episodes after the round; game episodes when the game is over (or, in lives
    rulesets, when the learner is out). ``truncated``: the game reached ``max_rounds`` (the ruleset's
    round cap by default). Stepping a finished state returns it with zero rewards (Pgx); use
    :func:`auto_reset` to begin the next episode inside the step. An illegal action ends the episode
    (``terminated``) with ``illegal_action_penalty`` as the acting seat's reward (Pgx's convention); an
    action that is not an integer scalar raises ``ValueError`` when the step is traced. A step that
    begins new episodes (:meth:`step_autoreset`, with ``skip_no_decision``) and finds no decision in
    1000 of them returns the state ``truncated`` with ``halted`` set (eager: ``ValueError``); so does a
    roll-off that runs out of scripted ``dice`` (the tied seats would tie for ever).

    ## Arguments
    ``ruleset``, ``num_players`` (2-8), ``seat``, ``reward``, ``episode`` (default ``"round"``) and
    ``max_rounds`` as the vector env; ``opponents``: ``"random"``, a bot name or bot object that offers
    ``policy_table(ruleset, num_players)`` (``greedy``, ``threshold``, ``escape``, ``optimal``), a
    :class:`~zanzibar_env.core.policy_table.PolicyTable`, a list of those (one per other seat,
    clockwise after the learner), or ``None`` (self-play); ``illegal_action_penalty`` (default -1.0);
    ``loops``: how the step plays the events between two decisions: ``"while"`` (a ``lax.while_loop``
    that stops at the decision: least work, best on CPU), ``"fixed"`` (a loop of ``num_players *
    max_rolls`` masked passes, the most a round's turns can take, and roll-offs unrolled twice before a
    rare ``while_loop``: no data-dependent trip count, what accelerators prefer) or ``"auto"`` (default:
    ``"while"`` on CPU, ``"fixed"`` elsewhere, by ``jax.default_backend()``). Both play the same game.

    ## Version History
    * v1: initial version (the game of the vector env v1).
    """

    id = "zanzibar"
    version = "v1"

    def __init__(
        self,
        ruleset: Any = "classic",
        num_players: int = 2,
        opponents: Any = "random",
        seat: int | str = "random",
        reward: str = "chips",
        episode: str = "round",
        max_rounds: int | None = None,
        illegal_action_penalty: float = -1.0,
        skip_no_decision: bool = True,
        loops: str = "auto",
    ) -> None:
        rules, n, fixed = U.check_common(ruleset, num_players, seat, reward, episode)
        if loops not in LOOPS:
            raise ValueError(f"loops must be one of {', '.join(map(repr, LOOPS))}, got {loops!r}")
        self.loops = loops if loops != "auto" else ("while" if jax.default_backend() == "cpu" else "fixed")
        if rules.max_rolls < 2:
            raise ValueError(f"ruleset {rules.name!r} has max_rolls {rules.max_rolls}: no decision to take")
        check_float(illegal_action_penalty, "illegal_action_penalty")
        self.rules, self._n, self.fixed_seat = rules, n, fixed
        self.reward_kind, self.episode, self.penalty = reward, episode, float(illegal_action_penalty)
        self.self_play = opponents is None
        self.skip = check_bool(skip_no_decision, "skip_no_decision")
        self.opponents = [] if self.self_play else opponent_policies(opponents, rules, n)
        max_r = U.check_max_rounds(max_rounds, rules)
        assert max_r is not None
        self.games = JaxGames(
            rules,
            n,
            episode,
            reward,
            max_r,
            learner=not self.self_play,
            rolloff_unroll=2 if self.loops == "fixed" else 0,
        )
        self.enc = JaxEncoder(rules, n)
        self.legal = jnp.asarray(K.legal_mask(rules.holds_allowed))
        opp = "self-play" if self.self_play else ",".join(p.name or p.kind for p in self.opponents)
        #: What a state of this env is made of (``State.env_key``): a state of another env is refused.
        self.key = (
            f"{rules.name}@{ruleset_digest(rules)[:12]} {n} players {episode} {reward} max_rounds={max_r} "
            f"seat={fixed if fixed is not None else 'random'} opponents={opp} skip={self.skip}"
        )

    # ---- Pgx's properties -----------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        """Seats at the table (Pgx: players)."""
        return self._n

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (OBS_SIZE,)

    @property
    def core(self) -> JaxGames:
        """Deprecated name of :attr:`games` (the JAX engine); removed in the next release."""
        warn_renamed("Env.core", "Env.games")
        return self.games

    # ---- API ------------------------------------------------------------------------------------
    def init(self, key: Array, dice: ArrayLike | None = None) -> State:
        """A new episode at the learner's first decision. ``dice`` (tests): die faces ``1..6`` to throw,
        in the engine's order (each throw takes as many faces as dice thrown; ``ScriptedDice``)."""
        k_seed, k_seat = jax.random.split(key)
        script = jnp.zeros(0, I32) if dice is None else check_dice(dice)
        s = empty_state(
            self._n, OBS_SIZE, NUM_ACTIONS, script, jax.random.bits(k_seed, (), jnp.uint32), self.key
        )
        seat = jax.random.randint(k_seat, (), 0, self._n, I32) if self.fixed_seat is None else self.fixed_seat
        s = self.games.begin_episode(s, jnp.asarray(seat, I32))
        s = self.games.roll(s, 0, first=jnp.bool_(True))  # seat 0's first throw
        # skip: nothing to report (an episode that ends before the first decision is begun again)
        s, _ = self._play(s, reset=self.skip, reported=True)
        zero = jnp.zeros_like(s.rewards)
        s = s.replace(pending=s.rewards, rewards=zero, passing=_passing(s))
        return self.check_halted(self._finish(s))

    def step(self, state: State, action: ArrayLike, key: Array | None = None) -> State:
        """Play ``action`` for ``state.current_player``, then the opponents until the learner's next
        decision or the episode's end. ``key`` (optional) reseeds the table's dice for this step."""
        return self._step(state, action, key, reset=False)

    def step_autoreset(self, state: State, action: ArrayLike, key: Array | None = None) -> State:
        """:meth:`step`, and where the episode ends a new one begins in the same step, from the table's
        own dice stream (the vector env's ``SAME_STEP`` autoreset with ``skip_no_decision``): the state
        returned is the new episode's, with the ended episode's ``terminated``, ``truncated`` and
        ``rewards`` (the new episode's own first rewards are paid with its first step). A state fresh from
        this reset (``_step_count`` 0) is stepped as the new episode it is; any other finished state is
        begun again without acting (reported ended, zero rewards)."""
        return self._step(state, action, key, reset=True)

    def observe(self, state: State, player_id: Array | None = None) -> Array:
        """``float32[33]``: the acting seat's observation, or after the episode the seat blocks seen from
        the learner (``player_id`` is accepted for Pgx's signature; only the acting seat is observed)."""
        end = state.terminated | state.truncated
        who = state.current_player if self.self_play else state.seat
        return jnp.where(end, self.enc.terminal(state, who), self.enc.observe(state))

    def legal_action_mask(self, state: State) -> Array:
        """``bool[8]``: the legal hold masks of ``state`` (``state.legal_action_mask``)."""
        return state.legal_action_mask

    # ---- the loop ---------------------------------------------------------------------------------
    def _step(self, state: State, action: ArrayLike, key: Array | None, reset: bool) -> State:
        if not isinstance(state, State) or state.env_key != self.key:
            theirs = getattr(state, "env_key", None) if isinstance(state, State) else type(state).__name__
            raise ValueError(
                f"the state is not one of this env's: it is of {theirs!r}, this env is {self.key!r}"
            )
        action = check_action(action)
        over = state.terminated | state.truncated
        passing = (state.passing > 0) if reset else jnp.bool_(False)  # reported now, the action ignored
        # finished: stepped as Pgx does (zero rewards); under reset a state fresh from the reset carries
        # the ended episode's flags but is not finished
        done = over & (state._step_count > 0) & ~passing if reset else over
        zero = jnp.zeros_like(state.rewards)
        s = state.replace(
            rewards=jnp.where(done, zero, state.pending),
            pending=zero,
            passing=jnp.zeros_like(state.passing),
            terminated=(done & state.terminated) | (state.passing == 1),
            truncated=(done & state.truncated) | (state.passing == 2),
            _step_count=state._step_count + 1,
        )
        if key is not None:
            s = s.replace(seed=jax.random.bits(key, (), jnp.uint32), draws=jnp.asarray(0, jnp.uint32))
        legal = (action >= 0) & (action < NUM_ACTIONS) & self.legal[jnp.clip(action, 0, NUM_ACTIONS - 1)]
        acted = self.games.apply(s, jnp.where(legal, action, K.STOP))
        fine = jnp.where(self.games.seats == s.current_player, self.penalty, 0.0)  # (a select, not a scatter)
        illegal = s.replace(terminated=jnp.bool_(True), rewards=s.rewards + fine)
        s = where(done | passing, s, where(legal, acted, illegal))
        s, ended = self._play(s, reset=reset, reported=False)
        s = self._finish(s)  # (reset: the new episode's observation and mask)
        if reset:  # the ended episode's rewards and flags, the new episode's rewards pending
            s = s.replace(
                rewards=jnp.where(ended[0], ended[3], s.rewards),
                pending=jnp.where(ended[0], s.rewards, 0.0),
                terminated=ended[1],
                truncated=ended[2] | (s.halted != state.halted),
                passing=_passing(s),
            )
        return self.check_halted(s)

    def check_halted(self, state: State) -> State:
        """``state``, or ``ValueError`` where it is concrete and ``halted`` (``State.halted``: the
        learner reached no decision in 1000 episodes begun in one call, see :meth:`_play`; or a roll-off
        ran out of scripted dice). :meth:`init` and the steps call it, so eager calls raise; under
        ``jit`` / ``vmap`` (traced values) the state comes back truncated and flagged, as Pgx ends an
        episode, and a concrete batch of states can be checked with this method once out of ``jit``."""
        flag = state.halted
        if isinstance(flag, jax.core.Tracer) or not np.any(flag):
            return state
        if np.any(np.asarray(flag) == HALT_SCRIPT):
            raise ValueError(
                f"the dice script ran out in a roll-off after {int(np.max(state.dice_at))} faces: the tied "
                "seats would throw its last face for ever; give init more dice"
            )
        opp = "self-play" if self.self_play else ", ".join(p.name or p.kind for p in self.opponents)
        seat = f"seat {self.fixed_seat}" if self.fixed_seat is not None else "any seat"
        raise ValueError(
            f"no decision in {U.MAX_SKIPS} resets: the opponents ({opp}) never let the learner at {seat} "
            f"reach a decision of {self.rules.name!r} at {self._n} players (every episode ended before "
            "it, and skip_no_decision=True begins such episodes again); give other opponents or seats, or "
            "set skip_no_decision=False"
        )

    def _finish(self, s: State) -> State:
        end = s.terminated | s.truncated
        mask = jnp.where(end, jnp.ones(NUM_ACTIONS, bool), self.legal)
        return s.replace(legal_action_mask=mask, observation=self.observe(s))

    def _waits(self, s: State) -> Array:
        """The caller's decision: a turn in progress at a seat the caller plays."""
        mine = True if self.self_play else s.current_player == s.seat
        return ~s.turn_over & mine

    def _play(self, s: State, reset: bool, reported: bool) -> tuple[State, Report]:
        """Play on until the caller's decision, or the episode's end (``reset``: begin a new episode there
        and play on). Returns the state and ``(ended, terminated, truncated, rewards)`` of the first
        episode that ended (``reported``: ends are skips, as ``skip_no_decision``: nothing is kept).

        Two nested loops, so that the settlement is computed once per round, not once per event (under
        ``vmap`` every table computes every branch of a pass): the inner loop (:meth:`_turns`) plays
        events until the caller's decision or a round's last turn; then the round is settled where one
        is over, a new episode begun where one ended (``reset``), and the next turn's first throw made;
        the outer loop repeats that until the caller's decision.

        The loop always ends. Without ``reset`` it ends with the episode: a round has at most
        ``num_players * max_rolls`` events (:attr:`max_events`) and an episode at most ``max_rounds``
        rounds (one for round episodes), roll-offs aside (they end with probability 1: chance, not the
        opponents, decides their length; a scripted one stops where its dice run out). With ``reset``
        and ``skip`` the opponents decide whether the learner ever gets a decision (one that always
        stops at once holds a learner rolling after it to one roll): the loop begins at most
        ``MAX_SKIPS`` (1000, as the numpy envs) new episodes, so it plays at most ``1001 * rounds per
        episode * max_events`` events; past that the state is flagged (``State.halted``) and
        truncated, and :meth:`check_halted` raises on it."""
        games = self.games
        zero = jnp.zeros_like(s.rewards)

        def again(s: State, rep: Report) -> tuple[Array, State, Report]:
            """A new episode where one ended (``reset``; without ``skip`` only the first end of the step)."""
            if not reset:
                return jnp.bool_(False), s, rep
            is_new = _over(s) if self.skip else _over(s) & ~rep[0]
            fresh, rep2 = self._again(s, rep)
            return is_new, where(is_new, fresh, s), where(is_new, rep2, rep)

        def body(c: tuple[State, Report, Array]) -> tuple[State, Report, Array]:
            s, rep, k = c
            s, due = self._turns(s)
            s = where(due, games.settle(s, due), s)  # (the next round begun where the episode goes on)
            is_new, s, rep = again(s, rep)
            first = is_new | (due & ~_over(s))  # a turn begins: its first throw
            return where(first, games.roll(s, 0, jnp.bool_(True)), s), rep, k + is_new.astype(I32)

        if reset and self.skip:

            def going(c: tuple[State, Report, Array]) -> jax.Array:
                return ~(self._waits(c[0]) & ~_over(c[0]))

            def cond(c: tuple[State, Report, Array]) -> jax.Array:
                return going(c) & (c[2] < U.MAX_SKIPS)  # the bound: see the docstring

        elif reset:  # a second end in the step: the new episode ended before a decision (passing)

            def cond(c: tuple[State, Report, Array]) -> jax.Array:
                return ~(self._waits(c[0]) | (_over(c[0]) & c[1][0]))

        else:

            def cond(c: tuple[State, Report, Array]) -> jax.Array:
                return ~(self._waits(c[0]) | _over(c[0]))

        f = jnp.bool_(False)
        s, rep, k = lax.while_loop(cond, body, (s, (jnp.bool_(reported), f, f, zero), jnp.asarray(0, I32)))
        if reset and self.skip:  # the bound, not a decision, ended the loop: flagged and truncated
            stuck = going((s, rep, k))
            s = s.replace(halted=jnp.where(stuck, HALT_NO_DECISION, s.halted), truncated=s.truncated | stuck)
        return s, rep

    def _turns(self, s: State) -> tuple[State, Array]:
        """Play events until the caller's decision, the episode's end or a round's last turn recorded
        (returns the state and that flag: the round is to be settled). Each pass is one event, computed
        branch-free: a finished turn is recorded (and the next seat's first throw made), or an opponent
        decides (and re-throws)."""
        games = self.games

        def body(c: tuple[State, Array]) -> tuple[State, Array]:
            s, _ = c
            is_end = s.turn_over  # record the turn
            recorded, last = games.record(s)
            if self.self_play:
                t, hold = where(is_end, recorded, s), jnp.asarray(0, I32)
            else:
                opp, hold = self._opponent(s)
                t = where(is_end, recorded, opp)
            first = is_end & ~last  # the next seat's turn begins: its first throw
            stop = ~is_end & (hold == K.STOP)
            rolled = games.roll(t, jnp.where(first, 0, hold), first)
            t = where(stop, t.replace(turn_over=jnp.bool_(True)), where(first | ~is_end, rolled, t))
            return t, is_end & last

        def cond(c: tuple[State, Array]) -> jax.Array:
            return ~(self._waits(c[0]) | _over(c[0]) | c[1])

        if self.loops == "while":
            return lax.while_loop(cond, body, (s, jnp.bool_(False)))

        # fixed: every pass is one event (a turn recorded, or an opponent's decision), so a round's turns
        # take at most num_players * max_rolls passes; passes after the stop change nothing
        def masked(_: jax.Array, c: tuple[State, Array]) -> tuple[State, Array]:
            return where(cond(c), body(c), c)

        return lax.fori_loop(0, self.max_events, masked, (s, jnp.bool_(False)))

    @property
    def max_events(self) -> int:
        """The most passes of the event loop between two stops (each seat: its decisions and its record)."""
        return self._n * self.rules.max_rolls

    def _again(self, s: State, rep: Report) -> tuple[State, Report]:
        """A new episode after one that ended in this step; keeps the first ended episode's report."""
        ended, term, trunc, out = rep
        keep = ~ended
        kept = (
            jnp.bool_(True),
            term | (keep & s.terminated),
            trunc | (keep & s.truncated),
            jnp.where(keep, s.rewards, out),
        )
        seat = s.seat
        if self.fixed_seat is None:
            s, seat = _draw_seat(s, self._n)
        s = s.replace(rewards=jnp.zeros_like(s.rewards), _step_count=jnp.asarray(0, I32))
        return self.games.begin_episode(s, seat), kept

    def _opponent(self, s: State) -> tuple[State, Array]:
        """The acting opponent's hold mask (the ``k``-th seat after the learner plays ``opponents[k]``)."""
        first = self.opponents[0]
        if all(p is first for p in self.opponents):
            return first(s)
        which = (s.current_player - s.seat) % self._n - 1
        a = jnp.asarray(K.STOP, I32)
        seen: list[JaxPolicy] = []
        for p in self.opponents:
            if p in seen:
                continue
            seen.append(p)
            mine = jnp.zeros((), bool)
            for j, q in enumerate(self.opponents):
                if q is p:
                    mine = mine | (which == j)
            s2, ak = p(s)
            s, a = where(mine, s2, s), jnp.where(mine, ak, a)
        return s, a


#: Values of ``Env(loops=...)``.
LOOPS = ("auto", "while", "fixed")


def _over(s: State) -> Array:
    return s.terminated | s.truncated


def _passing(s: State) -> Array:
    """``State.passing`` of a state the loop left: 1 / 2 if its episode is over (terminated / truncated)."""
    return jnp.where(s.truncated, 2, jnp.where(s.terminated, 1, 0)).astype(I32)


def _draw_seat(s: State, n: int) -> tuple[State, Array]:
    """A learner's seat drawn from the table's stream."""
    s, x = draw_u32(s)
    return s, (x % np.uint32(n)).astype(I32)


def auto_reset(step: Callable[..., State], init: Callable[..., State]) -> Callable[..., State]:
    """Pgx's ``pgx.experimental.auto_reset``: a step that begins a new episode (``init(key)``) when one
    ends; the returned state is the new episode's, with the ended step's ``terminated``, ``truncated``
    and ``rewards`` (the new episode's first rewards stay pending for its first step)."""

    def wrapped(state: State, action: ArrayLike, key: Array) -> State:
        k_step, k_init = jax.random.split(key)
        end = state.terminated | state.truncated
        state = where(
            end,
            state.replace(
                terminated=jnp.bool_(False), truncated=jnp.bool_(False), rewards=jnp.zeros_like(state.rewards)
            ),
            state,
        )
        state = step(state, action, k_step)
        end = state.terminated | state.truncated
        fresh = init(k_init)  # (a fresh state that halted stays truncated)
        fresh = fresh.replace(
            terminated=state.terminated, truncated=state.truncated | (fresh.halted > 0), rewards=state.rewards
        )
        return where(end, fresh, state)

    return wrapped
