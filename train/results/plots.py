"""Every figure the training code draws, in one place (matplotlib, imported when a figure is drawn).

- :func:`plot_eval_csv`: the learning curve of a run, from its ``eval.csv``. Top panel (2-player runs):
  exact exploitability per seat and mean, in chips per round on a log axis (values below 1e-4, e.g. an
  exact 0, are drawn at 1e-4), against training wall time (seconds, evaluation excluded), with the env
  steps on a second axis; in full-game runs with ``eval_game_exact`` the game exploitability
  (``game_exploit_*``, win probability) instead. Bottom panel: mean return per episode against each
  baseline bot, with 95% confidence bands, against env steps.
- :func:`plot_game_curves`: the game exploitability of several full-game runs against env steps, with
  the ``optimal`` bot's as a reference (:mod:`zanzibar_env.train.game_curve`).
- :func:`plot_tournament`: a tournament's win rate and result per round with 95% error bars
  (:mod:`zanzibar_env.train.tournament`).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from zanzibar_env.core.safe_io import atomic_write_bytes
from zanzibar_env.train.results.runs import eval_columns, read_eval_csv

if TYPE_CHECKING:
    from zanzibar_env.train.tournament.play import TournamentResult

FLOOR = 1e-4  # chips per round (or win probability): the bottom of the exploitability axes


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | Path, dpi: int) -> None:
    """Write ``fig`` as a PNG atomically and close it."""
    buf = io.BytesIO()
    fig.savefig(buf, dpi=dpi, format="png")
    _pyplot().close(fig)
    atomic_write_bytes(path, buf.getvalue())


# ---- the learning curve of a run ------------------------------------------------------------------
def plot_eval_csv(csv_path: str | Path, png_path: str | Path, title: str = "") -> Path | None:
    """Draw the learning curve of ``csv_path`` into ``png_path``; ``None`` if there is nothing to draw."""
    cols = eval_columns(read_eval_csv(csv_path)) if Path(csv_path).is_file() else {}
    if not cols:
        return None
    prefix = "game_exploit" if "game_exploit_mean" in cols else "exploit"
    exact = prefix + "_mean" in cols
    plt = _pyplot()
    fig, axes = plt.subplots(2 if exact else 1, 1, figsize=(8, 8 if exact else 4.5), squeeze=False)
    if exact:
        _exploitability_panel(axes[0][0], cols, prefix)
    _bots_panel(axes[-1][0], cols)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    _save(fig, png_path, dpi=100)
    return Path(png_path)


def _exploitability_panel(ax: Any, cols: dict[str, list[float]], prefix: str) -> None:
    """Exploitability per seat and mean against training seconds (env steps on the top axis)."""
    steps, secs = cols["timesteps"], cols["train_seconds"]
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


def _bots_panel(ax: Any, cols: dict[str, list[float]]) -> None:
    """Mean return against each baseline bot with its 95% band, against env steps."""
    steps = cols["timesteps"]
    bots = [k[: -len("_mean")] for k in cols if k.endswith("_mean") and "exploit" not in k]
    for bot in bots:
        mean = cols[bot + "_mean"]
        ax.plot(steps, mean, marker="o", ms=3, label=f"vs {bot}")
        if bot + "_low" in cols:  # the bootstrap bounds
            lo, hi = cols[bot + "_low"], cols[bot + "_high"]
        else:  # an eval.csv of an earlier version: a symmetric half-width
            half = cols.get(bot + "_ci95", [0.0] * len(steps))
            lo = [m - h for m, h in zip(mean, half, strict=True)]
            hi = [m + h for m, h in zip(mean, half, strict=True)]
        ax.fill_between(steps, lo, hi, alpha=0.2)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel("mean return per episode (chips)")
    ax.set_title("learner (deterministic policy) vs baseline bots, shaded: 95% interval")
    if bots:
        ax.legend(fontsize=8)


def _interp(xs: list[float], ys: list[float]) -> Callable[[Any], Any]:
    """A monotone piecewise-linear map xs -> ys for a secondary axis."""
    x = np.asarray(xs, float)
    y = np.asarray(ys, float)
    return lambda v: np.interp(v, x, y)


# ---- the game curves of full-game runs ------------------------------------------------------------
def plot_game_curves(
    labels: list[str], runs: list[list[dict[str, float]]], reference: float, out: Path, title: str
) -> None:
    """The game exploitability of ``runs`` (their ``eval.csv`` rows) and the ``optimal`` reference into
    the PNG ``out``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, rows in zip(labels, runs, strict=True):
        steps = [r["timesteps"] for r in rows]
        ax.plot(steps, [max(r["game_exploit_mean"], FLOOR) for r in rows], marker="o", ms=3, label=label)
    ax.axhline(reference, color="grey", ls="--", lw=1, label=f"optimal (round play): {reference:.6f}")
    ax.set_yscale("log")
    ax.set_ylim(bottom=FLOOR)
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel("game exploitability (win probability)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, out, dpi=100)


# ---- a tournament ---------------------------------------------------------------------------------
def plot_tournament(result: TournamentResult, path: Path) -> None:
    """A two-panel figure: win rate and result per round, with 95% error bars."""
    from zanzibar_env.train.tournament.stats import result_unit

    c, s = result.config, result.summary
    y = np.arange(len(s))[::-1]
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 0.5 * len(s) + 1.8), sharey=True, constrained_layout=True)
    panels = [
        (
            [a.win_rate * 100 for a in s],
            [[(a.win_rate - a.win_low) * 100 for a in s], [(a.win_high - a.win_rate) * 100 for a in s]],
            "win rate (% of games)",
            100 / c["players"],
        ),
        (
            [a.per_round for a in s],
            [[a.per_round - a.per_round_low for a in s], [a.per_round_high - a.per_round for a in s]],
            result_unit(result.rules or c["ruleset"]),
            0,
        ),
    ]
    for ax, (x, err, label, ref) in zip(axes, panels, strict=True):
        ax.errorbar(x, y, xerr=err, fmt="o", color="black", ecolor="0.3", capsize=3, ms=5)
        ax.axvline(ref, color="0.6", ls="--", lw=0.8)
        ax.set_xlabel(label)
        ax.grid(axis="x", color="0.9")
    axes[0].set_yticks(y, [a.name for a in s])
    axes[0].set_ylabel("agent")
    fig.suptitle(
        f"Zanzibar tournament: {c['ruleset']}, {c['players']} players, {c['games']} games "
        "(duplicate format)\nbars: 95% CI; dashed: chance win rate and zero net chips",
        fontsize=10,
    )
    _save(fig, path, dpi=200)
