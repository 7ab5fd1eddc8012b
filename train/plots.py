"""The learning-curve PNG of a run, drawn from its ``eval.csv``.

Top panel (2-player runs): exact exploitability per seat and mean, in chips per round on a log axis
(values below 1e-4, e.g. an exact 0, are drawn at 1e-4), against training wall time (seconds,
evaluation excluded), with the env steps on a second axis; in full-game runs with ``eval_game_exact``
the game exploitability (``game_exploit_*``, win probability) instead. Bottom panel:
mean return per episode against each baseline bot, with 95% confidence bands, against env steps.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from zanzibar_env.core.safe_io import atomic_write_bytes


FLOOR = 1e-4  # chips per round: the bottom of the exploitability axis


def read_eval_csv(path: str | Path) -> dict[str, list[float]]:
    """Columns of an ``eval.csv`` as float lists."""
    with Path(path).open() as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return {}
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def plot_eval_csv(csv_path: str | Path, png_path: str | Path, title: str = "") -> Path | None:
    """Draw the learning curve of ``csv_path`` into ``png_path``; ``None`` if there is nothing to draw."""
    cols = read_eval_csv(csv_path) if Path(csv_path).is_file() else {}
    if not cols:
        return None
    bots = [k[: -len("_mean")] for k in cols if k.endswith("_mean") and "exploit" not in k]
    prefix = "game_exploit" if "game_exploit_mean" in cols else "exploit"
    exact = prefix + "_mean" in cols
    fig, axes = plt.subplots(2 if exact else 1, 1, figsize=(8, 8 if exact else 4.5), squeeze=False)
    steps = cols["timesteps"]
    if exact:
        ax = axes[0][0]
        secs = cols["train_seconds"]
        for key, label in (
            ("_first", "seat 0 (rolls first)"),
            ("_second", "seat 1 (rolls second)"),
            ("_mean", "mean over seats"),
        ):
            values = [max(v, FLOOR) for v in cols[prefix + key]]  # exact zeros drawn at the axis floor
            ax.plot(secs, values, marker="o", ms=3, label=label, lw=2 if key == "_mean" else 1)
        if prefix == "exploit":
            ax.axhline(0.01, color="grey", ls="--", lw=1, label="target 0.01")
        ax.set_yscale("log")
        ax.set_ylim(bottom=FLOOR)
        ax.set_xlabel("training wall time (s, evaluation excluded)")
        unit = "win probability" if prefix == "game_exploit" else "chips / round"
        ax.set_ylabel(f"exploitability ({unit})")
        ax.set_title("exact best-response gain against the learner")
        ax.legend(fontsize=8)
        if len(secs) > 1 and all(b > a for a, b in pairwise(secs)):
            top = ax.secondary_xaxis("top", functions=(_interp(secs, steps), _interp(steps, secs)))
            top.set_xlabel("env steps")
    ax = axes[-1][0]
    for bot in bots:
        mean, half = cols[bot + "_mean"], cols.get(bot + "_ci95", [0.0] * len(steps))
        ax.plot(steps, mean, marker="o", ms=3, label=f"vs {bot}")
        lo = [m - h for m, h in zip(mean, half, strict=True)]
        hi = [m + h for m, h in zip(mean, half, strict=True)]
        ax.fill_between(steps, lo, hi, alpha=0.2)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel("mean return per episode (chips)")
    ax.set_title("learner (deterministic policy) vs baseline bots, shaded: 95% interval")
    if bots:
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, dpi=100, format="png")
    plt.close(fig)
    atomic_write_bytes(png_path, buf.getvalue())
    return Path(png_path)


def _interp(xs: list[float], ys: list[float]) -> Callable[[Any], Any]:
    """A monotone piecewise-linear map xs -> ys for a secondary axis."""
    import numpy as np

    x = np.asarray(xs, float)
    y = np.asarray(ys, float)
    return lambda v: np.interp(v, x, y)
