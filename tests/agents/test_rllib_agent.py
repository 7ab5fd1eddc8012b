"""The ``rllib:PATH`` agent on a hand-made export (numpy only; the RLlib run itself is in test_rllib.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from zanzibar_env.agents import make_agent
from zanzibar_env.agents.rllib_agent import RLlibAgent
from zanzibar_env.core.onehot import onehot_size, ruleset_dims
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.train.tournament import run_tournament


def export(path: Path, obs_type: str = "onehot", hidden: int = 16, layers: int | None = None) -> Path:
    """A random 2-layer policy in the format of ``zanzibar_env.train.rllib.ppo.export_policy``."""
    size = onehot_size(*ruleset_dims(load_ruleset("classic"))) if obs_type == "onehot" else 33
    rng = np.random.default_rng(0)
    arrays = {"W0": rng.normal(size=(hidden, size)), "b0": rng.normal(size=hidden)}
    arrays |= {"W1": rng.normal(size=(8, hidden)), "b1": rng.normal(size=8)}
    path.mkdir(parents=True, exist_ok=True)
    np.savez(path / "policy.npz", **{k: v.astype(np.float32) for k, v in arrays.items()})
    meta = {"layers": 2 if layers is None else layers, "activation": "tanh", "obs_type": obs_type}
    (path / "policy.json").write_text(json.dumps(meta))
    return path


@pytest.mark.parametrize("obs_type", ["flat", "onehot"])
def test_exported_policy_plays_and_is_greedy(tmp_path: Path, obs_type: str) -> None:
    run = export(tmp_path / "run", obs_type)
    agent = make_agent(f"rllib:{run}")
    assert isinstance(agent, RLlibAgent)
    res = run_tournament([f"rllib:{run}", "greedy"], players=2, games=4, progress=False)
    assert len(res.games) == 4
    w0, b0 = agent.layers[0]
    x = np.zeros((1, w0.shape[1]), np.float32)
    assert np.allclose(agent.logits(x), np.tanh(b0) @ agent.layers[1][0].T + agent.layers[1][1], atol=1e-5)


def test_policy_npz_path_works_too(tmp_path: Path) -> None:
    run = export(tmp_path / "run")
    assert make_agent(f"rllib:{run / 'policy.npz'}").meta["obs_type"] == "onehot"


def test_bad_exports_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"expected policy\.npz and policy\.json"):
        make_agent(f"rllib:{tmp_path}")
    with pytest.raises(ValueError, match=r"policy\.npz must hold exactly .*missing \['W2', 'b2'\]"):
        make_agent(f"rllib:{export(tmp_path / 'short', layers=3)}")
    bad = export(tmp_path / "bad")
    (bad / "policy.json").write_text(json.dumps({"layers": 2, "activation": "gelu", "obs_type": "flat"}))
    with pytest.raises(ValueError, match="unknown activation"):
        make_agent(f"rllib:{bad}")
