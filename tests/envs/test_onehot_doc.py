"""The env docstring's one-hot sizes are the spaces' (a figure in a docstring is checked like code)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import zanzibar_env  # noqa: F401
from zanzibar_env.envs.env import ZanzibarEnv


@pytest.mark.parametrize(("ruleset", "size"), [("classic", 212), ("simple_scoring", 152), ("lives", 224)])
def test_onehot_size_in_the_docstring(ruleset: str, size: int) -> None:
    assert gym.make("Zanzibar-v1", ruleset=ruleset, obs_type="onehot").observation_space.shape == (size,)
    assert f"{size} for ``{ruleset}``" in " ".join((ZanzibarEnv.__doc__ or "").split())
