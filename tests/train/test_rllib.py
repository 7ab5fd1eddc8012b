"""RLlib self-play on the PettingZoo env: a tiny run in the RLlib venv, then its policy plays here.

The run uses ``.venv-rllib`` (``make setup-rllib``; ``make test-slow`` builds it), whose gymnasium is
RLlib's 1.2.2, in a subprocess; the exported policy is then played in this venv by ``rllib:RUN_DIR``.
The ruleset forbids holds, so a single unmasked illegal action would make the env raise and the run
fail: finishing proves the mask is honoured in sampling. Slow (~1 minute: Ray and RLlib start-up).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from zanzibar_env.agents import make_agent
from zanzibar_env.configs import CONFIG_DIR
from zanzibar_env.train.tournament import run_tournament

ROOT = Path(__file__).resolve().parents[2]
PYTHON = Path(os.environ.get("ZANZIBAR_RLLIB_PYTHON", ROOT / ".venv-rllib" / "bin" / "python"))
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not PYTHON.exists():
        pytest.skip(f"no RLlib venv at {PYTHON} (make setup-rllib)")
    tmp = tmp_path_factory.mktemp("rllib")
    rules = yaml.safe_load((CONFIG_DIR / "rules" / "classic.yaml").read_text())
    rules.update(name="no_holds", holds_allowed=False)
    (tmp / "no_holds.yaml").write_text(yaml.safe_dump(rules))
    sets = {
        "ruleset": str(tmp / "no_holds.yaml"),
        "iterations": 1,
        "train_batch_size": 256,
        "minibatch_size": 64,
        "num_epochs": 1,
        "num_env_runners": 0,
        "num_envs_per_env_runner": 2,
        "runs_dir": str(tmp / "runs"),
    }
    cmd = [str(PYTHON), "-m", "train.rllib", "--cpus", "2"]
    for key, value in sets.items():
        cmd += ["--set", f"{key}={value}"]
    ray_tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay short
    try:
        done = subprocess.run(
            cmd,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "RAY_TMPDIR": ray_tmp},
        )
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = (tmp / "runs").iterdir()
    return run


def test_run_directory_holds_checkpoint_export_and_exact_figures(run_dir: Path) -> None:
    for name in ("config.yaml", "train.csv", "policy.npz", "policy.json", "exact.json"):
        assert (run_dir / name).is_file(), name
    assert (run_dir / "checkpoint").is_dir()
    exact = json.loads((run_dir / "exact.json").read_text())
    assert exact["agent"] == f"rllib:{run_dir}" and np.isfinite(exact["average"])


def test_saved_policy_plays_a_tournament_under_the_mask(run_dir: Path) -> None:
    rules = str(run_dir.parent.parent / "no_holds.yaml")  # the engine raises on an illegal hold
    res = run_tournament([f"rllib:{run_dir}", "greedy"], players=2, games=6, ruleset=rules, progress=False)
    assert len(res.games) == 6 and {a.name for a in res.summary} == {f"rllib:{run_dir}", "greedy"}
    assert make_agent(f"rllib:{run_dir}").meta["obs_type"] == "onehot"
