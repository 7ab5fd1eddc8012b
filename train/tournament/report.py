"""Tournament output: the results table (rich), ``games.csv``, ``results.json``, ``run.json`` and
``tournament.png`` (drawn by :func:`zanzibar_env.train.results.plots.plot_tournament`).

``--out`` is checked before the first game (:func:`check_out_dir`: a directory, writable, not holding
an earlier tournament's outputs unless ``--force``). The outputs are written as one unit
(:func:`write_outputs`): into a staging directory beside ``--out``, then moved in together, so a full
or read-only disk leaves the earlier outputs as they were, never one run's ``games.csv`` beside
another's ``results.json``. ``results.json`` and ``run.json`` carry a format version, the engine version
and the ruleset's content digest (:mod:`zanzibar_env.core.provenance`); an interrupted tournament's
``results.json`` says ``"complete": false`` and holds the deals finished before Ctrl-C (or before an agent
failed; ``run.json``'s ``stopped_by`` says which).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from zanzibar_env.core.provenance import REPORT_FORMAT, stamp
from zanzibar_env.core.safe_io import StagedDir, atomic_write_text, check_writable_dir, disk_error
from zanzibar_env.train.results import plot_tournament
from zanzibar_env.train.tournament.stats import result_unit

if TYPE_CHECKING:
    from zanzibar_env.train.tournament.play import TournamentResult


def _how(run: dict) -> str:
    """``with 2 job(s)`` / ``on Ray (local, all CPUs)`` / ``on Ray at ADDRESS``."""
    if run.get("backend") == "ray":
        where = run.get("address") or f"local, {run.get('jobs') or 'all'} CPU(s)"
        return f"on Ray ({where})"
    return f"with {run.get('jobs') or 1} job(s)"


#: How the table's rows are ordered (the summary's order, :func:`zanzibar_env.train.tournament.stats.summarise`).
SORT_NOTE = "rows sorted by rating μ−3σ (openskill's conservative estimate), best first; not by win rate"


def print_table(result: TournamentResult) -> None:
    """A rich table of the summary, then the speed."""
    from rich.console import Console
    from rich.table import Table

    c = result.config
    stop = result.run.get("stopped_by", "Ctrl-C")
    played = "" if result.complete else f", INCOMPLETE: {len(result.games)} games played before {stop}"
    table = Table(
        title=f"{c['ruleset']}, {c['players']} players, {c['games']} games "
        f"({c['deals']} deals x {c['players']} rotations), seed {c['seed']}{played}",
        caption=SORT_NOTE,
    )
    unit = result_unit(result.rules or c["ruleset"], short=True)
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
    n = len(result.games)
    console.print(
        f"{n} games in {n / result.games_per_second:.1f} s: "
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
    check_writable_dir(p, what="--out")
    old = [name for name in OUTPUT_FILES if (p / name).exists()]
    if old and not force:
        raise ValueError(f"--out {str(out)!r} already holds {old} (use --force to replace them)")
    return p


def _stage(result: TournamentResult, where: Path, save_games: bool) -> list[str]:
    """Write every output file into ``where``; returns the names of the files written."""
    write_csv(result, where / "games.csv")
    summary = [{**asdict(a), "rating": a.rating} for a in result.summary]
    head = {**stamp(REPORT_FORMAT, result.rules), "complete": result.complete}
    if result.rules is not None:
        head["ruleset_options"] = result.rules.to_dict()
    doc = {**head, "config": result.config, "summary": summary, "games": result.games}
    atomic_write_text(where / "results.json", json.dumps(doc, indent=1))
    run = {**stamp(REPORT_FORMAT), **result.run, "complete": result.complete}
    atomic_write_text(where / "run.json", json.dumps(run, indent=1))
    names = ["games.csv", "results.json", "run.json"]
    if result.complete:  # no figure of an interrupted tournament: Ctrl-C should stop quickly
        plot_tournament(result, where / "tournament.png")
        names.append("tournament.png")
    if save_games:
        atomic_write_text(where / "games.jsonl", "".join(rec.to_json() + "\n" for rec in result.records))
        names.append("games.jsonl")
    return names


def write_outputs(result: TournamentResult, out: Path, save_games: bool = False) -> list[str]:
    """``games.csv``, ``results.json``, ``run.json``, ``tournament.png`` (and ``games.jsonl``) in ``out``,
    written as one unit (:class:`~zanzibar_env.core.safe_io.StagedDir`): staged beside ``out``, then moved
    in; outputs of an earlier tournament this one does not write (``games.jsonl``, ``tournament.png``) are
    removed, so ``out`` never mixes two tournaments. ``results.json`` holds only what the games decide (the
    same for every backend and job count); ``run.json`` how they were played (backend, jobs, address,
    games per second). Returns the file names written; ``ValueError`` naming the path on a disk error
    (``out`` then as it was)."""
    out = Path(out)
    with StagedDir(out) as staged:
        try:
            names = _stage(result, staged.path, save_games)
        except OSError as e:
            raise disk_error(e, out) from None
        staged.commit(remove=[n for n in OUTPUT_FILES if n not in names])
    return names
