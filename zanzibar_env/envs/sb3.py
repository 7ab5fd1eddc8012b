"""Stable-Baselines3 on the batched vector env: :class:`SB3VecEnv` and :func:`make_sb3_env` (public API).

Needs the ``train`` extra (``pip install "zanzibar-env[train]"``); importing this module without SB3
raises :class:`~zanzibar_env.extras.MissingExtraError`. It is what ``python -m train.ppo`` trains on:
one batched :class:`~zanzibar_env.envs.vector.ZanzibarVectorEnv` behind SB3's ``VecEnv`` interface,
with no per-env Python wrappers (``docs/benchmarks.md``, "Vector env")::

    from sb3_contrib import MaskablePPO
    from zanzibar_env.envs.sb3 import make_sb3_env

    venv = make_sb3_env("ZanzibarRound-v1", 64, opponents="optimal", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=1024, seed=0)
    model.learn(200_000)                       # action masks come from venv.action_masks()
    model.save("ppo_zanzibar.zip")             # play it: make_agent("ppo:ppo_zanzibar.zip")

How it works. The Gymnasium vector env autoresets in SAME_STEP mode: when an episode ends, the
returned observation is already the next episode's first one and the final observation sits in
``infos["final_obs"]`` (masked by ``infos["_final_obs"]``). That is exactly SB3's convention, where
``infos[i]["terminal_observation"]`` holds the final observation of env ``i`` and the returned one
starts the next episode, so the adapter only converts the info dict of arrays into SB3's list of
dicts, and only for the envs that finished. It also keeps per-env episode returns and lengths and
reports them as ``info["episode"]`` (what SB3's ``Monitor``/``VecMonitor`` would), so
``rollout/ep_rew_mean`` is logged. ``env_method("action_masks")`` returns the vector env's masks for
sb3-contrib ``MaskablePPO``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ..extras import requires_extra
from ._groups import GroupedVectorEnv
from .vector import ZanzibarVectorEnv

with requires_extra("train", "the SB3 vector adapter (zanzibar_env.envs.sb3)"):
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn


class SB3VecEnv(VecEnv):
    """SB3 view of one or more ``gymnasium.vector.VectorEnv`` (SAME_STEP autoreset, ``action_masks()``).

    Several vector envs are concatenated in order: env ``i`` of the SB3 side is env ``i - offset_g`` of
    vector env ``g``, reset with ``seed + 7919 * g``. (:func:`make_sb3_env` builds a single one, with its
    opponent groups inside.) ``seed_offsets`` (one vector env only): env ``i`` is reset with the seed
    ``seed + seed_offsets[i]`` instead of ``seed + i``.
    """

    def __init__(
        self,
        venvs: gym.vector.VectorEnv | Sequence[gym.vector.VectorEnv],
        seed_offsets: Sequence[int] | None = None,
    ) -> None:
        self.venvs = [venvs] if isinstance(venvs, gym.vector.VectorEnv) else list(venvs)
        if not self.venvs:
            raise ValueError("SB3VecEnv needs at least one vector env")
        for v in self.venvs:
            mode = v.metadata.get("autoreset_mode")
            if mode is not None and mode != gym.vector.AutoresetMode.SAME_STEP:
                raise ValueError(f"SB3VecEnv needs vector envs with SAME_STEP autoreset, got {mode}")
            if not isinstance(v.single_observation_space, gym.spaces.Box):
                raise ValueError("SB3VecEnv needs Box observations: use obs_type='flat' or 'onehot'")
        sizes = [int(v.num_envs) for v in self.venvs]
        self._bounds = np.cumsum([0, *sizes])
        n = int(self._bounds[-1])
        self._returns = np.zeros(n, np.float64)
        self._lengths = np.zeros(n, np.int64)
        self._t0 = time.perf_counter()
        self._actions: np.ndarray | None = None
        self._finals: list[dict[str, np.ndarray] | None] = []  # each vector env's final_info of the last step
        if seed_offsets is not None and (len(self.venvs) != 1 or len(seed_offsets) != n):
            raise ValueError(f"seed_offsets needs one vector env and {n} offsets, got {len(seed_offsets)}")
        self._offsets = None if seed_offsets is None else [int(o) for o in seed_offsets]
        first = self.venvs[0]
        super().__init__(n, first.single_observation_space, first.single_action_space)

    @property
    def venv(self) -> gym.vector.VectorEnv:
        """The first (usually the only) vector env."""
        return self.venvs[0]

    # ---- core -----------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        if seed is not None and self._offsets is not None:
            seeds: Any = [seed + o for o in self._offsets]
            obs = [self.venv.reset(seed=seeds)[0]]
        else:
            seeds = [None if seed is None else seed + 7919 * g for g in range(len(self.venvs))]
            obs = [v.reset(seed=s)[0] for v, s in zip(self.venvs, seeds, strict=True)]
        self._reset_seeds()
        self._finals = []
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return np.concatenate(obs).astype(np.float32, copy=False)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        assert self._actions is not None, "step_async must be called before step_wait"
        b = self._bounds
        parts = [v.step(self._actions[b[g] : b[g + 1]]) for g, v in enumerate(self.venvs)]
        self._actions = None
        self._finals = [p[4].get("final_info") for p in parts]
        obs = np.concatenate([p[0] for p in parts]).astype(np.float32, copy=False)
        rew = np.concatenate([p[1] for p in parts]).astype(np.float32, copy=False)
        term = np.concatenate([p[2] for p in parts]).astype(bool, copy=False)
        trunc = np.concatenate([p[3] for p in parts]).astype(bool, copy=False)
        done = term | trunc
        self._returns += rew
        self._lengths += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            elapsed = round(time.perf_counter() - self._t0, 6)
            ended = np.flatnonzero(done)
            venv = (np.searchsorted(b, ended, side="right") - 1).tolist()
            cut = (trunc & ~term)[ended].tolist()
            ret, length = self._returns[ended].tolist(), self._lengths[ended].tolist()
            for k, i in enumerate(ended.tolist()):
                g = venv[k]
                infos[i] = {
                    "terminal_observation": np.asarray(parts[g][4]["final_obs"][i - b[g]], np.float32),
                    "TimeLimit.truncated": cut[k],
                    "episode": {"r": ret[k], "l": length[k], "t": elapsed},
                }
            self._returns[done] = 0.0
            self._lengths[done] = 0
        return obs, rew, done, infos

    def final_info(self, key: str) -> np.ndarray | None:
        """``infos["final_info"][key]`` of the last step over all ``num_envs`` envs (the vector envs' arrays
        joined; zeros for envs whose episode did not end in it), or ``None`` if no episode ended.
        ``KeyError`` for a key the vector env does not report (see its docstring, "Episode End")."""
        finals = self._finals
        given = [f for f in finals if f is not None]
        if not given:
            return None
        like = given[0][key]
        b = self._bounds
        out = np.zeros((self.num_envs, *like.shape[1:]), like.dtype)
        for g, f in enumerate(finals):
            if f is not None:
                out[b[g] : b[g + 1]] = f[key]
        return out

    def action_masks(self) -> np.ndarray:
        """Legal-action masks ``bool[num_envs, 8]`` for the current observations."""
        masks = [v.action_masks() for v in self.venvs]  # type: ignore[attr-defined]  # our vector envs; SB3 sees VectorEnv
        return np.concatenate(masks).astype(bool, copy=False)

    def close(self) -> None:
        for v in self.venvs:
            v.close()

    # ---- the attribute/method plumbing SB3 expects ----------------------------------------------
    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        idx = self._indices(indices)
        if attr_name == "render_mode":
            return [None for _ in idx]
        if attr_name == "action_masks":
            return [self.action_masks for _ in idx]
        value = getattr(self.venv, attr_name)  # AttributeError if missing, as SB3 expects
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        for v in self.venvs:
            setattr(v, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return list(masks) if indices is None else [masks[i] for i in idx]
        results = [getattr(v, method_name)(*method_args, **method_kwargs) for v in self.venvs]
        return [results[0] for _ in idx]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


def make_sb3_env(
    env_id: str = "ZanzibarRound-v1",
    num_envs: int = 64,
    *,
    ruleset: Any = "classic",
    num_players: int = 2,
    opponents: Any = "random",
    seat: str | int | Sequence[str | int] = "random",
    reward: str = "chips",
    max_rounds: int | None = None,
    seed: int | None = None,
    groups: list[Any] | None = None,
    skip_no_decision: bool = False,
) -> SB3VecEnv:
    """The batched Zanzibar vector env for ``env_id`` (one round or one game per episode), for SB3.

    ``opponents`` goes to :class:`zanzibar_env.envs.vector.ZanzibarVectorEnv` (one spec for every other
    seat, or one per seat). With ``groups`` (a list of opponents specs) the ``num_envs`` envs are split
    evenly into groups instead, each playing its own opponents; adjacent groups holding the very same
    spec object are merged. All groups run in one batched env (:class:`~zanzibar_env.envs._groups.
    GroupedVectorEnv`; only the opponents' decisions are made per group), seeded with ``seed``.
    ``seat``: one for every env, or one per env (an int or ``"random"`` each); then each run of envs with
    the same seat is a *part*, split into the groups on its own (so every part plays every group), and
    env ``j`` of part ``p`` is seeded with ``seed + 7919 * p + j`` (as if each part were its own vector
    env, see :class:`SB3VecEnv`). ``skip_no_decision``: episodes that end before the learner's first
    decision are replayed, not returned as a dummy step.
    """
    episodes = {"ZanzibarRound-v1": "round", "Zanzibar-v1": "game"}
    if env_id not in episodes:
        raise ValueError(f"env_id must be one of {list(episodes)}, got {env_id!r}")
    parts = _seat_parts(num_envs, seat)
    merged = _group_layout([size for _, size in parts], groups if groups else [opponents])
    offsets = None
    if len(parts) > 1:
        offsets = [7919 * p + j for p, (_, size) in enumerate(parts) for j in range(size)]
    kwargs: dict[str, Any] = dict(
        ruleset=ruleset,
        num_players=num_players,
        seat=seat,
        reward=reward,
        episode=episodes[env_id],
        max_rounds=max_rounds,
        skip_no_decision=skip_no_decision,
        seed=seed if seed is None or offsets is None else [seed + o for o in offsets],
    )
    if len(merged) == 1:
        return SB3VecEnv(ZanzibarVectorEnv(num_envs, opponents=merged[0][0], **kwargs), offsets)
    sizes, opps = [size for _, size in merged], [spec for spec, _ in merged]
    return SB3VecEnv(GroupedVectorEnv(sizes, opps, **kwargs), offsets)


def _seat_parts(num_envs: int, seat: Any) -> list[tuple[Any, int]]:
    """``(seat, size)`` of each run of envs with the same seat (one run for a single ``seat``)."""
    if isinstance(seat, str) or not isinstance(seat, (Sequence, np.ndarray)):
        return [(seat, num_envs)]
    if len(seat) != num_envs:
        raise ValueError(f"seat: got {len(seat)} values for {num_envs} envs (give one, or one per env)")
    parts: list[tuple[Any, int]] = []
    for s in seat:
        if parts and type(parts[-1][0]) is type(s) and parts[-1][0] == s:
            parts[-1] = (s, parts[-1][1] + 1)
        else:
            parts.append((s, 1))
    return parts


def _group_layout(part_sizes: list[int], specs: list[Any]) -> list[tuple[Any, int]]:
    """``(spec, size)`` of each row group: every part split evenly into the groups, in order; adjacent
    groups with the very same spec object merged."""
    merged: list[tuple[Any, int]] = []
    for num_envs in part_sizes:
        if len(specs) > num_envs:
            raise ValueError(f"num_envs={num_envs} is smaller than the {len(specs)} opponent groups")
        sizes = [num_envs // len(specs) + (g < num_envs % len(specs)) for g in range(len(specs))]
        for spec, size in zip(specs, sizes, strict=True):
            if merged and merged[-1][0] is spec:
                merged[-1] = (spec, merged[-1][1] + size)
            else:
                merged.append((spec, size))
    return merged
