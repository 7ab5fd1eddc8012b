"""The gradient-clip study: ``python -m experiments.grad_scale``."""

from __future__ import annotations

import pytest

from experiments import grad_scale
from zanzibar_env.train.config import load_config


def test_grad_scale_reports_the_clip(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["num_envs=16", "n_steps=64", "batch_size=256", "net_arch=[16]", "exploiter_frac=0"]
    big = grad_scale.gradient_norms(load_config(None, [*base, "vf_coef=0.5"]), batches=2)
    small = grad_scale.gradient_norms(load_config(None, [*base, "vf_coef=0.05"]), batches=2)
    assert big["policy_norm"] == pytest.approx(small["policy_norm"])  # same seed, same rollout
    assert small["value_norm"] == pytest.approx(big["value_norm"] / 10)
    assert small["clip_factor"] >= big["clip_factor"] and 0 < big["clip_factor"] <= 1
    assert grad_scale.main(["--model", "/nonexistent/m.zip"]) == 2
    assert "no such file" in capsys.readouterr().err
