"""The shipped baselines: found by name, loaded by the safe loader, their provenance beside them."""

from __future__ import annotations

import numpy as np
import pytest

import zanzibar_env as zz
from zanzibar_env.agents import pretrained
from zanzibar_env.agents.ppo_agent import load_model, predict
from zanzibar_env.agents.sb3_greedy import greedy_actions
from zanzibar_env.envs.env import ZanzibarEnv
from zanzibar_env.agents.exact import exploitability
from zanzibar_env.models import MODEL_DIR

pytest.importorskip("torch")


def test_every_baseline_is_a_registered_name_with_its_provenance() -> None:
    assert set(pretrained.available()) <= set(zz.available_agents())
    for name in pretrained.available():
        assert pretrained.model_path(name) == MODEL_DIR / f"{name}.zip"
        info = pretrained.provenance(name)
        assert {"command", "seed", "config"} <= set(info), name
        agent = zz.make_agent(name)
        assert agent.name == name and agent.path == pretrained.model_path(name)
    with pytest.raises(ValueError, match="no shipped baseline 'nope'"):
        pretrained.model_path("nope")


def test_ppo_prefix_finds_a_baseline_by_name_and_plays() -> None:
    agent = zz.make_agent("ppo:ppo_game_4p_teacher")
    assert agent.path == pretrained.model_path("ppo_game_4p_teacher")
    others = [zz.make_agent(n, seed=0) for n in ("random", "optimal", "random")]
    record = zz.play_game("classic", [agent, *others], num_players=4, seed=0, max_rounds=20)
    assert record.rounds


def test_default_baseline_measures_its_provenance_figure() -> None:
    ex = exploitability(zz.make_agent("ppo_classic_2p"), "classic")
    assert ex["average"] == pytest.approx(pretrained.provenance("ppo_classic_2p")["exploitability"]["mean"])


def _game_observations(name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` observations and legal masks from games of the ruleset and table a baseline was trained on."""
    config = pretrained.provenance(name)["config"]
    env = ZanzibarEnv(config["ruleset"], num_players=config["num_players"], opponents="random")
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    rows, masks = [], []
    while len(rows) < n:
        rows.append(obs)
        masks.append(info["action_mask"].astype(bool))
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(masks[-1]))))
        if term or trunc:
            obs, info = env.reset()
    return np.array(rows, np.float32), np.array(masks)


@pytest.mark.parametrize("name", pretrained.available())
def test_direct_greedy_pass_gives_the_actions_of_sb3_predict(name: str) -> None:
    model = load_model(pretrained.model_path(name))
    assert model.maskable
    rng = np.random.default_rng(1)
    game_obs, game_masks = _game_observations(name, 1500)
    uniform = rng.random((1500, game_obs.shape[1]), dtype=np.float32)  # off the game's states too
    random_masks = rng.random((1500, 8)) < 0.4
    random_masks[np.arange(1500), rng.integers(0, 8, 1500)] = True  # at least one legal action
    cases = [(game_obs, game_masks), (game_obs, random_masks), (uniform, random_masks)]
    cases += [(game_obs[:1], random_masks[:1]), (uniform, np.ones_like(random_masks))]
    for obs, masks in cases:
        expected, _ = model.predict(obs, deterministic=True, action_masks=masks.copy())
        got = greedy_actions(model.policy, obs, masks)
        assert got is not None and got.dtype == np.int64
        np.testing.assert_array_equal(got, expected)
    # the agent's path (predict of ppo_agent) gives the same actions on its own masks
    np.testing.assert_array_equal(
        predict(model, game_obs, game_masks), model.predict(game_obs, True, game_masks)[0]
    )


def test_direct_greedy_pass_knows_plain_ppo_and_leaves_other_policies_to_predict() -> None:
    from gymnasium import spaces
    from stable_baselines3.common.policies import ActorCriticPolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    box, n = spaces.Box(0.0, 1.0, (33,), np.float32), spaces.Discrete(8)
    obs = np.random.default_rng(2).random((300, 33), dtype=np.float32)
    plain = ActorCriticPolicy(box, n, lambda _: 0.0, net_arch=[16])
    expected, _ = plain.predict(obs, deterministic=True)
    plain.set_training_mode(True)
    np.testing.assert_array_equal(greedy_actions(plain, obs, None), expected)
    assert plain.training is False
    assert greedy_actions(DQNPolicy(box, n, lambda _: 0.0), obs, None) is None
    assert greedy_actions(object(), obs, None) is None
