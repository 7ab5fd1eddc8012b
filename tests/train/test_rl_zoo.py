"""RL Zoo works: the shipped hyper-parameter files run under rl_zoo3's own training script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from zanzibar_env.configs import CONFIG_DIR
from zanzibar_env.train.rl_zoo import zoo_args

ZOO = CONFIG_DIR / "rl_zoo"
GYM = "zanzibar_env"
TINY = ["-n", "128", "--eval-freq", "-1", "--seed", "0", "-params", "n_envs:2", "n_steps:64", "batch_size:64"]


def test_zoo_files_name_only_known_hyperparameters() -> None:
    from rl_zoo3.utils import ALGOS
    from sb3_contrib import MaskablePPO

    zoo_keys = {"n_envs", "n_timesteps", "policy", "env_kwargs"}
    for algo, cls in (("ppo", ALGOS["ppo"]), ("ppo_mask", MaskablePPO)):
        params = yaml.safe_load((ZOO / f"{algo}.yml").read_text())["ZanzibarRound-v1"]
        unknown = set(params) - zoo_keys - set(cls.__init__.__code__.co_varnames)
        assert not unknown, (algo, unknown)
    assert zoo_args(["--algo", "ppo_mask"])[-2:] == ["--conf-file", str(ZOO / "ppo_mask.yml")]
    assert "--gym-packages" in zoo_args([]) and "--conf-file" not in zoo_args(["--help"])


@pytest.mark.slow
@pytest.mark.parametrize(
    "cmd",
    [
        ["-m", "rl_zoo3.train", "--algo", "ppo", "--env", "ZanzibarRound-v1", "--gym-packages", GYM],
        ["-m", "zanzibar_env", "zoo", "--algo", "ppo_mask"],
    ],
    ids=["rl_zoo3.train-ppo", "zanzibar-zoo-ppo_mask"],
)
def test_rl_zoo_trains_a_tiny_budget(cmd: list[str], tmp_path: Path) -> None:
    algo = cmd[cmd.index("--algo") + 1]
    conf = ["--conf-file", str(ZOO / f"{algo}.yml")]
    out = subprocess.run(
        [sys.executable, *cmd, *conf, *TINY, "--log-folder", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    (model,) = (tmp_path / algo).glob("ZanzibarRound-v1_*/ZanzibarRound-v1.zip")
    assert model.stat().st_size > 1000
