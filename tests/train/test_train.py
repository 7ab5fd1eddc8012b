"""Training scripts end to end with tiny budgets (CleanRL-style), the config loader, and the shipped model."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.cli_args import set_args
from zanzibar_env.train import evaluate as ev
from zanzibar_env.train import ppo
from zanzibar_env.train.config.training import load_config, read_yaml

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "models" / "ppo_classic_2p.zip"
TINY = [
    "num_envs=16",
    "second_seat_frac=0.5",  # (the default's 0.4 of 16 envs, 6, would leave fewer than the 8 opponent groups)
    "n_steps=64",
    "batch_size=256",
    "n_epochs=2",
    "net_arch=[16]",
    "eval_games=20",
    "eval_bots=[random,greedy]",
    "progress_bar=false",
    "tensorboard=false",
]


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


# ---- config ---------------------------------------------------------------------------------------
def test_shipped_configs_load() -> None:
    for path in sorted((ROOT / "configs").glob("ppo_*.yaml")):
        if path.name == "ppo_defaults.yaml":
            continue
        cfg = load_config(path)
        assert cfg.exp_name == path.stem, path
    default = load_config()
    assert (default.env_id, default.num_players, default.opponents, default.seat) == (
        "ZanzibarRound-v1",
        2,
        ["optimal"],
        "random",
    )


def test_overrides_parse_yaml_scalars() -> None:
    cfg = load_config(
        overrides=[
            "learning_rate=3e-4",
            "net_arch=[32, 32]",
            "total_timesteps=1e4",
            "opponents=greedy",
            "expected_reward=false",  # (the default's expected reward assumes optimal opponents)
            "seat=1",
            "self_play=true",
        ]
    )
    assert cfg.learning_rate == pytest.approx(3e-4) and isinstance(cfg.learning_rate, float)
    assert cfg.net_arch == [32, 32] and cfg.total_timesteps == 10_000 and cfg.opponents == ["greedy"]
    assert cfg.seat == 1 and cfg.self_play is True


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ("no_such_key=1", ["no_such_key", "allowed keys", "learning_rate"]),
        ("learning_rate=fast", ["learning_rate", "fast"]),
        ("gamma=1.5", ["gamma", "[0, 1]"]),
        ("env_id=CartPole-v1", ["env_id", "ZanzibarRound-v1"]),
        ("num_envs=0", ["num_envs", "integer in 1.."]),
        ("opponents=[nobody]", ["opponents", "nobody", "greedy"]),
        ("opponents=ppo:missing.zip", ["opponents", "loadable model file"]),
        ("seat=5", ["seat", "0-1"]),
        ("self_play=maybe", ["self_play", "true or false"]),
        ("ruleset=nope", ["ruleset", "nope"]),
        ("novalue", ["key=value"]),
    ],
)
def test_bad_config_is_a_clear_error(override: str, words: list[str]) -> None:
    with pytest.raises(ValueError) as info:
        load_config(overrides=[override])
    for word in words:
        assert word in str(info.value)


def test_bad_key_in_yaml_and_cli_exit_code(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"defaults: {ROOT / 'configs' / 'ppo_defaults.yaml'}\nlearning_rat: !!float 1e-3\n")
    with pytest.raises(ValueError, match="learning_rat"):
        load_config(bad)
    defaults = read_yaml(ROOT / "configs" / "ppo_defaults.yaml")
    assert read_yaml(bad)["n_steps"] == defaults["n_steps"] and "learning_rat" in read_yaml(bad)
    assert ppo.main(["--config", str(bad)]) == 2
    assert ppo.main(["--resume", str(tmp_path / "nothing")]) == 2


# ---- training -------------------------------------------------------------------------------------
def test_train_seconds_leave_out_the_evaluation_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zanzibar_env.train.sb3.callbacks as cb

    real = cb.evaluate_model

    def slow(*args: Any, **kwargs: Any) -> dict[str, float]:
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(cb, "evaluate_model", slow)
    sets = [*TINY, "total_timesteps=512", "eval_freq=0", "eval_exact=false", f"runs_dir={tmp_path}"]
    assert ppo.main(set_args([*sets, "eval_bots=[greedy]"])) == 0
    (run_dir,) = tmp_path.iterdir()
    rows = _rows(run_dir / "eval.csv")
    assert float(rows[0]["train_seconds"]) < 0.9  # nothing trained yet; its own 1 s evaluation is not counted


def test_train_end_to_end_then_resume_then_evaluate(tmp_path: Path) -> None:
    sets = set_args([*TINY, "total_timesteps=2048", "eval_freq=1024", f"runs_dir={tmp_path / 'runs'}"])
    out = _run(["-m", "train.ppo", *sets], ROOT)
    assert out.returncode == 0, out.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert run_dir.name.startswith("ZanzibarRound-v1__ppo_classic_2p__0__")
    for name in ("config.yaml", "model.zip", "best_model.zip", "eval.csv", "learning_curve.png"):
        assert (run_dir / name).is_file(), name
    assert "exact regret against the best response" in out.stdout and "seat 1 (rolls second)" in out.stdout
    rows = _rows(run_dir / "eval.csv")
    assert [int(float(r["timesteps"])) for r in rows] == [0, 1024, 2048]
    assert {
        "random_mean",
        "greedy_low",
        "greedy_high",
        "exploit_first",
        "exploit_second",
        "exploit_mean",
    } <= set(rows[0])

    assert ppo.main(["--resume", str(run_dir), "--set", "total_timesteps=4096"]) == 0
    rows = _rows(run_dir / "eval.csv")
    assert [int(float(r["timesteps"])) for r in rows] == [0, 1024, 2048, 3072, 4096]
    assert float(rows[-1]["train_seconds"]) > float(rows[2]["train_seconds"])
    assert ev.load_model(run_dir / "model.zip").num_timesteps == 4096

    out_json = tmp_path / "e.json"
    assert ev.main([str(run_dir), "--games", "20", "--tournament-games", "8", "--json", str(out_json)]) == 0
    result = json.loads(out_json.read_text())
    assert {"greedy_mean", "exploit_mean", "value_first_vs_optimal", "tournament"} <= set(result)
    assert result["exploit_mean"] >= 0
    # the last row scores the saved model: taken after the final rollout's update, not during the rollout
    assert result["exploit_mean"] == pytest.approx(float(rows[-1]["exploit_mean"]), abs=1e-12)
    assert {r["name"] for r in result["tournament"]} == {"ppo", "random", "greedy"}


def test_same_seed_same_evaluation_curve(tmp_path: Path) -> None:
    curves = []
    for k in range(2):
        sets = set_args(
            [
                *TINY,
                "total_timesteps=1024",
                "eval_freq=512",
                "eval_exact=false",
                "opponents=greedy",
                "expected_reward=false",
                "seed=3",
                f"runs_dir={tmp_path / str(k)}",
            ]
        )
        assert ppo.main(sets) == 0
        (run_dir,) = (tmp_path / str(k)).iterdir()
        rows = _rows(run_dir / "eval.csv")
        curves.append([{c: v for c, v in r.items() if c != "train_seconds"} for r in rows])
    assert len(curves[0]) == 3 and curves[0] == curves[1]


def test_self_play_pool_fills(tmp_path: Path) -> None:
    sets = set_args(
        [
            *TINY,
            "total_timesteps=2048",
            "eval_freq=0",
            "eval_exact=false",
            "self_play=true",
            "self_play_freq=512",
            "self_play_pool=2",
            "opponents=[greedy]",
            "expected_reward=false",
            f"runs_dir={tmp_path}",
        ]
    )
    assert ppo.main(sets) == 0
    (run_dir,) = tmp_path.iterdir()
    assert len(list((run_dir / "pool").glob("step_*.zip"))) >= 3


# ---- the shipped model ----------------------------------------------------------------------------
def test_shipped_model_evaluates(tmp_path: Path) -> None:
    assert SHIPPED.is_file() and SHIPPED.stat().st_size < 1_000_000
    meta = json.loads(SHIPPED.with_suffix(".json").read_text())
    assert {"command", "seed", "git_commit", "exploitability"} <= set(meta)
    out = tmp_path / "e.json"
    assert ev.main([str(SHIPPED), "--games", "50", "--tournament-games", "12", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["exploit_mean"] == pytest.approx(meta["exploitability"]["mean"], abs=1e-9)
    assert result["random_mean"] > 0  # it beats the random bot


def test_evaluate_missing_model_exit_2(tmp_path: Path) -> None:
    out = _run(["-m", "train.evaluate", str(tmp_path / "none.zip")], ROOT)
    assert out.returncode == 2 and "no model file" in out.stderr


def test_model_agent_matches_registry_ppo_agent() -> None:
    from zanzibar_env import RandomDice, RoundState, load_ruleset
    from zanzibar_env.core.observation import ViewBatch
    from zanzibar_env.core.registry import make_agent

    rules = load_ruleset("classic")
    views = []
    for seed in range(30):
        state = RoundState(rules, [20, 20], seed % 2, RandomDice(seed))
        while not state.done:
            views.append(state.view())
            state.apply(int(np.random.default_rng(seed).integers(8)))
    batch = ViewBatch.from_views(views)
    mine = ev.ModelAgent(ev.load_model(SHIPPED)).act_batch(batch)
    assert np.array_equal(mine, make_agent(f"ppo:{SHIPPED}").act_batch(batch))
    assert mine.shape == (len(views),) and set(mine.tolist()) <= set(range(8))
