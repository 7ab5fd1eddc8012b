"""Run directories and their ``eval.csv``: made, named, read and checked here, and nowhere else.

A training run lives in ``<runs_dir>/<env-id>__<exp-name>__<seed>__<unix-time>/`` (a suffix ``_`` per
clash when two runs start in the same second) holding ``config.yaml`` (the resolved config), ``run.json``
(the command line, the git commit, the start time, and the stamp of
:mod:`zanzibar_env.core.provenance`: format, engine version, the ruleset's name and content digest;
:func:`check_run_stamp` reads it back on ``--resume``), ``environment.json`` and the files training
writes there (:mod:`zanzibar_env.train.ppo` lists them). ``eval.csv`` has one row per evaluation: the columns
``timesteps`` and ``train_seconds``, then the figures of
:func:`zanzibar_env.train.evaluate.evaluate_model`, every value a float, the same columns in every row.

This module imports neither torch nor SB3 (a test proves it): the commands that only read runs
(:mod:`zanzibar_env.train.seeds`, :mod:`zanzibar_env.train.game_curve`, the plots) stay light.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.provenance import RUN_FORMAT, check_format, engine_version, format_note, stamp
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.core.safe_io import atomic_write_text

if TYPE_CHECKING:
    from zanzibar_env.train.config import TrainConfig

#: The evaluation history's file name in a run directory.
EVAL_CSV = "eval.csv"
#: The columns every ``eval.csv`` starts with.
EVAL_KEYS = ("timesteps", "train_seconds")

Row = dict[str, float]


# ---- eval.csv -------------------------------------------------------------------------------------
def read_eval_csv(path: str | Path) -> list[Row]:
    """The rows of an ``eval.csv`` (``ValueError`` if it is not one written by training)."""
    path = Path(path)
    try:
        with path.open() as fh:
            rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)]
    except (ValueError, TypeError, csv.Error, UnicodeDecodeError):
        raise ValueError(f"{path}: not an eval.csv written by zanzibar_env.train.ppo") from None
    if any(any(k not in r for k in EVAL_KEYS) for r in rows):
        raise ValueError(f"{path}: not an eval.csv written by zanzibar_env.train.ppo")
    return rows


def eval_rows(run_dir: str | Path) -> list[Row]:
    """The evaluation rows of a run directory; ``[]`` when it has no ``eval.csv`` yet."""
    path = Path(run_dir) / EVAL_CSV
    return read_eval_csv(path) if path.is_file() else []


def eval_columns(rows: list[Row]) -> dict[str, list[float]]:
    """The rows of an ``eval.csv`` as columns (``{}`` for no rows)."""
    return {k: [r[k] for r in rows] for k in rows[0]} if rows else {}


def write_eval_csv(path: str | Path, rows: list[Row]) -> None:
    """Write every row to ``path`` atomically; ``ValueError`` unless all rows have the same columns."""
    columns = list(rows[0])
    for row in rows:
        if list(row) != columns:
            raise ValueError(f"{path}: evaluation columns {list(row)} differ from {columns}")
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, buf.getvalue())


# ---- run directories ------------------------------------------------------------------------------
def make_run_dir(runs_dir: str | Path, prefix: str) -> Path:
    """Create ``<runs_dir>/<prefix>__<unix-time>/`` (with ``_`` appended while the name is taken).

    ``ValueError`` (the key ``runs_dir`` named) when ``runs_dir`` is a file or the directory cannot be made.
    """
    runs = Path(runs_dir)
    if runs.exists() and not runs.is_dir():
        raise ValueError(f"config key 'runs_dir': {str(runs_dir)!r} is not a directory")
    run_dir = runs / f"{prefix}__{int(time.time())}"
    while run_dir.exists():  # two runs in the same second
        run_dir = run_dir.with_name(run_dir.name + "_")
    try:
        run_dir.mkdir(parents=True)
    except OSError as e:
        raise ValueError(f"cannot create the run directory {str(run_dir)!r} ({e.strerror})") from None
    return run_dir


def new_run(cfg: TrainConfig, argv: list[str]) -> Path:
    """Create ``<runs_dir>/<env-id>__<exp-name>__<seed>__<unix-time>/``, save the resolved config and
    ``run.json`` (the ``python -m train.ppo`` command line of ``argv``, the git commit, the start time)."""
    from zanzibar_env.train.config import save_config

    run_dir = make_run_dir(cfg.runs_dir, cfg.run_name_prefix)
    save_config(cfg, run_dir / "config.yaml")
    meta = {
        **stamp(RUN_FORMAT, load_ruleset(cfg.ruleset)),
        "command": command_line(argv),
        "git_commit": git_commit(),
        "started_unix": int(time.time()),
    }
    atomic_write_text(run_dir / "run.json", json.dumps(meta, indent=2))
    return run_dir


def check_run_stamp(run_dir: Path, cfg: TrainConfig) -> str:
    """Check ``run.json``'s stamp against this package and the config's ruleset (before ``--resume``).

    ``ValueError`` for a run of a newer format or one whose ruleset now has other options than when it
    started (a ruleset file edited since: the saved model learnt other rules); returns a note (``""`` if
    none) for a run from another engine version or one made before runs were stamped.
    """
    path = run_dir / "run.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{str(path)!r} is not a run's run.json ({type(e).__name__})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{str(path)!r} is not a run's run.json (not a JSON object)")
    if "format" not in meta:
        return f"note: {str(run_dir)!r} was made before runs were stamped with versions (run format 0)"
    check_format("run", meta["format"], meta.get("engine"), RUN_FORMAT)
    rules = load_ruleset(cfg.ruleset)
    now = stamp(RUN_FORMAT, rules)["ruleset_sha256"]
    if meta.get("ruleset_sha256") != now:
        raise ValueError(
            f"--resume {str(run_dir)!r}: ruleset {cfg.ruleset!r} has other options now than when the run "
            f"started (digest {str(meta.get('ruleset_sha256'))[:12]}..., now {now[:12]}...): the model "
            "learnt other rules; start a new run"
        )
    note = format_note("run", meta["format"], meta.get("engine"), RUN_FORMAT)
    return f"note: {note}" if meta.get("engine") != engine_version() else ""


def record_environment(run_dir: Path, resume: bool) -> None:
    """Write what the run depends on (versions, torch's CPU kernels and threads;
    :mod:`zanzibar_env.train.results.repro`) to ``environment.json``, or for a resumed session to
    ``environment_resumed.json`` (the latest one)."""
    from zanzibar_env.train.results.repro import environment, kernels_pinned

    env = environment()
    env["kernels_pinned_before_torch"] = kernels_pinned(env["torch_cpu_capability"])
    name = "environment_resumed.json" if resume else "environment.json"
    atomic_write_text(run_dir / name, json.dumps(env, indent=2) + "\n")


def command_line(argv: list[str]) -> str:
    """``python -m train.ppo ARGS`` for the arguments ``argv`` (shell-quoted)."""
    return " ".join([command_prog("zanzibar_env.train.ppo"), *(shlex.quote(a) for a in argv)])


def git_commit() -> str:
    """The repository's HEAD commit (with ``-dirty`` if tracked files differ), or ``unknown``."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = (
            subprocess.run(
                ["git", "diff", "--quiet", "HEAD", "--", "train", "configs", "zanzibar_env", "agents"],
                cwd=root,
            ).returncode
            != 0
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")
