"""Tournament output: the results table (rich), ``games.csv``, ``results.json``, ``run.json`` and
``tournament.png`` (drawn by :func:`zanzibar_env.train.plots.plot_tournament`).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from zanzibar_env.core.safe_io import atomic_write_text
from zanzibar_env.train.plots import plot_tournament
from zanzibar_env.train.tournament.stats import result_unit

if TYPE_CHECKING:
    from zanzibar_env.train.tournament.play import TournamentResult


def _how(run: dict) -> str:
    """``with 2 job(s)`` / ``on Ray (local, all CPUs)`` / ``on Ray at ADDRESS``."""
    if run.get("backend") == "ray":
        where = run.get("address") or f"local, {run.get('jobs') or 'all'} CPU(s)"
        return f"on Ray ({where})"
    return f"with {run.get('jobs') or 1} job(s)"


def print_table(result: TournamentResult) -> None:
    """A rich table of the summary, then the speed."""
    from rich.console import Console
    from rich.table import Table

    c = result.config
    table = Table(
        title=f"{c['ruleset']}, {c['players']} players, {c['games']} games "
        f"({c['deals']} deals x {c['players']} rotations), seed {c['seed']}"
    )
    unit = result_unit(c["ruleset"], short=True)
    for head in (
        "agent",
        "games",
        "win rate (95% CI)",
        f"{unit} (95% CI)",
        "mean place",
        "openskill μ ± σ",
        "rating μ−3σ",
    ):
        table.add_column(head, justify="left" if head == "agent" else "right")
    for a in result.summary:
        table.add_row(
            a.name,
            str(a.games),
            f"{a.win_rate:.3f} [{a.win_low:.3f}, {a.win_high:.3f}]",
            f"{a.per_round:+.3f} [{a.per_round_low:+.3f}, {a.per_round_high:+.3f}]",
            f"{a.mean_place:.2f}",
            f"{a.rating_mu:.2f} ± {a.rating_sigma:.2f}",
            f"{a.rating:.2f}",
        )
    console = Console(width=160)
    console.print(table)
    console.print(
        f"{c['games']} games in {c['games'] / result.games_per_second:.1f} s: "
        f"{result.games_per_second:.1f} games/s {_how(result.run)}"
    )


def write_csv(result: TournamentResult, path: Path) -> None:
    """One row per game and seat."""
    cols = [
        "game",
        "deal",
        "rotation",
        "seat",
        "agent",
        "dice_seed",
        "rounds",
        "truncated",
        "final_stack",
        "result",
        "win",
        "place",
    ]
    f = io.StringIO()
    w = csv.writer(f)
    w.writerow(cols)
    for g in result.games:
        for s, a in enumerate(g["agents"]):
            w.writerow(
                [
                    g["game"],
                    g["deal"],
                    g["rotation"],
                    s,
                    a,
                    g["dice_seed"],
                    g["rounds"],
                    g["truncated"],
                    g["final_stacks"][s],
                    g["result"][s],
                    g["win"][s],
                    g["place"][s],
                ]
            )
    atomic_write_text(path, f.getvalue())


#: The files a tournament writes to ``--out`` (anything else in the directory is left alone).
OUTPUT_FILES = ("games.csv", "results.json", "run.json", "tournament.png", "games.jsonl")


def check_out_dir(out: str | Path, force: bool) -> Path:
    """``out`` as a directory the outputs may go to (checked before any game; ``ValueError`` if not).

    It may not exist yet (it is created, with its parents, at the end); an existing file is refused,
    and so is a directory already holding tournament outputs unless ``force``.
    """
    try:
        return _check_out_dir(Path(out), str(out), force)
    except OSError as e:  # e.g. a name too long for the file system
        raise ValueError(f"--out {str(out)[:200]!r}: {e.strerror or type(e).__name__}") from None


def _check_out_dir(p: Path, out: str, force: bool) -> Path:
    if out == "" or "\x00" in out:
        raise ValueError(f"--out {out!r} is not a usable directory name")
    if p.exists() and not p.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file, not a directory")
    ancestor = p
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ValueError(f"--out {str(out)!r}: {str(ancestor)!r} is not a directory")
    old = [name for name in OUTPUT_FILES if (p / name).exists()]
    if old and not force:
        raise ValueError(f"--out {str(out)!r} already holds {old} (use --force to replace them)")
    return p


def write_outputs(result: TournamentResult, out: Path, save_games: bool = False) -> None:
    """``games.csv``, ``results.json``, ``run.json``, ``tournament.png`` (and ``games.jsonl``) in ``out``,
    each written atomically; a ``games.jsonl`` of an earlier tournament is removed when this one saves
    no games. ``results.json`` holds only what the games decide (the same for every backend and job
    count); ``run.json`` how they were played (backend, jobs, address, games per second)."""
    out.mkdir(parents=True, exist_ok=True)
    write_csv(result, out / "games.csv")
    summary = [{**asdict(a), "rating": a.rating} for a in result.summary]
    doc = {"config": result.config, "summary": summary, "games": result.games}
    atomic_write_text(out / "results.json", json.dumps(doc, indent=1))
    atomic_write_text(out / "run.json", json.dumps(result.run, indent=1))
    plot_tournament(result, out / "tournament.png")
    if save_games:
        atomic_write_text(out / "games.jsonl", "".join(rec.to_json() + "\n" for rec in result.records))
    else:
        (out / "games.jsonl").unlink(missing_ok=True)
