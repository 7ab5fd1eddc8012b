"""The one-hot observation: the flat observation plus one-hot codes of its discrete parts (numpy).

The flat observation (:mod:`zanzibar_env.core.observation`) stores dice and hand ranks as scaled
scalars, so a small MLP has to carve sharp thresholds out of them. This encoding decodes them back to
integers and appends one-hot codes (the order below is the order of the vector):

* 0-32: the flat observation itself (``OBS_LAYOUT``);
* 3 x 6: each die's face (dice sorted ascending; face ``f`` at offset ``f - 1``);
* 6 x 4: how many dice show each face (0-3), faces 1..6;
* 3 x (``num_ranks`` + 1): the hand's rank, the lowest and the highest earlier hand's rank (the last
  slot of the two latter means "no earlier hand");
* 2 x (``max_rolls`` + 1): rolls used and the roll limit.

The envs' ``obs_type="onehot"`` and the training's torch extractor (``train/sb3/features.py``,
``ZanzibarFeatures``) compute the same vector (``tests/envs/test_obs_types.py`` checks they agree).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .observation import OBS_LAYOUT, OBS_SIZE
from .rules import Ruleset


def onehot_size(num_ranks: int, max_rolls: int) -> int:
    """Length of the one-hot observation for ``num_ranks`` hand ranks and ``max_rolls`` rolls."""
    return OBS_SIZE + 18 + 24 + 3 * (num_ranks + 1) + 2 * (max_rolls + 1)


def ruleset_dims(ruleset: Ruleset) -> tuple[int, int]:
    """``(num_ranks, max_rolls)`` of a ruleset: what :func:`onehot` needs."""
    return int(ruleset.table.num_ranks), int(ruleset.max_rolls)


def _code(x: Any, n: int, xp: Any = np) -> Any:
    """One-hot codes ``float32[..., k * n]`` of integers ``x[..., k]`` (clipped to 0..n-1)."""
    idx = xp.clip(x, 0, n - 1).astype(xp.int32)
    if xp is np:  # a row of the identity per index: numpy's fastest way
        return np.eye(n, dtype=np.float32)[idx].reshape(*idx.shape[:-1], -1)
    return (idx[..., None] == xp.arange(n, dtype=xp.int32)).astype(xp.float32).reshape(*idx.shape[:-1], -1)


def _at(obs: Any, name: str) -> Any:
    return obs[..., OBS_LAYOUT[name][0]]


def onehot(obs: Any, num_ranks: int, max_rolls: int, xp: Any = np) -> Any:
    """``float32[..., onehot_size]`` from flat observations ``float32[..., 33]`` (see the module doc).

    ``xp`` is the array namespace: ``numpy`` (the envs, the agents) or ``jax.numpy`` (the JAX PPO,
    traced under ``jit``); the same formulas run on both."""
    obs = xp.asarray(obs, xp.float32)
    top, r = max(num_ranks - 1, 1), num_ranks
    faces = xp.round(obs[..., 0:3] * 6)  # 1..6
    counts = xp.stack([(faces == f).sum(-1) for f in range(1, 7)], -1)  # 0..3 per face
    has = _at(obs, "has_lowest") > 0.5
    rank = xp.round(_at(obs, "hand_rank") * top)
    lo = xp.where(has, xp.round(_at(obs, "lowest_rank") * top), r)  # slot r = no earlier hand
    hi = xp.where(has, xp.round(_at(obs, "highest_rank") * top), r)
    used = xp.round(_at(obs, "rolls_used") * max_rolls)
    limit = xp.round(_at(obs, "roll_limit") * max_rolls)
    parts = [
        obs,
        _code(faces - 1, 6, xp),
        _code(counts, 4, xp),
        *(_code(x[..., None], r + 1, xp) for x in (rank, lo, hi)),
        *(_code(x[..., None], max_rolls + 1, xp) for x in (used, limit)),
    ]
    return xp.concatenate(parts, -1).astype(xp.float32)
