"""The training-speed benchmark runs end to end on a tiny budget (its figures are not asserted)."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")

from benchmarks import train_speed


def test_train_speed_prints_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    tiny = ["num_envs=16", "second_seat_frac=0.5", "n_steps=8", "batch_size=64", "n_epochs=1", "net_arch=[8]"]
    assert train_speed.main(["--steps", "128", *(a for kv in tiny for a in ("--set", kv))]) == 0
    out = capsys.readouterr().out
    for row in ("MaskablePPO, SB3VecEnv", "plain PPO, SB3VecEnv", "env replayed", "CartPole-v1"):
        assert row in out
