"""Observation types (``obs_type``), the no-decision flag and ``reset(options={"seat": ...})``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import zanzibar_env  # noqa: F401  (registers the ids)
from zanzibar_env.core.onehot import onehot, onehot_size, ruleset_dims
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.envs.env import ZanzibarEnv

OBS_TYPES = ("flat", "onehot", "dict")


class Stop:
    """Always stops (7): a first player who stops after one roll leaves the next a single roll."""

    def act(self, view: object) -> int:
        return 7


def _flat_obs(n: int = 300) -> np.ndarray:
    env = ZanzibarEnv(num_players=4, opponents="greedy")
    obs, info = env.reset(seed=1)
    rng, out = np.random.default_rng(1), [obs]
    while len(out) < n:
        obs, _, te, tr, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        out.append(obs)
        if te or tr:
            obs, info = env.reset()
            out.append(obs)
    return np.array(out)


def test_onehot_matches_the_training_extractor() -> None:
    torch = pytest.importorskip("torch")
    from zanzibar_env.train.sb3.features import ZanzibarFeatures

    obs = _flat_obs()
    dims = ruleset_dims(load_ruleset("classic"))
    ext = ZanzibarFeatures(gym.spaces.Box(-1, 8, (33,), np.float32), *dims)
    want = ext(torch.as_tensor(obs)).numpy()
    got = onehot(obs, *dims)
    assert got.shape == (len(obs), onehot_size(*dims)) == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(onehot(obs[5], *dims), got[5])  # one row as a batch of one


@pytest.mark.parametrize("obs_type", OBS_TYPES)
@pytest.mark.parametrize("env_id", ["Zanzibar-v1", "ZanzibarRound-v1"])
def test_check_env_and_spaces(env_id: str, obs_type: str) -> None:
    env = gym.make(env_id, obs_type=obs_type, num_players=3)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == bool and env.unwrapped.action_masks().dtype == bool
    flat = ZanzibarEnv(num_players=3, episode=env.unwrapped.episode).reset(seed=3)[0]
    if obs_type == "dict":
        np.testing.assert_array_equal(obs["observation"], flat)
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    elif obs_type == "onehot":
        np.testing.assert_array_equal(obs[:33], flat)
        assert obs.shape == (onehot_size(*ruleset_dims(load_ruleset("classic"))),)
    else:
        np.testing.assert_array_equal(obs, flat)


def test_bad_obs_type() -> None:
    with pytest.raises(ValueError, match="obs_type"):
        ZanzibarEnv(obs_type="image")


def test_no_decision_flag_and_skip() -> None:
    env = ZanzibarEnv(num_players=2, opponents="optimal", episode="round")
    flags = [env.reset(seed=s)[1]["no_decision"] for s in range(60)]
    assert any(flags) and not all(flags)  # after an opponent who stops at once, the agent has one roll
    obs, info = env.reset(seed=flags.index(True))
    assert info["action_mask"].all() and (obs[:16] == 0).all()
    assert env.step(0)[4]["no_decision"]
    skip = ZanzibarEnv(num_players=2, opponents="optimal", episode="round", skip_no_decision=True)
    for s in range(30):
        obs, info = skip.reset(seed=s)
        assert not info["no_decision"] and obs[4] > 0  # the agent decides after its first roll
    stuck = ZanzibarEnv(num_players=2, seat=1, opponents=Stop(), episode="round", skip_no_decision=True)
    with pytest.raises(RuntimeError, match="no decision in"):
        stuck.reset(seed=0)


def test_seat_option() -> None:
    env = ZanzibarEnv(num_players=4)
    for seat in (0, 3, np.int64(2)):
        assert env.reset(seed=0, options={"seat": seat})[1]["seat"] == seat
    with pytest.raises(ValueError, match="seat"):
        env.reset(options={"seat": 4})
    assert env.reset(options={})[1]["seat"] in range(4)
