"""A features extractor for the PPO policy: the observation plus one-hot codes of its discrete parts.

The observation (``zanzibar_env/core/observation.py``) stores dice and hand ranks as scaled scalars, so a
small MLP has to carve sharp thresholds out of them (e.g. "hold 4 and 6 against a three of a kind").
This extractor decodes them back to integers and appends one-hot codes, which makes such rules easy
to represent: each die's face (3 x 6), the count of each face (6 x 4: 0-3 dice), the hand's rank, the
lowest and highest earlier hands' ranks (``num_ranks + 1`` each, the extra slot meaning "no earlier
hand"), rolls used and the roll limit (``max_rolls + 1`` each). ``num_ranks``/``max_rolls`` come from
the ruleset the model is trained on and are saved with the model (``policy_kwargs``).

The numpy twin of this extractor is :func:`zanzibar_env.core.onehot.onehot` (the envs'
``obs_type="onehot"``); ``tests/envs/test_obs_types.py`` checks that both give the same vector.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from zanzibar_env.core.observation import OBS_LAYOUT


class ZanzibarFeatures(BaseFeaturesExtractor):
    """``obs`` (float[33]) -> ``[obs, one-hot codes]``; see the module docstring for the codes.

    All codes are written by one ``scatter_`` (an index per code group, offset into the output), not a
    ``one_hot`` call per group (``docs/benchmarks.md``, "Training"); the values are those of
    :func:`zanzibar_env.core.onehot.onehot` (tested equal).
    """

    _cols: torch.Tensor  # buffers registered in __init__
    _scale: torch.Tensor
    _high: torch.Tensor
    _offsets: torch.Tensor
    _faces: torch.Tensor

    def __init__(self, observation_space: gym.spaces.Box, num_ranks: int = 42, max_rolls: int = 3) -> None:
        self.num_ranks, self.max_rolls = int(num_ranks), int(max_rolls)
        r, m = self.num_ranks, self.max_rolls
        size = observation_space.shape[0] + 18 + 24 + 3 * (r + 1) + 2 * (m + 1)
        super().__init__(observation_space, features_dim=size)
        top = max(r - 1, 1)
        names = ("hand_rank", "lowest_rank", "highest_rank", "rolls_used", "roll_limit")
        cols = [0, 1, 2, *(OBS_LAYOUT[k][0] for k in names)]
        sizes = [6] * 3 + [4] * 6 + [r + 1] * 3 + [m + 1] * 2  # code groups in output order
        offsets = torch.tensor([0, *sizes[:-1]]).cumsum(0)
        self.register_buffer("_cols", torch.tensor(cols), persistent=False)
        self.register_buffer("_scale", torch.tensor([6.0] * 3 + [top] * 3 + [m] * 2), persistent=False)
        self.register_buffer("_high", torch.tensor(sizes) - 1, persistent=False)
        self.register_buffer("_offsets", offsets, persistent=False)
        self.register_buffer("_faces", torch.arange(6), persistent=False)
        self._has, self._codes = OBS_LAYOUT["has_lowest"][0], int(sum(sizes))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        v = torch.round(obs[:, self._cols] * self._scale)  # faces 1..6, three ranks, rolls used, limit
        v[:, 0:3] -= 1
        none = obs[:, self._has] <= 0.5  # no earlier hand: slot num_ranks of lowest and highest
        v[:, 4:6] = torch.where(none[:, None], float(self.num_ranks), v[:, 4:6])
        x = v.long()
        counts = (x[:, 0:3, None] == self._faces).sum(1)  # dice showing each face (faces as 0..5)
        idx = torch.cat([x[:, 0:3], counts, x[:, 3:]], 1).clamp(min=0)
        idx = torch.minimum(idx, self._high) + self._offsets
        codes = obs.new_zeros(obs.shape[0], self._codes).scatter_(1, idx, 1.0)
        return torch.cat([obs, codes], 1)
