"""The vector env's Gymnasium conventions: autoreset modes, time limits, seeds, seat options, skips.

Mixed into :class:`zanzibar_env.envs.vector.ZanzibarVectorEnv` (which sets the attributes it reads);
kept apart from the stepping code so each stays small.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from ..core.checks import check_bool, check_options, check_seed, show
from . import _envutil as U
from ._batched import NumpyGames


class VectorConventions(NumpyGames):
    """Autoreset mode, ``max_episode_steps``, ``skip_no_decision``, seats per env and reset, per-env seeds."""

    metadata: dict[str, Any]
    _steps: np.ndarray
    _ended: list[tuple[Any, ...]]
    _oterm: np.ndarray
    _otrunc: np.ndarray
    _cut_obs: tuple[np.ndarray, np.ndarray] | None
    opponents: list[Any]
    _np_random: np.random.Generator | None
    _np_random_seed: int | None

    _skips: np.ndarray

    def _play(self, r: np.ndarray, act: np.ndarray, new: np.ndarray) -> None:
        raise NotImplementedError

    def _learner_cells(self, r: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _set_modes(self, autoreset_mode: Any, max_episode_steps: Any, skip: Any) -> None:
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP):
            raise ValueError(f"autoreset_mode must be SAME_STEP or NEXT_STEP, got {autoreset_mode!r}")
        self.same_step = mode == AutoresetMode.SAME_STEP
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool)
            or not isinstance(max_episode_steps, (int, np.integer))
            or max_episode_steps < 1
        ):
            raise ValueError(
                f"max_episode_steps must be None or a positive integer, got {max_episode_steps!r}"
            )
        self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
        self.skip_no_decision = check_bool(skip, "skip_no_decision")

    def begin_episode(self, r: np.ndarray, seats: np.ndarray | None = None) -> None:
        super().begin_episode(r, seats)
        self._steps[r] = 0

    def _seed(self, seed: Any) -> None:
        """Seed env ``i``'s stream with ``env_seeds(seed)[i]`` (kept where ``None``); ``np_random`` and
        opponents that ignore ``batch.row_rng`` are seeded from all the seeds together."""
        seeds = env_seeds(seed, self.num_envs)
        given = [i for i, s in enumerate(seeds) if s is not None]
        if not given:
            return
        self._streams.seed(np.array(given, np.int64), [seeds[i] for i in given])
        self._np_random = np.random.default_rng([0 if s is None else s + 1 for s in seeds])
        self._np_random_seed = int(seed) if isinstance(seed, (int, np.integer)) else -1
        U.seed_opponents(self.opponents, self._np_random)

    def _per_env_seats(self, seat: Any) -> np.ndarray:
        """``seat=`` given per env: ``int[N]``, the learner's seat of each env, ``-1`` where ``"random"``."""
        if np.ndim(seat) != 1 or len(seat) != self.num_envs:
            got = f"{len(seat)} values" if np.ndim(seat) == 1 else show(seat)
            raise ValueError(
                f"seat: got {got} for {self.num_envs} envs (give one, or one per env: each 'random' "
                f"or an integer 0-{self.n - 1})"
            )
        fixed = [U.check_seat(s, self.n) for s in seat]
        return np.array([-1 if s is None else s for s in fixed], np.int64)

    def _seat_option(self, options: Any) -> np.ndarray | None:
        """``reset(options={"seat": s})``: as the constructor's ``seat`` (one for every env or one per env,
        each an int or ``"random"``), for this reset; ``int[N]``, ``-1`` where drawn."""
        seat = check_options(options, U.RESET_OPTIONS).get("seat")
        if seat is None:
            return None
        if isinstance(seat, (Sequence, np.ndarray)) and not isinstance(seat, str):
            return self._per_env_seats(seat)
        fixed = U.check_seat(seat, self.n)
        return np.full(self.num_envs, -1 if fixed is None else fixed, np.int64)

    def _time_limit(self, go: np.ndarray) -> None:
        """Truncate the episodes of rows ``go`` that reached ``max_episode_steps`` (and autoreset them)."""
        if self.max_episode_steps is None:
            return
        cut = go[
            (self._steps[go] >= self.max_episode_steps) & ~(self.term[go] | self.trunc[go] | self.fresh[go])
        ]
        if not cut.size:
            return
        obs = self.encode_rows(cut)
        self.trunc[cut] = True
        self._finish(cut, obs)
        if self.same_step:
            self.begin_episode(cut)
            self._play(cut[:0], cut[:0], cut)
        else:
            self._cut_obs = (cut, obs)

    def _finish(self, e: np.ndarray, obs: np.ndarray | None = None) -> None:
        """Record the end of the episodes of rows ``e`` (gathered by :meth:`_episode_ends`): their final
        observations ``obs``, or (``None``) the terminal ones, from the stacks as they are now."""
        rel = self._learner_cells(e)
        first = (self.start[e] - self.seat[e]) % self.n  # who rolled first, counted from the learner
        ended = (self.stacks.take(rel), self.rounds[e], self.term[e], self.trunc[e])
        self._ended.append((e, *ended, self.hrank.take(rel), first, self.limit[e], obs))

    def _episode_ends(self) -> dict[str, Any] | None:
        """The episode ends of this step, gathered once: sets the terminated / truncated flags; returns the
        ``final_obs`` / ``final_info`` entries of ``infos`` (``SAME_STEP``, if an episode ended)."""
        N = self.num_envs
        self._oterm, self._otrunc = np.zeros(N, bool), np.zeros(N, bool)
        if not self._ended:
            return None
        e, st, rounds, term, trunc, hands, first, limit = (
            np.concatenate([x[k] for x in self._ended]) for k in range(8)
        )
        self._oterm[e], self._otrunc[e] = term, trunc
        if not self.same_step:  # (the last observation is returned by the step itself)
            return None
        obs = self._enc.terminal(st, st > 0 if self.lives else np.ones_like(st))
        k = 0
        for rows, *_, given in self._ended:
            if given is not None:
                obs[k : k + rows.size] = given
            k += rows.size
        final_obs = np.empty(N, dtype=object)  # (None everywhere)
        final_obs[e] = np.fromiter(obs, dtype=object, count=e.size)  # each a row of obs
        mask = np.zeros(N, bool)
        mask[e] = True
        info: dict[str, Any] = {}
        for key, vals in (
            ("num_rounds", rounds),
            ("stacks", st),
            ("hand_ranks", hands),
            ("first_roller", first),
            ("roll_limit", limit),
        ):
            full = np.zeros((N, *vals.shape[1:]), np.int64)
            full[e] = vals
            info[key], info["_" + key] = full, mask.copy()
        return {
            "final_obs": final_obs,
            "_final_obs": mask.copy(),
            "final_info": info,
            "_final_info": mask.copy(),
        }

    def _begin_again(self, t: np.ndarray) -> np.ndarray:
        """``skip_no_decision``: begin again the new episodes among rows ``t`` that ended before the
        learner's decision; returns the rows whose first turn is over at once (to resolve)."""
        again = t[self.fresh[t] & (self.term[t] | self.trunc[t])]
        if not again.size:
            return again
        skips = self._skips[again] + 1
        if skips.max() > U.MAX_SKIPS:
            raise RuntimeError(f"no decision in {U.MAX_SKIPS} resets; set skip_no_decision=False")
        self._skips[again] = skips
        self.pend[again] = 0.0
        self.begin_episode(again)
        return again[self._start_turn(again)]


def env_seeds(seed: Any, num_envs: int) -> list[int | None]:
    """One seed per env from ``reset(seed=...)``: an int ``s`` gives env ``i`` the seed ``s + i`` (as
    Gymnasium's ``SyncVectorEnv``); a list gives env ``i`` its ``i``-th entry, ``None`` leaving that env's
    stream as it is. ``ValueError`` naming the problem for a wrong length, a negative, a bool or a
    non-integer."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return [check_seed(seed) + i for i in range(num_envs)]  # type: ignore[operator]  # an int seed gives an int
    if not isinstance(seed, (list, tuple, np.ndarray)) or np.ndim(seed) != 1:
        got = " ".join(repr(seed).split())[:80]  # one line, however the seed prints
        raise ValueError(
            f"seed must be None or a non-negative integer, or a list of {num_envs} of them (one per env), "
            f"got {got}"
        )
    if len(seed) != num_envs:
        raise ValueError(f"seed list has {len(seed)} entries for {num_envs} envs (one per env)")
    for i, s in enumerate(seed):
        check_seed(s, f"seed[{i}]")
    return [None if s is None else int(s) for s in seed]
