"""Results and statistics: run directories, intervals, figures and what a run ran on (no torch needed).

- :mod:`~zanzibar_env.train.results.runs`: run directories and their ``eval.csv``, made, read and checked here;
- :mod:`~zanzibar_env.train.results.intervals`: 95% intervals and the IQM (scipy.stats);
- :mod:`~zanzibar_env.train.results.plots`: every figure the training code draws (matplotlib, on demand);
- :mod:`~zanzibar_env.train.results.repro`: torch's CPU-kernel pins and the record of a run's machine.
"""

from __future__ import annotations

from zanzibar_env.train.results.intervals import (
    iqm,
    iqm_interval,
    mean_interval,
    ratio_interval,
    win_interval,
)
from zanzibar_env.train.results.plots import plot_eval_csv, plot_game_curves, plot_tournament
from zanzibar_env.train.results.repro import cpu_model, environment, kernel_pins, pin_cpu_kernels
from zanzibar_env.train.results.runs import (
    EVAL_CSV,
    eval_rows,
    make_run_dir,
    new_run,
    read_eval_csv,
    record_environment,
    write_eval_csv,
)

__all__ = [
    "EVAL_CSV",
    "cpu_model",
    "environment",
    "eval_rows",
    "iqm",
    "iqm_interval",
    "kernel_pins",
    "make_run_dir",
    "mean_interval",
    "new_run",
    "pin_cpu_kernels",
    "plot_eval_csv",
    "plot_game_curves",
    "plot_tournament",
    "ratio_interval",
    "read_eval_csv",
    "record_environment",
    "win_interval",
    "write_eval_csv",
]
