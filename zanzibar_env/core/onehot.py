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

The envs' ``obs_type="onehot"`` and the training's torch extractor (``train/features.py``,
``ZanzibarFeatures``) compute the same vector (``tests/test_obs_types.py`` checks they agree).
"""

from __future__ import annotations

import numpy as np

from .observation import OBS_LAYOUT, OBS_SIZE
from .rules import Ruleset


def onehot_size(num_ranks: int, max_rolls: int) -> int:
    """Length of the one-hot observation for ``num_ranks`` hand ranks and ``max_rolls`` rolls."""
    return OBS_SIZE + 18 + 24 + 3 * (num_ranks + 1) + 2 * (max_rolls + 1)


def ruleset_dims(ruleset: Ruleset) -> tuple[int, int]:
    """``(num_ranks, max_rolls)`` of a ruleset: what :func:`onehot` needs."""
    return int(ruleset.table.num_ranks), int(ruleset.max_rolls)


def _code(x: np.ndarray, n: int) -> np.ndarray:
    """One-hot codes ``float32[..., k * n]`` of integers ``x[..., k]`` (clipped to 0..n-1)."""
    idx = np.clip(x, 0, n - 1).astype(np.int64)
    return np.eye(n, dtype=np.float32)[idx].reshape(*idx.shape[:-1], -1)


def _at(obs: np.ndarray, name: str) -> np.ndarray:
    return obs[..., OBS_LAYOUT[name][0]]


def onehot(obs: np.ndarray, num_ranks: int, max_rolls: int) -> np.ndarray:
    """``float32[..., onehot_size]`` from flat observations ``float32[..., 33]`` (see the module doc)."""
    obs = np.asarray(obs, np.float32)
    top, r = max(num_ranks - 1, 1), num_ranks
    faces = np.round(obs[..., 0:3] * 6)  # 1..6
    counts = np.stack([(faces == f).sum(-1) for f in range(1, 7)], -1)  # 0..3 per face
    has = _at(obs, "has_lowest") > 0.5
    rank = np.round(_at(obs, "hand_rank") * top)
    lo = np.where(has, np.round(_at(obs, "lowest_rank") * top), r)  # slot r = no earlier hand
    hi = np.where(has, np.round(_at(obs, "highest_rank") * top), r)
    used = np.round(_at(obs, "rolls_used") * max_rolls)
    limit = np.round(_at(obs, "roll_limit") * max_rolls)
    parts = [
        obs,
        _code(faces - 1, 6),
        _code(counts, 4),
        *(_code(x[..., None], r + 1) for x in (rank, lo, hi)),
        *(_code(x[..., None], max_rolls + 1) for x in (used, limit)),
    ]
    return np.concatenate(parts, -1).astype(np.float32)
