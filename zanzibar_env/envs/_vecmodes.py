"""The vector env's Gymnasium conventions: autoreset modes, time limits, seeds, seat options, skips.

Mixed into :class:`zanzibar_env.envs.vector.ZanzibarVectorEnv` (which sets the attributes it reads);
kept apart from the stepping code so each stays small.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from . import _envutil as U
from ._batched import BatchedGame


class VectorConventions(BatchedGame):
    """Autoreset mode, ``max_episode_steps``, ``skip_no_decision``, ``options["seat"]`` of the vector env."""

    metadata: dict[str, Any]
    _steps: np.ndarray
    _fobs: np.ndarray | None
    _cut_obs: tuple[np.ndarray, np.ndarray] | None

    def _play(self, r: np.ndarray, act: np.ndarray, new: np.ndarray) -> None:
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
        self.skip_no_decision = bool(skip)

    def begin_episode(self, r: np.ndarray, seats: np.ndarray | None = None) -> None:
        super().begin_episode(r, seats)
        self._steps[r] = 0

    def _seat_option(self, options: dict[str, Any] | None) -> np.ndarray | None:
        if not options or options.get("seat") is None:
            return None
        seats = np.broadcast_to(np.asarray(options["seat"]), (self.num_envs,)).astype(np.int64)
        if (seats < 0).any() or (seats >= self.n).any() or np.asarray(options["seat"]).dtype.kind not in "iu":
            raise ValueError(f"options['seat'] must be {self.num_envs} seats 0-{self.n - 1}, got {options!r}")
        return seats

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
        self._finish(cut)
        assert self._fobs is not None
        self._fobs[cut] = obs
        if self.same_step:
            self.begin_episode(cut)
            self._play(cut[:0], cut[:0], cut)
        else:
            self._cut_obs = (cut, obs)

    def _skip_no_decision(self) -> None:
        """``skip_no_decision``: begin again every new episode that ended before the learner's decision."""
        if not self.skip_no_decision:
            return
        for _ in range(U.MAX_SKIPS):
            r = np.flatnonzero(self.fresh & (self.term | self.trunc))
            if not r.size:
                return
            self.pend[r] = 0.0
            self.begin_episode(r)
            self._play(r[:0], r[:0], r)
        raise RuntimeError(f"no decision in {U.MAX_SKIPS} resets; set skip_no_decision=False")


def seed_sequence(seed: Any, num_envs: int) -> int | np.random.SeedSequence:
    """An int seed as is; one int per env as a ``SeedSequence`` of them all (``ValueError`` otherwise)."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return int(seed)
    seeds = list(seed) if isinstance(seed, (list, tuple, np.ndarray)) else None
    if seeds is None or len(seeds) != num_envs or not all(isinstance(x, (int, np.integer)) for x in seeds):
        raise ValueError(f"seed must be an int or {num_envs} ints (one per env), got {seed!r}")
    return np.random.SeedSequence([int(x) for x in seeds])
