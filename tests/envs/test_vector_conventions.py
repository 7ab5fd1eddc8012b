"""The vector env by Gymnasium's rules: autoreset modes, vector wrappers, seeds, time limits,
observation types, info keys and ``options`` alike in the single and the vector env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as VW

import zanzibar_env  # noqa: F401  (registers the ids)
from zanzibar_env.core.dice import ScriptedDice
from zanzibar_env.core.onehot import onehot, ruleset_dims
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.envs.env import ZanzibarEnv
from zanzibar_env.envs.vector import ZanzibarVectorEnv

NEXT = AutoresetMode.NEXT_STEP


def _stop_or_hold(obs: np.ndarray) -> np.ndarray:
    """A fixed policy: stop on a good hand (rank slot >= 0.5), else re-throw everything."""
    return np.where(obs[:, 3] >= 0.5, 7, 0)


def test_next_step_agrees_with_the_single_env() -> None:
    rows, kw = 6, dict(num_players=3, opponents="greedy", episode="round", seat=1)
    faces = [np.random.default_rng(i).integers(1, 7, 5000).tolist() for i in range(rows)]
    singles = [ZanzibarEnv(dice=ScriptedDice(f), **kw) for f in faces]
    vec = ZanzibarVectorEnv(rows, autoreset_mode="NextStep", **kw)
    vec.set_dice_sources([ScriptedDice(f) for f in faces])
    assert vec.metadata["autoreset_mode"] == NEXT
    obs_v, _ = vec.reset()
    want = [e.reset(seed=0)[0] for e in singles]
    np.testing.assert_array_equal(obs_v, np.stack(want))
    ended, episodes = np.zeros(rows, bool), 0
    for _ in range(40):
        act = _stop_or_hold(obs_v)
        obs_v, rew, term, trunc, _info = vec.step(act)
        for i, e in enumerate(singles):
            if ended[i]:  # NEXT_STEP: this step resets the row, with reward 0 and no end
                o, r, te, tr = e.reset()[0], 0.0, False, False
            else:
                o, r, te, tr, _ = e.step(int(act[i]))
            np.testing.assert_array_equal(obs_v[i], o)
            assert (rew[i], term[i], trunc[i]) == (pytest.approx(r), te, tr)
        episodes += int(term.sum())
        ended = term | trunc
    assert episodes >= rows  # several episodes ended and were reset


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, NEXT])
def test_gymnasium_vector_wrappers(mode: AutoresetMode) -> None:
    env = gym.make_vec(
        "ZanzibarRound-v1", num_envs=8, vectorization_mode="vector_entry_point", autoreset_mode=mode
    )
    env = VW.RecordEpisodeStatistics(env)
    if mode == NEXT:  # Gymnasium's NormalizeObservation accepts NEXT_STEP only
        env = VW.NormalizeObservation(env)
    env = VW.ClipReward(env, -10, 10)
    obs, info = env.reset(seed=0)
    episodes = 0
    for _ in range(30):
        obs, _rew, _term, _trunc, info = env.step(np.full(8, 7))
        assert np.isfinite(obs).all() and obs.shape == (8, 33)
        if "episode" in info:
            done = info["_episode"]
            episodes += int(done.sum())
            assert (info["episode"]["l"][done] >= 1).all()
    assert episodes >= 8
    with pytest.raises(ValueError, match="autoreset_mode"):
        ZanzibarVectorEnv(2, autoreset_mode="Disabled")


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, NEXT])
def test_max_episode_steps_through_make_vec(mode: AutoresetMode) -> None:
    env = gym.make_vec("Zanzibar-v1", num_envs=4, vectorization_mode="vector_entry_point",
                       max_episode_steps=3, autoreset_mode=mode)  # fmt: skip
    env.reset(seed=1)
    truncs = []
    for _ in range(3):
        _obs, _, term, trunc, info = env.step(np.zeros(4, np.int64))  # re-throw: games go on
        truncs.append(trunc | term)
    assert truncs[-1].all() and not truncs[0].any()
    if mode == AutoresetMode.SAME_STEP:
        assert all(o is not None and o.shape == (33,) for o in info["final_obs"])
    nxt = env.step(np.zeros(4, np.int64))
    assert not (nxt[2] | nxt[3]).any()
    with pytest.raises(ValueError, match="max_episode_steps"):
        ZanzibarVectorEnv(2, max_episode_steps=0)


def test_wrappers_need_sync_mode() -> None:
    # Gymnasium refuses `wrappers=` in vector_entry_point mode; per-env wrappers work with "sync"
    with pytest.raises(gym.error.Error, match="wrappers"):
        gym.make_vec("Zanzibar-v1", num_envs=2, vectorization_mode="vector_entry_point",
                     wrappers=[gym.wrappers.FlattenObservation])  # fmt: skip
    env = gym.make_vec("Zanzibar-v1", num_envs=2, vectorization_mode="sync",
                       wrappers=[lambda e: gym.wrappers.TimeLimit(e, 2)])  # fmt: skip
    env.reset(seed=0)
    assert not env.step(np.zeros(2, np.int64))[3].any()
    _, _, term, trunc, _ = env.step(np.zeros(2, np.int64))
    assert (term | trunc).all()  # the time limit cut every game that did not end by itself


def test_seed_lists() -> None:
    vec = ZanzibarVectorEnv(4)
    a = vec.reset(seed=[1, 2, 3, 4])[0]
    b = vec.reset(seed=[1, 2, 3, 4])[0]
    c = vec.reset(seed=[1, 2, 3, 5])[0]
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a[:3], c[:3])  # per-env seeds: only env 3's seed changed
    assert not np.array_equal(a[3], c[3])
    np.testing.assert_array_equal(vec.reset(seed=np.arange(4))[0], vec.reset(seed=[0, 1, 2, 3])[0])
    for bad in ([1, 2], [1.5, 2, 3, 4], "x"):
        with pytest.raises(ValueError, match="seed"):
            vec.reset(seed=bad)  # type: ignore[arg-type]


def test_info_keys_masks_and_seat_option_alike() -> None:
    single = ZanzibarEnv(num_players=4)
    vec = ZanzibarVectorEnv(3, num_players=4)
    _, si = single.reset(seed=0, options={"seat": 2})
    _, vi = vec.reset(seed=0, options={"seat": 2})
    assert set(si) - {"rounds"} == {k for k in vi if not k.startswith("_")}  # records: single env only
    assert si["num_rounds"] == 0 and (vi["num_rounds"] == 0).all()
    assert si["seat"] == 2 and (vi["seat"] == 2).all()
    assert si["action_mask"].dtype == vi["action_mask"].dtype == vec.action_masks().dtype == bool
    assert single.action_masks().dtype == bool
    assert (vec.reset(options={"seat": [0, 1, 3]})[1]["seat"] == [0, 1, 3]).all()
    with pytest.raises(ValueError, match="seat"):
        vec.reset(options={"seat": 4})


@pytest.mark.parametrize("obs_type", ["flat", "onehot", "dict"])
def test_obs_types(obs_type: str) -> None:
    vec = ZanzibarVectorEnv(5, obs_type=obs_type, episode="round")
    flat = ZanzibarVectorEnv(5, episode="round")
    obs, info = vec.reset(seed=2)
    want, _ = flat.reset(seed=2)
    for _ in range(6):
        assert vec.observation_space.contains(obs)
        if obs_type == "dict":
            np.testing.assert_array_equal(obs["observation"], want)
            np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
        elif obs_type == "onehot":
            np.testing.assert_array_equal(obs, onehot(want, *ruleset_dims(load_ruleset("classic"))))
        else:
            np.testing.assert_array_equal(obs, want)
        obs, _, _, _, info = vec.step(np.full(5, 7))
        want = flat.step(np.full(5, 7))[0]


def test_no_decision_flag_and_skip() -> None:
    vec = ZanzibarVectorEnv(64, opponents="optimal", episode="round")
    obs, info = vec.reset(seed=0)
    nd = info["no_decision"]
    assert nd.any() and not nd.all()
    assert (vec.action_masks()[nd]).all() and (obs[nd, :16] == 0).all()
    skip = ZanzibarVectorEnv(64, opponents="optimal", episode="round", skip_no_decision=True)
    obs, info = skip.reset(seed=0)
    for _ in range(5):
        assert not info["no_decision"].any() and (obs[:, 4] > 0).all()  # everyone at a decision
        obs, _, term, _, info = skip.step(np.full(64, 7))
        assert term.all()


def test_sb3_adapter_refuses_next_step_and_dict_obs() -> None:
    pytest.importorskip("stable_baselines3")
    from zanzibar_env.envs.sb3 import SB3VecEnv

    with pytest.raises(ValueError, match="SAME_STEP"):
        SB3VecEnv(ZanzibarVectorEnv(2, autoreset_mode=NEXT))
    with pytest.raises(ValueError, match="obs_type"):
        SB3VecEnv(ZanzibarVectorEnv(2, obs_type="dict"))
    SB3VecEnv(ZanzibarVectorEnv(2, obs_type="onehot")).reset()
