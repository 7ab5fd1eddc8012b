"""Any callable policy as an agent (agents.policy); the public SB3 vector adapter (zanzibar_env.envs.sb3)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import zanzibar_env as zz
from zanzibar_env.agents.exact import action_probabilities, decision_states, exploitability
from zanzibar_env.agents.policy import PolicyAgent
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.observation import encode_batch


class _Stop(BaseAgent):
    def act_batch(self, batch: object) -> np.ndarray:
        return np.full(len(batch), 7)  # type: ignore[arg-type]


def _net(seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(33, 32), torch.nn.Tanh(), torch.nn.Linear(32, 8))


def test_numpy_function_is_evaluated_like_the_same_bot() -> None:
    stop = PolicyAgent(lambda obs: np.full(len(obs), 7), name="stop")
    assert exploitability(stop, "classic") == exploitability(_Stop(), "classic")


def test_torch_network_greedy_and_sampled() -> None:
    net = _net()
    batch = decision_states(zz.load_ruleset("classic")).batch
    logits = net(torch.as_tensor(encode_batch(batch))).detach().numpy().astype(np.float64)
    greedy = PolicyAgent(net, output="logits")
    assert (greedy.act_batch(batch) == logits.argmax(1)).all()
    sampled = PolicyAgent(net, output="logits", sample=True, seed=0)
    probs = action_probabilities(sampled, batch)
    soft = np.exp(logits - logits.max(1, keepdims=True))
    assert np.allclose(probs, soft / soft.sum(1, keepdims=True))
    ex = exploitability(sampled, "classic")
    assert 0.0 < ex["average"] < 5.0
    rec = zz.play_game(
        "classic", [greedy, sampled, zz.make_agent("greedy")], num_players=3, seed=0, max_rounds=5
    )
    assert rec.rounds


def test_illegal_choices_are_masked_or_refused() -> None:
    rules = zz.load_ruleset("classic", holds_allowed=False)
    batch = decision_states(rules).batch
    scores = PolicyAgent(lambda obs: np.tile(np.arange(8.0)[::-1], (len(obs), 1)), output="logits")
    assert set(scores.act_batch(batch).tolist()) == {0}  # mask 0 scores highest and is legal
    probs = PolicyAgent(lambda obs: np.tile(np.eye(8)[3], (len(obs), 1)), output="probs")
    with pytest.raises(ValueError, match="no legal action"):
        probs.act_batch(batch)  # all weight on a hold, which this ruleset forbids
    with pytest.raises(ValueError, match="illegal hold mask"):
        PolicyAgent(lambda obs: np.full(len(obs), 3)).act_batch(batch)
    with pytest.raises(ValueError, match=r"not \(\d+, 8\) logits"):
        PolicyAgent(lambda obs: np.zeros((len(obs), 3)), output="logits").act_batch(batch)
    with pytest.raises(ValueError, match="output must be one of"):
        PolicyAgent(lambda obs: obs, output="q")


def test_policy_agent_in_a_tournament_and_as_env_opponent() -> None:
    import gymnasium as gym

    from zanzibar_env.train.tournament import run_tournament

    agent = PolicyAgent(_net(), output="logits", name="net")
    result = run_tournament([agent, "greedy", "escape"], players=3, games=6, seed=0, progress=False)
    assert "net" in [row.name for row in result.summary]
    env = gym.make("Zanzibar-v1", opponents=agent, num_players=2, max_rounds=2)
    env.reset(seed=0)
    assert env.step(7)[0].shape == (33,)


def test_sb3_adapter_docstring_example(tmp_path: object) -> None:
    from sb3_contrib import MaskablePPO

    from zanzibar_env.envs.sb3 import SB3VecEnv, make_sb3_env

    venv = make_sb3_env("ZanzibarRound-v1", 8, opponents="greedy", seed=0)
    assert isinstance(venv, SB3VecEnv) and venv.num_envs == 8
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0)
    model.learn(128)
    assert model.num_timesteps >= 128
    assert venv.action_masks().dtype == bool
