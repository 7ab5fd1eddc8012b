"""Run directories and ``eval.csv`` (train/results/runs.py): written, read back and checked in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from zanzibar_env.train.results.runs import (
    eval_columns,
    eval_rows,
    make_run_dir,
    read_eval_csv,
    write_eval_csv,
)


def test_eval_csv_round_trip(tmp_path: Path) -> None:
    rows = [{"timesteps": 0.0, "train_seconds": 0.0, "greedy_mean": 0.5}]
    rows.append({"timesteps": 64.0, "train_seconds": 1.25, "greedy_mean": -0.25})
    write_eval_csv(tmp_path / "eval.csv", rows)
    assert read_eval_csv(tmp_path / "eval.csv") == rows == eval_rows(tmp_path)
    assert eval_columns(rows) == {
        "timesteps": [0.0, 64.0],
        "train_seconds": [0.0, 1.25],
        "greedy_mean": [0.5, -0.25],
    }
    assert eval_rows(tmp_path / "nothing") == [] and eval_columns([]) == {}


def test_eval_csv_is_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="differ"):
        write_eval_csv(tmp_path / "eval.csv", [{"timesteps": 0.0, "train_seconds": 0.0}, {"timesteps": 1.0}])
    for text in ("timesteps,train_seconds\nx,1\n", "a,b\n1,2\n", "timesteps,train_seconds\n1\n"):
        (tmp_path / "eval.csv").write_text(text)
        with pytest.raises(ValueError, match=r"not an eval\.csv"):
            read_eval_csv(tmp_path / "eval.csv")


def test_run_dirs_are_named_and_never_reused(tmp_path: Path) -> None:
    a = make_run_dir(tmp_path / "runs", "Zanzibar-v1__x__0")
    b = make_run_dir(tmp_path / "runs", "Zanzibar-v1__x__0")
    assert a != b and a.is_dir() and b.is_dir() and a.name.startswith("Zanzibar-v1__x__0__")
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="runs_dir"):
        make_run_dir(tmp_path / "file", "p")
