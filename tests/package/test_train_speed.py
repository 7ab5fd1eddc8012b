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


def test_train_speed_profile_prints_every_part(capsys: pytest.CaptureFixture[str]) -> None:
    tiny = ["num_envs=16", "second_seat_frac=0.5", "n_steps=8", "batch_size=64", "n_epochs=1", "net_arch=[8]"]
    assert train_speed.main(["--profile", "--steps", "256", *(a for kv in tiny for a in ("--set", kv))]) == 0
    out = capsys.readouterr().out
    shares = {}
    for label, _ in train_speed.PROFILE_PARTS:
        line = next(x for x in out.splitlines() if x.startswith(label))
        shares[label] = float(line.split()[-1].rstrip("%"))
    assert shares["learn (everything)"] == 100.0
    assert 0 < shares["update (MaskablePPO.train)"] < 100
    assert 0 < shares["  env step (SB3VecEnv.step_wait)"] < shares["collecting rollouts"] < 100
    assert shares["exploiter updates (best responses)"] > 0  # the default config plays exploiters


def test_train_speed_profile_without_exploiters(capsys: pytest.CaptureFixture[str]) -> None:
    tiny = ["num_envs=16", "second_seat_frac=0.5", "n_steps=8", "batch_size=64", "n_epochs=1", "net_arch=[8]"]
    args = [
        "--profile",
        "--steps",
        "128",
        "--set",
        "exploiter_frac=0",
        *(a for kv in tiny for a in ("--set", kv)),
    ]
    assert train_speed.main(args) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("exploiter updates"))
    assert line.split()[-2:] == ["0.00", "0.0%"]
