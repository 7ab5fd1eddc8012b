"""Sweeps on Ray Tune: two tiny trials, each a zanzibar_env.train.ppo run directory, the best config ready to train.

Slow (a local Ray, two short PPO runs with exact evaluation: about 1-2 minutes on 2 cores).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from tests.ray_helpers import local_ray
from zanzibar_env.train.config.training import load_config
from zanzibar_env.train.sweep import load_sweep, main

ray = pytest.importorskip("ray")

TINY = {
    "name": "tiny",
    "base": "ppo_classic_2p.yaml",
    "set": {
        "total_timesteps": 2048,
        "num_envs": 8,
        "n_steps": 128,
        "batch_size": 256,
        "eval_freq": 1024,
        "eval_games": 10,
        "eval_bots": ["random"],
        "exploiter_frac": 0.0,
        "progress_bar": False,
        "tensorboard": False,
    },
    "search": {"learning_rate": ["loguniform", 1e-4, 1e-3]},
    "num_samples": 2,
    "grace_period": 1,
    "reduction_factor": 2,
}


def _write(tmp_path: Path, **changes: object) -> Path:
    doc = {**TINY, "out_dir": str(tmp_path / "sweeps"), "best_config": str(tmp_path / "best.yaml"), **changes}
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_two_trial_sweep_writes_runs_trials_and_a_ready_best_config(tmp_path: Path) -> None:
    with local_ray():
        config = _write(tmp_path)
        assert main(["--config", str(config)]) == 0
        assert main(["--config", str(config)]) == 2  # the sweep exists: only --resume continues it
        assert main(["--config", str(config), "--resume"]) == 0  # finished trials stay finished
    sweep_dir = tmp_path / "sweeps" / "tiny"
    trials = list(csv.DictReader((sweep_dir / "trials.csv").open()))
    assert len(trials) == 2
    for row in trials:
        run = Path(row["run_dir"])
        assert run.parent == sweep_dir / "runs"
        assert {"config.yaml", "eval.csv", "model.zip"} <= {p.name for p in run.iterdir()}
        assert int(row["evaluations"]) == 3  # steps 0, 1024, 2048: not stopped (max_t)
        assert float(row["best_exploit_mean"]) >= 0
    best = load_config(tmp_path / "best.yaml")  # a ready train.ppo config
    assert best.exp_name == "tiny_best" and best.runs_dir == "runs"
    assert best.learning_rate in {float(r["learning_rate"]) for r in trials}
    assert "exploit_mean" in (tmp_path / "best.yaml").read_text().splitlines()[1]


def test_bad_sweep_configs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown sweep keys"):
        load_sweep(_write(tmp_path, trials=3))
    with pytest.raises(ValueError, match=r"not train\.ppo config keys"):
        load_sweep(_write(tmp_path, search={"lr": ["uniform", 0, 1]}))
    with pytest.raises(ValueError, match="expected \\[distribution"):
        load_sweep(_write(tmp_path, search={"learning_rate": ["normal", 0, 1]}))
    with pytest.raises(ValueError, match="two numbers lo < hi"):
        load_sweep(_write(tmp_path, search={"learning_rate": ["uniform", 1, 0]}))
    assert main(["--config", str(_write(tmp_path)), "--resume"]) == 2  # nothing to resume
