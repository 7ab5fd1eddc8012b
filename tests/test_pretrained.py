"""The shipped baselines: found by name, loaded by the safe loader, their provenance beside them."""

from __future__ import annotations

import pytest

import zanzibar_env as zz
from zanzibar_env.agents import pretrained
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
