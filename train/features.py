"""A features extractor for the PPO policy: the observation plus one-hot codes of its discrete parts.

The observation (``zanzibar_env/core/observation.py``) stores dice and hand ranks as scaled scalars, so a
small MLP has to carve sharp thresholds out of them (e.g. "hold 4 and 6 against a three of a kind").
This extractor decodes them back to integers and appends one-hot codes, which makes such rules easy
to represent: each die's face (3 x 6), the count of each face (6 x 4: 0-3 dice), the hand's rank, the
lowest and highest earlier hands' ranks (``num_ranks + 1`` each, the extra slot meaning "no earlier
hand"), rolls used and the roll limit (``max_rolls + 1`` each). ``num_ranks``/``max_rolls`` come from
the ruleset the model is trained on and are saved with the model (``policy_kwargs``).

The numpy twin of this extractor is :func:`zanzibar_env.core.onehot.onehot` (the envs'
``obs_type="onehot"``); ``tests/test_obs_types.py`` checks that both give the same vector.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from zanzibar_env.core.observation import OBS_LAYOUT


class ZanzibarFeatures(BaseFeaturesExtractor):
    """``obs`` (float[33]) -> ``[obs, one-hot codes]``; see the module docstring for the codes."""

    def __init__(self, observation_space: gym.spaces.Box, num_ranks: int = 42, max_rolls: int = 3) -> None:
        self.num_ranks, self.max_rolls = int(num_ranks), int(max_rolls)
        size = observation_space.shape[0] + 18 + 24 + 3 * (self.num_ranks + 1) + 2 * (self.max_rolls + 1)
        super().__init__(observation_space, features_dim=size)

    def _one_hot(self, x: torch.Tensor, n: int) -> torch.Tensor:
        return nn.functional.one_hot(x.long().clamp(0, n - 1), n).flatten(1).float()

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        top = max(self.num_ranks - 1, 1)
        r = self.num_ranks
        faces = torch.round(obs[:, 0:3] * 6)  # 1..6
        counts = torch.stack([(faces == f).sum(1) for f in range(1, 7)], 1)  # 0..3 per face
        rank = torch.round(obs[:, OBS_LAYOUT["hand_rank"][0]] * top)
        has = obs[:, OBS_LAYOUT["has_lowest"][0]] > 0.5
        none = torch.full_like(rank, r)  # slot r = no earlier hand
        lo = torch.where(has, torch.round(obs[:, OBS_LAYOUT["lowest_rank"][0]] * top), none)
        hi = torch.where(has, torch.round(obs[:, OBS_LAYOUT["highest_rank"][0]] * top), none)
        used = torch.round(obs[:, OBS_LAYOUT["rolls_used"][0]] * self.max_rolls)
        limit = torch.round(obs[:, OBS_LAYOUT["roll_limit"][0]] * self.max_rolls)
        return torch.cat(
            [
                obs,
                self._one_hot(faces - 1, 6),
                self._one_hot(counts, 4),
                self._one_hot(rank, r + 1),
                self._one_hot(lo, r + 1),
                self._one_hot(hi, r + 1),
                self._one_hot(used, self.max_rolls + 1),
                self._one_hot(limit, self.max_rolls + 1),
            ],
            1,
        )
