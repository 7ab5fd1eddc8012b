"""The shipped baselines: found by name, loaded by the safe loader, their provenance beside them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import zanzibar_env as zz
from zanzibar_env.agents import pretrained, sb3_greedy
from zanzibar_env.agents.exact import exploitability
from zanzibar_env.agents.ppo_agent import load_model, predict
from zanzibar_env.agents.sb3_greedy import greedy_actions
from zanzibar_env.envs.env import ZanzibarEnv
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


@pytest.mark.parametrize("name", pretrained.available())
def test_numpy_pass_gives_torchs_logits_and_actions_off_ties(name: str) -> None:
    """The numpy export's logits lie within float32 rounding of torch's, far inside the tie gap, on game
    observations and on random ones over the whole observation box; off near-ties its argmax is
    ``predict``'s action (near-ties are decided by torch: the previous test)."""
    import torch

    model = load_model(pretrained.model_path(name))
    net = sb3_greedy.numpy_policy(model.policy)
    assert net is not None and net.onehot is not None  # the shipped models take the numpy pass
    rng = np.random.default_rng(3)
    game_obs, game_masks = _game_observations(name, 2000)
    box = rng.uniform(-1.0, 8.0, (2000, 33)).astype(np.float32)  # the observation space's bounds
    random_masks = rng.random((2000, 8)) < 0.5
    random_masks[:, 0] = True
    for obs, masks in [(game_obs, game_masks), (box, random_masks), (game_obs, random_masks)]:
        with torch.inference_mode():
            policy = model.policy
            ref = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(
                torch.as_tensor(obs), policy.features_extractor
            ))).numpy()  # fmt: skip
        logits = net.logits(obs)
        assert np.abs(logits - ref).max() < sb3_greedy.TIE_GAP / 10
        masked = np.where(masks, logits, -1e8)
        top2 = np.sort(masked, 1)[:, -2:]
        clear = top2[:, 1] - top2[:, 0] >= sb3_greedy.TIE_GAP
        assert clear.mean() > 0.99
        expected, _ = model.predict(obs, deterministic=True, action_masks=masks.copy())
        np.testing.assert_array_equal(masked.argmax(1)[clear], expected[clear])


def _plain_policy(activation: Any, net_arch: list[int], seed: int = 0) -> Any:
    import torch
    from gymnasium import spaces
    from stable_baselines3.common.policies import ActorCriticPolicy

    torch.manual_seed(seed)
    box = spaces.Box(-1.0, 8.0, (33,), np.float32)
    return ActorCriticPolicy(
        box, spaces.Discrete(8), lambda _: 0.0, net_arch=net_arch, activation_fn=activation
    )


def test_numpy_pass_of_plain_policies_follows_weight_changes_and_breaks_ties_as_torch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import torch

    obs = np.random.default_rng(4).uniform(-1.0, 8.0, (500, 33)).astype(np.float32)
    for activation, arch in [(torch.nn.ReLU, [32, 16]), (torch.nn.Tanh, []), (torch.nn.Tanh, [8])]:
        policy = _plain_policy(activation, arch)
        assert sb3_greedy.numpy_policy(policy) is not None
        np.testing.assert_array_equal(
            greedy_actions(policy, obs, None), policy.predict(obs, deterministic=True)[0]
        )
    # an optimizer step (in place): the next call exports the new weights
    before = greedy_actions(policy, obs, None)
    with torch.no_grad():
        policy.action_net.bias[3] += 50.0
    after = greedy_actions(policy, obs, None)
    assert (after == 3).all() and not (before == 3).all()
    # exact ties (two equal action rows): torch decides, as predict does (the first of the tied actions)
    with torch.no_grad():
        policy.action_net.bias[3] -= 50.0
        policy.action_net.weight[6] = policy.action_net.weight[2]
        policy.action_net.bias[6] = policy.action_net.bias[2] = 10.0
    decided: list[int] = []
    by_torch = sb3_greedy.torch_greedy_actions
    monkeypatch.setattr(
        sb3_greedy, "torch_greedy_actions", lambda p, o, m: decided.append(len(o)) or by_torch(p, o, m)
    )
    np.testing.assert_array_equal(
        greedy_actions(policy, obs, None), policy.predict(obs, deterministic=True)[0]
    )
    assert (greedy_actions(policy, obs, None) == 2).all() and decided == [500, 500]
    # layers numpy does not reproduce: torch's pass for every row, the same actions
    elu = _plain_policy(torch.nn.ELU, [16])
    assert sb3_greedy.numpy_policy(elu) is None
    np.testing.assert_array_equal(greedy_actions(elu, obs, None), elu.predict(obs, deterministic=True)[0])
