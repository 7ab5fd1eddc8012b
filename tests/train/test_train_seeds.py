"""``train.seeds`` (a config over several seeds) and bit-identical reruns across processes (train.results.repro)."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from tests.cli_args import set_args
from zanzibar_env.train import seeds
from zanzibar_env.train.config.checks import seat_split
from zanzibar_env.train.config.training import load_config
from zanzibar_env.train.ppo import make_env
from zanzibar_env.train.results.repro import kernel_pins
from zanzibar_env.train.sb3.opponents import build_opponents

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "num_envs=16",
    "n_steps=64",
    "batch_size=256",
    "n_epochs=2",
    "net_arch=[16]",
    "eval_bots=[]",
    "tensorboard=false",
    "total_timesteps=1024",
    "eval_freq=0",
    "exploiter_freq=512",
    "skip_no_decision=true",
    "second_seat_frac=0.5",
]


def _weights(path: Path) -> dict[str, torch.Tensor]:
    with zipfile.ZipFile(path) as z:
        return torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)


def _curve(run_dir: Path) -> list[dict[str, str]]:
    with (run_dir / "eval.csv").open() as fh:
        return [{k: v for k, v in r.items() if k != "train_seconds"} for r in csv.DictReader(fh)]


@pytest.mark.slow  # three training processes: ~45 s on the busy 2-core machine
def test_two_seeds_table_then_a_rerun_is_bit_identical(tmp_path: Path) -> None:
    """Two seeds in parallel child processes give the summary table; seed 5 trained again in another
    process (another hash seed) gives the very same weights and evaluation rows."""
    runs, out = tmp_path / "runs", tmp_path / "seeds.json"
    args = ["--seeds", "5", "6", "--jobs", "2", "--runs-dir", str(runs), "--json", str(out), *set_args(TINY)]
    assert seeds.main(args) == 0
    doc = json.loads(out.read_text())
    assert [r["seed"] for r in doc["runs"]] == [5, 6]
    for key in ("exploit_first", "exploit_second", "exploit_mean", "train_seconds", "wall_seconds"):
        s = doc["summary"][key]
        assert s["min"] <= s["mean"] <= s["max"] and s["min"] <= s["iqm_low"] <= s["iqm"] <= s["iqm_high"]
    first = Path(doc["runs"][0]["run_dir"])
    env = {**os.environ, "PYTHONHASHSEED": "123", "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "train.ppo", *set_args([*TINY, "seed=5", f"runs_dir={tmp_path / 'again'}"])]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, timeout=120)
    (again,) = (tmp_path / "again").iterdir()
    assert _curve(again) == _curve(first) and len(_curve(first)) == 2
    w1, w2 = _weights(first / "model.zip"), _weights(again / "model.zip")
    assert w1.keys() == w2.keys() and all(torch.equal(w1[k], w2[k]) for k in w1)
    other = _weights(Path(doc["runs"][1]["run_dir"]) / "model.zip")
    assert not all(torch.equal(w1[k], other[k]) for k in w1)  # another seed really differs
    recorded = json.loads((first / "environment.json").read_text())
    assert recorded["torch_threads"] == 1 and recorded["kernels_pinned_before_torch"]
    if kernel_pins().get("ATEN_CPU_CAPABILITY") == "avx2":
        assert recorded["torch_cpu_capability"] == "AVX2"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--seeds", "1", "x"], "'x' is not an integer"),
        (["--seeds", "1", "1"], "given twice"),
        (["--seeds", "-3"], "outside"),
        (["--seeds", "0", "--jobs", "0"], "--jobs"),
        (["--seeds", "0", "--set", "seed=4"], "use --seeds"),
        (["--seeds", "0", "--set", "runs_dir=x"], "use --runs-dir"),
        (["--seeds", "0", "--set", "n_epochs=0"], "n_epochs"),
        (["--seeds", "0", "--set", "second_seat_frac=0.99"], "second_seat_frac"),
    ],
)
def test_bad_arguments_exit_2(args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert seeds.main(args) == 2
    assert words in capsys.readouterr().err


def test_second_seat_split_puts_the_learner_second() -> None:
    cfg = load_config(None, ["num_envs=32", "second_seat_frac=0.5", "skip_no_decision=true"])
    assert seat_split(cfg) == (16, 16)
    opp = build_opponents(cfg, None)
    env = make_env(cfg, opp.opponents, opp.groups)
    obs = env.reset()
    is_first = obs[:, 7]
    assert env.num_envs == 32 and not is_first[16:].any()  # the second part always rolls second
    env.close()


def test_exact_eval_where_second_seat_loses(capsys: pytest.CaptureFixture[str]) -> None:
    from zanzibar_env.train.exact_eval import main, second_seat_losses

    rows = second_seat_losses("greedy", "classic")
    assert all(r["loss"] >= -1e-12 and r["reach"] > 0 for r in rows)
    assert sum(r["reach"] for r in rows) == pytest.approx(1.0)
    assert all(r["share"] == 0 for r in second_seat_losses("optimal", "classic"))
    assert main(["--agent", "greedy", "--where"]) == 0
    assert "where it loses rolling second" in capsys.readouterr().out
    by_greedy = second_seat_losses("greedy", "classic", first="greedy")
    assert sum(r["reach"] for r in by_greedy) == pytest.approx(1.0)
    assert {(r["first_hand"], r["limit"]) for r in by_greedy} != {(r["first_hand"], r["limit"]) for r in rows}
    assert main(["--agent", "greedy", "--where", "--first", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err


def test_second_seat_opponents_play_the_second_seat_envs() -> None:
    base = ["num_envs=32", "second_seat_frac=0.5", "skip_no_decision=true"]
    cfg = load_config(None, [*base, "exploiter_frac=0", "second_seat_opponents=[greedy]"])
    assert build_opponents(cfg, None).second == ("greedy", None)
    cfg = load_config(None, [*base, "second_seat_opponents=[optimal,greedy]"])
    opp = build_opponents(cfg, None)
    assert opp.second is not None and opp.second[0] is None
    assert opp.second[1] == ["optimal", "greedy", "optimal", "greedy", *[opp.exploiter] * 4]
    env = make_env(cfg, opp.opponents, opp.groups, opp.second)
    obs = env.reset()
    assert env.num_envs == 32 and not obs[16:, 7].any()
    env.close()
    assert build_opponents(load_config(None, base), None).second is None  # default: as 'opponents'


@pytest.mark.parametrize(
    ("sets", "words"),
    [
        (["second_seat_frac=0.5", "second_seat_opponents=[nobody]"], "second_seat_opponents"),
        (["second_seat_frac=0", "second_seat_opponents=[greedy]"], "unless second_seat_frac > 0"),
    ],
)
def test_bad_second_seat_opponents(sets: list[str], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        load_config(None, ["num_envs=32", *sets])


def test_exact_eval_mistakes_lists_decisions_worse_than_optimal(capsys: pytest.CaptureFixture[str]) -> None:
    from zanzibar_env.train.exact_eval import main, mistakes

    rows = mistakes("greedy", "classic", seats=(0,))
    assert rows and all(r["seat"] == 0 and r["gap"] > 0 and r["reach"] == 1.0 for r in rows)
    assert all(r["best_value"] - r["value"] == pytest.approx(r["gap"]) for r in rows)
    assert [r["gap"] for r in rows] == sorted((r["gap"] for r in rows), reverse=True)
    assert main(["--agent", "optimal", "--mistakes", "3"]) == 0
    out = capsys.readouterr().out
    assert "seat 0: 0 decisions differ" in out and "seat 1: 0 decisions differ" in out
    assert all(r["p_best"] is None for r in rows)  # a bot without a policy distribution


def test_exact_eval_mistakes_of_a_model_show_its_probability_of_the_best_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.agents.test_agents import _save_tiny_model
    from zanzibar_env.train.exact_eval import main, mistakes

    spec = f"ppo:{_save_tiny_model(tmp_path / 'm.zip', True)}"
    rows = mistakes(spec, "classic", seats=(0,))
    assert rows and all(0.0 <= r["p_best"] < 1.0 for r in rows)  # an untrained model: never certain
    assert main(["--agent", spec, "--mistakes", "2"]) == 0
    out = capsys.readouterr().out
    assert "p(best)" in out and "with p(best) < 1%" in out
