"""Observation types of the envs (``obs_type=``): ``"flat"``, ``"onehot"`` and ``"dict"``.

* ``"flat"`` (default): the 33 floats of :mod:`zanzibar_env.core.observation`, ``Box(-1, 8, (33,))``;
* ``"onehot"``: the flat floats plus one-hot codes (:mod:`zanzibar_env.core.onehot`), the encoding
  the default training uses, ``Box(-1, 8, (onehot_size,))``;
* ``"dict"``: ``Dict{"observation": Box(33), "action_mask": MultiBinary(8)}``, the action mask inside
  the observation as RLlib and Tianshou expect (the mask is also in ``info["action_mask"]``).

One :class:`ObsFormat` per env converts the flat observation (one row or ``[N, 33]``) and gives the
space; the single, vector and PettingZoo envs all use it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ..core.engine import NUM_ACTIONS
from ..core.onehot import onehot, onehot_size, ruleset_dims
from ..core.rules import Ruleset
from . import _envutil as U

OBS_TYPES = ("flat", "onehot", "dict")


class ObsFormat:
    """The observation space of ``obs_type`` and the conversion of flat observations to it."""

    def __init__(self, obs_type: Any, ruleset: Ruleset) -> None:
        self.kind = U.check_choice("obs_type", obs_type, OBS_TYPES)
        self.dims = ruleset_dims(ruleset)
        flat = U.observation_space()
        if self.kind == "onehot":
            size = onehot_size(*self.dims)
            self.space: spaces.Space = spaces.Box(U.OBS_LOW, U.OBS_HIGH, (size,), np.float32)
        elif self.kind == "dict":
            self.space = spaces.Dict({"observation": flat, "action_mask": spaces.MultiBinary(NUM_ACTIONS)})
        else:
            self.space = flat

    def __call__(self, obs: np.ndarray, mask: np.ndarray | None) -> Any:
        """``obs`` (``[33]`` or ``[N, 33]``) and its legal actions (``[8]`` or ``[N, 8]``) as ``obs_type``."""
        if self.kind == "onehot":
            return onehot(obs, *self.dims)
        if self.kind == "dict":
            return {"observation": obs, "action_mask": np.asarray(mask, np.int8)}
        return obs
