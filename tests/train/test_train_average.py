"""``average_from``: the run ends with the mean of the policy's weights over its last part."""

from __future__ import annotations

import csv
import signal
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from tests.cli_args import set_args
from zanzibar_env.train import ppo
from zanzibar_env.train.config.training import load_config
from zanzibar_env.train.evaluate import load_model
from zanzibar_env.train.sb3.callbacks import WeightAverageCallback
from zanzibar_env.train.sb3.faults import SignalGuard

from .test_train import TINY


class _Fake:
    """What the callback reads of a model: its policy's parameters and its step count."""

    def __init__(self) -> None:
        self.policy = torch.nn.Linear(3, 2)
        self.num_timesteps = 0
        self.logger = None

    def get_env(self) -> None:
        return None

    def set(self, value: float, steps: int) -> None:
        with torch.no_grad():
            for p in self.policy.parameters():
                p.fill_(value)
        self.num_timesteps = steps


def _drive(cb: WeightAverageCallback, model: _Fake, values: list[float]) -> None:
    """Four rollouts of 1000 steps; ``values[i]`` are the weights after update ``i``."""
    cb.init_callback(model)  # type: ignore[arg-type]
    cb.on_training_start({}, {})
    for v in values:
        cb.on_rollout_start()
        model.set(model.num_timesteps, model.num_timesteps + 1000)  # (weights while collecting)
        cb.on_step()
        cb.on_rollout_end()
        model.set(v, model.num_timesteps)  # the update
    cb.on_training_end()


def test_the_model_ends_with_the_mean_of_the_weights_after_each_late_update() -> None:
    cfg = SimpleNamespace(average_from=0.5, total_timesteps=4000)
    model = _Fake()
    _drive(WeightAverageCallback(cfg), model, [1.0, 2.0, 4.0, 9.0])  # type: ignore[arg-type]
    # rollouts start at 0, 1000, 2000, 3000 steps: the updates after 2000 steps and the last one count
    for p in model.policy.parameters():
        assert torch.equal(p, torch.full_like(p, (2.0 + 4.0 + 9.0) / 3))


def test_an_interrupted_run_keeps_its_live_weights() -> None:
    cfg = SimpleNamespace(average_from=0.5, total_timesteps=4000)
    guard = SignalGuard()
    guard.signum = signal.SIGINT  # as its handler records a first Ctrl-C
    model = _Fake()
    _drive(WeightAverageCallback(cfg, guard), model, [1.0, 2.0, 4.0, 9.0])  # type: ignore[arg-type]
    for p in model.policy.parameters():
        assert torch.equal(p, torch.full_like(p, 9.0))


def _rows(run_dir: Path) -> list[dict[str, str]]:
    with (run_dir / "eval.csv").open() as fh:
        return list(csv.DictReader(fh))


def test_averaging_changes_only_the_end_of_a_run(tmp_path: Path) -> None:
    runs = {}
    for avg in (0.0, 0.5):
        sets = [*TINY, "total_timesteps=4096", "eval_freq=1024", "opponents=greedy", "exploiter_frac=0"]
        sets += ["expected_reward=false"]  # (it assumes optimal opponents)
        assert ppo.main(set_args([*sets, f"average_from={avg}", f"runs_dir={tmp_path / str(avg)}"])) == 0
        (runs[avg],) = (tmp_path / str(avg)).iterdir()
    plain, averaged = (_rows(runs[a]) for a in (0.0, 0.5))
    assert [r["timesteps"] for r in plain] == [r["timesteps"] for r in averaged]
    drop = ("train_seconds",)
    same = [{k: v for k, v in r.items() if k not in drop} for r in plain[:-1]]
    # training is untouched: every row but the last is the same
    assert same == [{k: v for k, v in r.items() if k not in drop} for r in averaged[:-1]]
    assert plain[-1]["exploit_mean"] != averaged[-1]["exploit_mean"]  # the end scores the average
    w = [dict(load_model(runs[a] / "model.zip").policy.named_parameters()) for a in (0.0, 0.5)]
    assert any(not torch.equal(w[0][k], w[1][k]) for k in w[0])


@pytest.mark.parametrize("value", ["1", "-0.1", "nan"])
def test_bad_average_from_is_a_clear_error(value: str) -> None:
    with pytest.raises(ValueError, match="average_from"):
        load_config(None, [f"average_from={value}"])
