"""A native batched numpy implementation of Zanzibar as a ``gymnasium.vector.VectorEnv``.

Every sub-environment is one row of ``[N, ...]`` state arrays
(:class:`~zanzibar_env.envs._batched.NumpyGames`); a step advances all rows at once with numpy (no
per-env Python loop on the hot path); opponents act through ``agent.act_batch(ViewBatch)``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..core import kernel as K
from ..core.dice import DiceSource
from ..core.engine import NUM_ACTIONS, View
from ..core.observation import OBS_SIZE, ViewBatch
from ..core.streams import RowStreams
from . import _envutil as U
from ._batched import _MS_DICE
from ._obs import ObsFormat
from ._vecmodes import VectorConventions


class ZanzibarVectorEnv(VectorConventions, VectorEnv):
    """``num_envs`` Zanzibar games (or rounds) stepped together in numpy; same game as ``ZanzibarEnv``.

    ## Description
    The batched twin of :class:`zanzibar_env.envs.env.ZanzibarEnv`: each sub-env is one learner against
    ``num_players - 1`` opponents, who act through ``agent.act_batch(ViewBatch)`` (a per-row
    ``act(view)`` fallback exists for agents without it, slow but correct).

    ## Action Space
    ``MultiDiscrete([8] * num_envs)``: per env a hold mask over the sorted dice (bit ``i`` keeps die
    ``i``; 7 keeps all and stops). ``infos["action_mask"]`` and :meth:`action_masks` give ``bool[N, 8]``;
    an illegal action raises ``ValueError``. An env whose episode ended before the learner's first
    decision (see the single env) shows every action legal and ignores it on the next step.

    ## Observation Space
    ``Box(-1, 8, (num_envs, 33), float32)``, each row the single env's observation (see
    ``zanzibar_env.core.observation.OBS_LAYOUT``), built from lookup tables that give exactly the floats
    of ``observation.encode_batch`` (tested). ``obs_type="onehot"`` / ``"dict"`` as the single env
    (the batch of its ``observation_space``; ``"dict"`` holds ``int8[N, 8]`` masks).

    ## Starting State
    As the single env: full stacks, seat 0 rolls first, the learner's seat drawn per env (or fixed, for
    every env or per env).

    ## Rewards
    As the single env (``"chips"`` or ``"win"``), per env.

    ## Episode End
    As the single env. ``autoreset_mode`` (``metadata["autoreset_mode"]``) is ``SAME_STEP`` (default,
    what ``zanzibar_env.envs.sb3`` needs) or ``NEXT_STEP`` (what Gymnasium's ``NormalizeObservation``
    needs). ``SAME_STEP``: when an env's episode ends, the returned observation is already the new
    episode's first observation; the last observation is in ``infos["final_obs"]`` (an object array,
    ``None`` where no episode ended) and ``infos["final_info"]`` (a dict of arrays: ``num_rounds``,
    ``stacks`` relative to the learner; and of the episode's last round: ``hand_ranks`` ``int[N, n]``,
    each seat's hand rank relative to the learner, -1 where a seat had no hand, ``first_roller``, the
    seat that rolled first counted clockwise from the learner (0 = the learner), ``roll_limit``, the
    limit the first roller set), each with a bool mask ``infos["_final_obs"]`` /
    ``infos["_final_info"]``. ``NEXT_STEP``: the step that ends an episode returns its last observation;
    the next step ignores that env's action and returns the new episode's first observation with
    reward 0. Rewards of rounds that end before the new episode's first decision are paid with its
    first step. ``max_episode_steps`` truncates an episode after that many steps (as Gymnasium's
    ``TimeLimit``; ``gym.make_vec(..., max_episode_steps=k)`` passes it). ``infos`` hold, per env, the
    single env's keys ``action_mask`` (``bool[N, 8]``), ``seat``, ``no_decision`` and ``num_rounds``
    (rounds played in the episode; the single env's ``rounds`` record lists are not built here).

    ## Arguments
    ``num_envs``, ``ruleset``, ``num_players``, ``opponents``, ``seat``, ``reward``, ``max_rounds`` as
    the single env, ``seat`` also per env (a sequence of ``num_envs`` values, each an int seat or
    ``"random"``; a drawn seat comes from that env's stream, a fixed one draws nothing); ``episode``:
    ``"game"`` (``Zanzibar-v1``) or ``"round"`` (``ZanzibarRound-v1``);
    ``seed``: as ``reset(seed=...)``, for the first reset (``None``: fresh entropy); ``obs_type``,
    ``skip_no_decision`` as the single env; ``autoreset_mode``, ``max_episode_steps`` (see Episode End).
    ``reset(options={"seat": s})`` sets the learner's seat for that reset as ``seat`` does: one
    for every env or one per env, each an int or ``"random"`` (drawn from that env's stream);
    ``"seat"`` is the only option key. ``skip_no_decision`` must be ``True`` or ``False``; opponents
    given as objects are checked when the env is built; ``step`` before ``reset`` raises ``ResetNeeded``.
    Gymnasium refuses ``wrappers=`` in ``vector_entry_point`` mode: use
    its vector wrappers on this env, or ``vectorization_mode="sync"`` for per-env wrappers.
    :meth:`set_dice_sources` (tests) replays scripted dice per env in the engine's order.

    ## Seeding
    Each env has its own random stream (:mod:`zanzibar_env.core.streams`: a counter-based generator
    vectorised over envs, keyed by ``np.random.SeedSequence(s_i)``). Every draw of env ``i`` (its dice,
    roll-offs, the learner's seat, and the moves of stochastic opponents that draw through
    ``batch.row_rng`` as ``random`` does, see :mod:`zanzibar_env.core.bots`) comes from it, so env
    ``i``'s episodes are a function of ``s_i`` and its own actions: the same whatever the batch size,
    the env's position or the other envs' seeds. ``reset(seed=[s_0, ..., s_{N-1}])`` seeds env ``i``
    with ``s_i`` (``None`` keeps that env's stream); ``reset(seed=s)`` seeds env ``i`` with ``s + i``,
    as Gymnasium's ``SyncVectorEnv``; ``reset()`` continues the streams. Seeds are non-negative ints;
    any other value raises ``ValueError``. Opponents that ignore ``batch.row_rng`` are reseeded
    (``seed()``) from all the seeds together: a run still reproduces, but their moves, and so env
    ``i``'s games, then depend on the other envs too. For the same seed the dice differ from the
    single env's (another generator).

    ## Version History
    * v1: masks are ``bool`` in ``infos`` and ``action_masks()``; ``final_info["num_rounds"]`` (was
      ``rounds``); info keys ``seat``, ``no_decision``, ``num_rounds`` as the single env;
      ``autoreset_mode`` (``SAME_STEP`` or ``NEXT_STEP``), ``max_episode_steps``, per-env seeds (a
      stream per env; an int seed ``s`` seeds env ``i`` with ``s + i``), ``obs_type``; every action
      of the learner and the opponents checked, the env row named.
      Added later within v1 (nothing removed or changed): ``final_info`` keys ``hand_ranks``,
      ``first_roller``, ``roll_limit``.
    * v0: initial version.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (the base class declares it a plain attribute, not a ClassVar)
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int,
        ruleset: Any = "classic",
        num_players: int = 2,
        opponents: Any = "random",
        seat: int | str | Sequence[int | str] | np.ndarray = "random",
        reward: str = "chips",
        episode: str = "game",
        max_rounds: int | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        obs_type: str = "flat",
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        max_episode_steps: int | None = None,
        skip_no_decision: bool = False,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError(f"the vector env does not render; render_mode must be None, got {render_mode!r}")
        self.num_envs = int(num_envs)
        per_env = isinstance(seat, (Sequence, np.ndarray)) and not isinstance(seat, str)
        self.rules, self.n, self.fixed_seat = U.check_common(
            ruleset, num_players, "random" if per_env else seat, reward, episode
        )
        self.seat_of = self._per_env_seats(seat) if per_env else None
        self.max_rounds = U.check_max_rounds(max_rounds, self.rules)
        self.reward_kind, self.episode = reward, episode
        self.opponents = U.make_opponents(opponents, self.n, self.rules)
        self._fmt = ObsFormat(obs_type, self.rules)
        self.single_observation_space = self._fmt.space
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self._set_modes(autoreset_mode, max_episode_steps, skip_no_decision)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._setup_tables()
        self._alloc()
        self._streams = RowStreams(self.num_envs)  # fresh entropy until seeded
        if seed is not None:
            self._seed(seed)
        self._sources: list[DiceSource] | None = None
        self._no_batch: set[int] = set()
        self._has_reset = False
        self._ended: list[tuple[Any, ...]] = []  # the step's episode ends (see _finish)
        self._oterm = self._otrunc = np.zeros(self.num_envs, bool)
        self._reported = np.zeros(self.num_envs, bool)  # NEXT_STEP: ended last step, reset at this one
        self._nodec = np.zeros(self.num_envs, bool)  # the row's episode had no decision
        self._steps = np.zeros(self.num_envs, np.int64)  # learner steps in the row's episode
        self._skips = np.zeros(self.num_envs, np.int64)  # skip_no_decision: resets of the row in one _play
        self._cut_obs: tuple[np.ndarray, np.ndarray] | None = None  # rows cut by max_episode_steps

    # ---- views and opponents --------------------------------------------------------------------
    def view_field(self, name: str, r: np.ndarray) -> Any:
        """One :class:`ViewBatch` field for the acting players of rows ``r``."""
        field = _FIELD_OF.get(name)
        if field is None:
            raise AttributeError(name)
        return field(self, r)

    def view_batch(self, r: np.ndarray, lazy: bool = False) -> ViewBatch:
        """The acting players' views for rows ``r`` (each at a decision); ``lazy``: fields on first use."""
        if lazy:
            return LazyViewBatch(self, r)
        stacks, active = self._rel(self.cur[r], r)
        f = {k: self.view_field(k, r) for k in _FIELDS if k not in ("stacks", "active")}
        b = ViewBatch(ruleset=self.rules, stacks=stacks, active=active, **f)
        b.row_rng = self._streams.rows(r)  # type: ignore[attr-defined]  # rows' streams ride along
        return b

    def _views(self, b: ViewBatch, seats: np.ndarray) -> list[View]:
        """Per-row :class:`View` objects (for agents without ``act_batch``)."""
        t, n = self.rules.table, self.n
        return [
            View(
                ruleset=self.rules,
                seat=int(seats[i]),
                num_players=n,
                dice=tuple(int(d) for d in b.dice[i]),  # type: ignore[arg-type]  # three dice a row
                rolls_used=int(b.rolls_used[i]),
                roll_limit=int(b.roll_limit[i]),
                is_first=bool(b.is_first[i]),
                players_after=int(b.players_after[i]),
                lowest=t.hand_of_rank(int(b.lowest_rank[i])) if b.lowest_rank[i] >= 0 else None,
                lowest_count=int(b.lowest_count[i]),
                highest=t.hand_of_rank(int(b.highest_rank[i])) if b.highest_rank[i] >= 0 else None,
                earlier_payments=int(b.earlier_payments[i]),
                stacks=tuple(int(x) for x in b.stacks[i, :n]),
                active=tuple(bool(x) for x in b.active[i, :n]),
                turn_best_rank=int(b.turn_best_rank[i]),  # type: ignore[index]  # set by the vector env
            )
            for i in range(len(b))
        ]

    def _agent_act(self, agent: Any, r: np.ndarray) -> np.ndarray:
        """The actions of ``agent`` for the acting seats of rows ``r``, each checked (kernel)."""
        b = self.view_batch(r, lazy=True)
        act: Any = None
        if id(agent) not in self._no_batch and hasattr(agent, "act_batch"):
            try:
                act = agent.act_batch(b)
            except NotImplementedError:
                self._no_batch.add(id(agent))
        if act is None:
            act = np.array([agent.act(v) for v in self._views(b, self.cur[r])], dtype=object)
        act = np.asarray(act)
        if act.shape != (r.size,):
            raise ValueError(f"opponent {agent!r} returned {act.shape} actions for {r.size} envs")
        return K.check_actions(act, self._legal, who="an opponent", rows=r)

    def _opponent_rows(self, r: np.ndarray) -> np.ndarray:
        waits = self.cur[r] != self.seat[r]
        done = self.term[r] | self.trunc[r]
        if np.count_nonzero(done):  # (rare: an episode that ended before the learner's first decision)
            waits &= ~done
        return r[waits]

    def _opponent_actions(self, r: np.ndarray) -> np.ndarray:
        if not r.size:
            return np.zeros(0, np.int64)
        first = self.opponents[0]
        if all(a is first for a in self.opponents):
            act = self._agent_act(first, r)
        else:
            which = (self.cur[r] - self.seat[r]) % self.n - 1
            act = np.zeros(r.size, np.int64)
            for k, agent in enumerate(self.opponents):
                m = which == k
                if m.any():
                    act[m] = self._agent_act(agent, r[m])
        return act

    def _play(self, r: np.ndarray, act: np.ndarray, new: np.ndarray) -> None:
        """Rows ``r`` act with ``act`` and rows ``new`` begin their first turn; play on (bots, new
        rounds, new episodes, and under ``skip_no_decision`` episodes begun again that ended before the
        learner's first decision) until every row waits for the learner's decision or is finished.

        Each row's draws come from its own stream in the row's own order, so playing rows together
        (in one pass per opponent decision) gives every row the game it would have alone."""
        t = r[self._apply(r, act)]
        if new.size:
            t = np.concatenate([t, new[self._start_turn(new)]])
            r = np.concatenate([r, new])
        if self.skip_no_decision:
            self._skips[:] = 0
        while True:
            self._resolve(t)
            if self.skip_no_decision:
                t = self._begin_again(t)
                if t.size:
                    continue
            r = self._opponent_rows(r)
            if not r.size:
                return
            t = r[self._apply(r, self._opponent_actions(r))]

    # ---- observations ---------------------------------------------------------------------------
    def _learner_cells(self, r: np.ndarray) -> np.ndarray:
        """Flat indices ``[R, n]`` into the ``[N, n]`` state of rows ``r``'s seats from each learner's seat,
        clockwise (a ``take`` with them beats a 2-D fancy index)."""
        return r[:, None] * self.n + self._rot.take(self.seat[r], 0)

    def _seat_stacks(self, r: np.ndarray) -> np.ndarray:
        """Stacks ``[R, n]`` of rows ``r`` from each learner's seat, clockwise."""
        return self.stacks.take(self._learner_cells(r))

    def _terminal_obs(self, r: np.ndarray) -> np.ndarray:
        st = self._seat_stacks(r)
        return self._enc.terminal(st, st > 0 if self.lives else np.ones_like(st))

    def _flat_obs(self) -> np.ndarray:
        if not np.count_nonzero(self.passing):
            return self.encode_rows()
        obs = np.zeros((self.num_envs, OBS_SIZE), np.float32)
        p = np.flatnonzero(self.passing)
        d = np.flatnonzero(~self.passing)
        obs[p] = self._terminal_obs(p)
        if d.size:
            obs[d] = self.encode_rows(d)
        if self._cut_obs is not None:  # NEXT_STEP: a time-limit cut shows the observation it was cut at
            obs[self._cut_obs[0]] = self._cut_obs[1]
        return obs

    def _observe(self) -> tuple[Any, dict[str, Any]]:
        """Observations and infos of every env (the masks computed once for both)."""
        masks = self.action_masks()
        return self._fmt(self._flat_obs(), masks), self._infos(masks)

    def action_masks(self) -> np.ndarray:
        """Legal actions ``bool[N, 8]`` (all legal where an episode only waits to report its end)."""
        m = np.broadcast_to(self._legal, (self.num_envs, NUM_ACTIONS)).copy()
        if np.count_nonzero(self.passing):
            m[self.passing] = True
        return m

    def _infos(self, masks: np.ndarray) -> dict[str, Any]:
        np.copyto(self._nodec, self.passing, where=self.fresh)
        info = {
            "action_mask": masks,
            "seat": self.seat.copy(),
            "no_decision": self._nodec.copy(),
            "num_rounds": self.rounds.copy(),
        }
        every = np.ones(self.num_envs, bool)
        for k in list(info):
            info["_" + k] = every.copy()
        return info

    # ---- gymnasium API --------------------------------------------------------------------------
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start a new episode in every env; ``seed`` reseeds each env's stream (see Seeding).

        ``seed``: ``None`` (continue), an int ``s`` (env ``i`` gets ``s + i``) or one seed per env
        (a non-negative int, or ``None`` to keep that env's stream): env ``i``'s episodes then depend
        on its own seed only. ``options={"seat": s}`` sets the learner's seat of every env (an int or
        ``"random"``) or of each env (a sequence of them) for this reset.
        """
        seats = self._seat_option(options)
        if seed is not None:
            self._seed(seed)
        self.acc[:], self.pend[:] = 0.0, 0.0
        self._reported[:], self._nodec[:], self._cut_obs = False, False, None
        rows = np.arange(self.num_envs)
        self.begin_episode(rows, seats)
        self._play(rows[:0], rows[:0], rows)
        self.passing = self.term | self.trunc
        self._has_reset = True
        return self._observe()

    def _check_actions(self, actions: Any) -> np.ndarray:
        act = np.asarray(actions)
        if act.shape != (self.num_envs,):
            raise ValueError(
                f"actions must be {self.num_envs} integers 0-7, got shape {act.shape}: {actions!r}"
            )
        return K.check_actions(act, self._legal, skip=self.passing)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every env; ended envs are reset in this step (``SAME_STEP``) or the next (``NEXT_STEP``)."""
        if not self._has_reset:
            raise U.ResetNeeded("call reset() before step()")
        act = self._check_actions(actions)
        self.acc, self.pend = self.pend, self.acc
        self.pend[:] = 0.0
        self.fresh[:] = False
        self._ended, self._cut_obs = [], None
        go, new = self._all_rows, self._all_rows[:0]
        if np.count_nonzero(self.passing):
            late = np.flatnonzero(self.passing & ~self._reported)  # ended before a decision: report now
            if late.size:
                self._finish(late)
            new = np.flatnonzero(self.passing if self.same_step else self._reported)
            if new.size:
                self.begin_episode(new)
            go = np.flatnonzero(~self.passing)
            act = act[go]
        self._steps[go] += 1
        self._play(go, act, new)
        self._time_limit(go)
        final = self._episode_ends()
        self.passing = self.term | self.trunc
        self._reported = (self._oterm | self._otrunc) & (not self.same_step)
        obs, infos = self._observe()
        if final is not None:
            infos.update(final)
        return obs, self.acc.copy(), self._oterm, self._otrunc, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""


_FIELDS = tuple(f.name for f in dataclasses.fields(ViewBatch) if f.name != "ruleset")
_FIELD_OF: dict[str, Callable[[ZanzibarVectorEnv, np.ndarray], Any]] = {  # ViewBatch field of rows r
    "dice": lambda g, r: _MS_DICE.take(g.ms[r], 0),  # = _MS_DICE[ms] (docs/benchmarks.md#vector-env)
    "rolls_used": lambda g, r: g.rolls[r],
    "roll_limit": lambda g, r: g.tlim[r],  # the turn's limit (kernel.turn_limit, kept at its first throw)
    "is_first": lambda g, r: (g.pos[r] == 0).astype(np.int64),
    "players_after": lambda g, r: g.norder[r] - g.pos[r] - 1,
    "lowest_rank": lambda g, r: g.lo_rank[r],
    "lowest_count": lambda g, r: g.lo_count[r],
    "highest_rank": lambda g, r: g.hi_rank[r],
    "earlier_payments": lambda g, r: g.epay[r],
    "stacks": lambda g, r: g._rel(g.cur[r], r)[0],
    "active": lambda g, r: g._rel(g.cur[r], r)[1],
    "num_players": lambda g, r: np.full(r.size, g.n, np.int64),
    "turn_best_rank": lambda g, r: g.best_rank[r],
}
assert set(_FIELD_OF) == set(_FIELDS)


class LazyViewBatch(ViewBatch):
    """A :class:`ViewBatch` whose fields are computed on first access (a bot reads only what it needs)."""

    def __init__(self, game: ZanzibarVectorEnv, rows: np.ndarray) -> None:  # replaces the dataclass __init__
        self._game, self._rows = game, rows
        self.ruleset = game.rules

    def __len__(self) -> int:
        return int(self._rows.size)

    @property
    def dice_index(self) -> np.ndarray:
        """The rows' multiset indices, read directly (``ViewBatch`` computes them from ``dice``)."""
        return self._game.ms[self._rows]

    def direct_observations(self) -> np.ndarray:
        """The rows' observations from the game's state arrays (``encode_rows``), not from the fields."""
        return self._game.encode_rows(self._rows)

    def __getattr__(self, name: str) -> Any:  # called only for fields not computed yet
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "row_rng":  # per-env draws for stochastic bots (the protocol in core.bots)
            value: Any = self._game._streams.rows(self._rows)
        else:
            field = _FIELD_OF.get(name)
            if field is None:
                raise AttributeError(name)
            value = field(self._game, self._rows)
        setattr(self, name, value)
        return value
