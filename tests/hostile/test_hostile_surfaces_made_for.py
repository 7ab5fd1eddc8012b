"""Hostile inputs: a model or table used under rules or a table size it was not made for.

Every consumer (the exact API, the envs' opponents, tournaments, the JAX env's opponent tables) runs the one
check of :mod:`zanzibar_env.core.made_for`; each case pairs an input with the message it now gets, and the
documented opt-ins (``make_agent(spec, any_ruleset=True)``, ``any_table_size=True``) are shown to work."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from zanzibar_env.core.made_for import check_made_for, mismatches, ruleset_claim
from zanzibar_env.core.provenance import ruleset_digest
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import load_ruleset

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "models" / "ppo_classic_2p.zip"


def _jax_policy(tmp_path: Path, ruleset: str = "classic", features: str = "raw") -> Path:
    from zanzibar_env.agents.jax_ppo_agent import save_policy

    rules = load_ruleset(ruleset)
    width = 33 if features == "raw" else None
    meta = {"activation": "tanh", "features": features, "num_ranks": rules.table.num_ranks,
            "max_rolls": rules.max_rolls, **ruleset_claim(rules)}  # fmt: skip
    if width is None:
        from zanzibar_env.core.onehot import onehot

        width = onehot(np.zeros((1, 33), np.float32), rules.table.num_ranks, rules.max_rolls).shape[-1]
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(width, 8)).astype(np.float32), np.zeros(8, np.float32))]
    path = tmp_path / "policy.npz"
    save_policy(path, layers, meta)
    return path


def test_the_exact_api_refuses_a_baseline_on_other_rules() -> None:
    from zanzibar_env.agents.exact import exploitability

    with pytest.raises(ValueError, match=r"agent 'ppo_classic_2p' cannot play in the exact evaluation: its "
                       r"features decode 42 ranks and 3 rolls, 'simple_scoring' has 22 and 3; it was made for "
                       r"ruleset 'classic', this is 'simple_scoring'"):  # fmt: skip
        exploitability("ppo_classic_2p", "simple_scoring")


def test_the_opt_in_drops_the_ruleset_claim_but_not_the_layout() -> None:
    from zanzibar_env.agents.exact import exploitability

    agent = make_agent("ppo_classic_2p", any_ruleset=True)
    assert agent.made_for == {"num_ranks": 42, "max_rolls": 3}
    with pytest.raises(ValueError, match=r"features decode 42 ranks and 3 rolls") as info:
        exploitability(agent, "simple_scoring")
    assert "any_ruleset" not in str(info.value)  # (no opt-in for a layout the features cannot decode)


def test_a_jax_ppo_policy_names_its_ruleset_everywhere(tmp_path: Path) -> None:
    import gymnasium as gym

    import zanzibar_env  # noqa: F401  (registers the envs)

    path = _jax_policy(tmp_path, "classic")
    agent = make_agent(f"jax_ppo:{path}")
    assert agent.made_for == ruleset_claim(load_ruleset("classic"))
    with pytest.raises(ValueError, match=r"jax_ppo:.* cannot play: it was made for ruleset 'classic', "
                       r"this is 'simple_scoring'; to play it anyway, make it with make_agent"):  # fmt: skip
        gym.make("Zanzibar-v1", ruleset="simple_scoring", opponents=f"jax_ppo:{path}")
    gym.make(
        "Zanzibar-v1", ruleset="simple_scoring", opponents=make_agent(f"jax_ppo:{path}", any_ruleset=True)
    )


def test_a_valid_jax_ppo_opponent_is_found_by_gym_make(tmp_path: Path) -> None:
    import gymnasium as gym

    import zanzibar_env  # noqa: F401

    env = gym.make("Zanzibar-v1", opponents=f"jax_ppo:{_jax_policy(tmp_path)}")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"JAX PPO policy file .*missing.npz' does not exist"):
        gym.make("Zanzibar-v1", opponents=f"jax_ppo:{tmp_path / 'missing.npz'}")


def test_a_model_from_a_run_of_changed_rules_is_refused_by_content(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(SHIPPED, run / "model.zip")
    changed = dict(load_ruleset("classic").to_dict(), max_rolls=2)
    (run / "run.json").write_text(
        json.dumps({"ruleset": "classic", "ruleset_sha256": ruleset_digest(changed)})
    )
    agent = make_agent(f"ppo:{run / 'model.zip'}")
    with pytest.raises(
        ValueError, match=r"made for ruleset 'classic', this is 'classic' \(same name, other "
    ):
        check_made_for(agent, load_ruleset("classic"), 2)


def test_a_tournament_refuses_a_baseline_on_other_rules() -> None:
    from zanzibar_env.train.tournament.play import plan_tournament

    with pytest.raises(ValueError, match=r"agent 'ppo_classic_2p' cannot play: its features decode 42 ranks"):
        plan_tournament(["ppo_classic_2p", "greedy"], players=2, games=2, ruleset="simple_scoring")


def test_a_two_seat_optimal_table_is_refused_at_three_seats() -> None:
    pytest.importorskip("jax")
    from zanzibar_env.jax.env import Env

    table = make_agent("optimal").policy_table(load_ruleset("classic"), 2)
    assert table.made_for is not None and table.made_for["num_players"] == [2]
    with pytest.raises(ValueError, match=r"opponent table 'optimal' holds tables of \[2\] players, this table "
                       r"needs \[3\]: build it with policy_table\(ruleset, 3\)"):  # fmt: skip
        Env(num_players=3, opponents=table)


def test_a_table_of_other_rules_is_refused_with_its_opt_in() -> None:
    pytest.importorskip("jax")
    from zanzibar_env.jax.env import Env

    table = make_agent("greedy").policy_table(load_ruleset("simple_scoring"), 2)
    with pytest.raises(ValueError, match=r"opponent table 'greedy' cannot play as a JAX opponent: it was made "
                       r"for ruleset 'simple_scoring', this is 'classic'; to play it anyway, pass "
                       r"dataclasses.replace\(table, made_for=None\)"):  # fmt: skip
        Env(opponents=table)
    Env(ruleset="simple_scoring", opponents=table)
    Env(opponents=dataclasses.replace(table, made_for=None))


def test_a_foreign_policy_file_layout_is_named(tmp_path: Path) -> None:
    path = _jax_policy(tmp_path, "simple_scoring", features="onehot")
    agent = make_agent(f"jax_ppo:{path}")
    problems = mismatches(agent.made_for, load_ruleset("classic"), 2)
    assert problems[0] == "its features decode 22 ranks and 3 rolls, 'classic' has 42 and 3"


def test_a_model_trained_at_two_seats_is_refused_at_four_with_its_opt_in() -> None:
    """The shipped zips do not record their table size: it is read from ``NAME.json`` beside them."""
    pytest.importorskip("torch")
    import gymnasium as gym

    import zanzibar_env  # noqa: F401  (registers the envs)
    from zanzibar_env.train.tournament.play import plan_tournament

    assert make_agent("ppo_classic_2p").made_for["num_players"] == 2
    message = (r"agent 'ppo_classic_2p' cannot play: it was made for tables of 2 players, this table has 4; "
               r"to play it anyway, make it with make_agent\(spec, any_table_size=True\)")  # fmt: skip
    with pytest.raises(ValueError, match=message):
        gym.make("ZanzibarRound-v1", num_players=4, opponents="ppo_classic_2p")
    with pytest.raises(ValueError, match=r"'ppo:ppo_game_4p_teacher' cannot play: it was made for tables "
                       r"of 4 players, this table has 3"):  # fmt: skip
        plan_tournament(["ppo:ppo_game_4p_teacher", "greedy"], players=3, games=3)
    agent = make_agent("ppo_classic_2p", any_table_size=True)
    assert agent.made_for == {"num_ranks": 42, "max_rolls": 3, "ruleset": "classic"}
    env = gym.make("ZanzibarRound-v1", num_players=4, opponents=agent)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"any_table_size must be True or False, got 'yes'"):
        make_agent("greedy", any_table_size="yes")


def test_a_run_directory_model_takes_its_table_size_from_the_run_config(tmp_path: Path) -> None:
    from zanzibar_env.agents.sb3_model import model_made_for

    (tmp_path / "config.yaml").write_text("ruleset: classic\nnum_players: 3\n", encoding="utf-8")
    assert model_made_for(object(), tmp_path / "model.zip") == {"num_players": 3}
    (tmp_path / "config.yaml").write_text("num_players: [oops\n", encoding="utf-8")  # unreadable: no claim
    assert model_made_for(object(), tmp_path / "model.zip") == {}
    assert check_made_for(make_agent("greedy"), load_ruleset("classic"), 5) is None  # no claim: any size
