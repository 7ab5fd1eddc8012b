"""``zanzibar bench``: the README's speed figures from an install, each beside the reference of the run."""

from __future__ import annotations

import sys

import pytest

from zanzibar_env.train.bench import main


def test_bench_prints_every_figure_and_its_ratio(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)  # no [jax]: the line says how to add it (and no compile)
    assert main(["--seconds", "0.05", "--envs", "8"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("CPU: ")
    assert 'JAX env: skipped, jax is not installed (pip install "zanzibar-env[jax]")' in out
    rows = {line[:40].strip(): line[40:].split() for line in out.splitlines()[3:]}
    assert float(rows["Blackjack-v1, gym.make (reference)"][1]) == 1.0
    for name in ("Zanzibar-v1, gym.make", "vector env, 8 tables"):
        value, ratio, unit = rows[name]
        assert float(value.replace(",", "")) > 0 and float(ratio) > 0 and unit == "steps/s"
    assert rows["4-player games of heuristic bots"][-1] == "games/s"


@pytest.mark.parametrize("argv", [["--seconds", "0"], ["--envs", "0"], ["--envs", "x"]])
def test_bad_options_exit_2_before_any_timing(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and "CPU:" not in capsys.readouterr().out
