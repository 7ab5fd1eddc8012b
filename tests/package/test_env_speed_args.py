"""The env benchmark's ``--instructions`` mode: argument handling and the report (no timings asserted)."""

from __future__ import annotations

import pytest

from benchmarks import env_speed
from benchmarks import step_instructions as SI


def test_instructions_without_valgrind_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        env_speed.main(["--instructions", "--valgrind", "no-such-valgrind-here", "--seconds", "0.01"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "needs valgrind" in err and "no-such-valgrind-here" in err


@pytest.mark.parametrize("args", [["--steps", "0"], ["--steps", "x"], ["--warmup", "-1"]])
def test_bad_counts_are_refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for main in (env_speed.main, SI.main):
        with pytest.raises(SystemExit) as e:
            main(["--instructions", *args] if main is env_speed.main else args)
        assert e.value.code == 2
        assert args[0] in capsys.readouterr().err


def test_child_steps_each_env() -> None:
    for name in SI.ENVS:
        assert SI.main(["--child", name, "--child-steps", "20"]) is None
    with pytest.raises(ValueError, match="env must be one of"):
        SI.make_env("CartPole-v1")


def test_report_prints_ratios_beside_time_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    counts = dict(zip(SI.ENVS, (100_000.0, 110_000.0, 290_000.0, 300_000.0), strict=True))
    SI.report(counts, {"ZanzibarEnv (raw)": 2.5, "Zanzibar-v1 (gym.make)": 2.25, SI.REFERENCE: 1.0})
    out = capsys.readouterr().out.splitlines()
    raw = next(line for line in out if line.startswith("ZanzibarEnv (raw)"))
    assert raw.split()[2:] == ["100,000", "3.00x", "2.90x", "2.50x"]
    assert "x Blackjack (time)" in out[0]
