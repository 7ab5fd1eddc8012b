"""Hostile generators for faults: outputs that must not be overwritten, unwritable or odd output places.

Each case runs a command's ``main(argv)`` in-process with an output location that is wrong (a file
where a directory goes, a directory where a file goes, an earlier result without ``--force``, a
hand-written ``best_config``, a replay file that is not one, a missing or read-only directory) and
watches the files that were there: the command must refuse with one line and leave them as they were.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .hostile import Case, main_of

ROOT = Path(__file__).resolve().parents[2]
SWEEP = ROOT / "configs" / "sweep_ppo_classic_2p.yaml"


def _read_only_dir(work: Path) -> Path | None:
    """A read-only tmpfs under ``work`` if this process may mount one (root in a container), else None."""
    ro = work / "ro"
    ro.mkdir(exist_ok=True)
    with contextlib.suppress(OSError):
        ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(ro)], capture_output=True)
        if ok.returncode == 0:
            (ro / "results.json").write_text("{}\n")
            if subprocess.run(["mount", "-o", "remount,ro", str(ro)], capture_output=True).returncode == 0:
                return ro
            subprocess.run(["umount", "-l", str(ro)], capture_output=True)
    return None


def _unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def output_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Commands pointed at outputs they may not write: refused before any work, nothing changed."""
    work = tmp / "faults"
    work.mkdir(exist_ok=True)
    hand = work / "my_best.yaml"
    hand.write_text("# my own notes, not a sweep's\nlearning_rate: 0.001\n")
    old = work / "old_tournament"
    old.mkdir(exist_ok=True)
    for name in ("games.csv", "results.json", "run.json"):
        (old / name).write_text(f"old {name}\n")
    afile = work / "a_file.txt"
    afile.write_text("keep\n")
    ruleset = work / "rules.yaml"
    ruleset.write_text((ROOT / "configs" / "rules" / "classic.yaml").read_text())
    watch = [hand, afile, ruleset, *(old / n for n in ("games.csv", "results.json", "run.json"))]
    tour = ["--agents", "random,greedy", "--players", "2", "--games", "4", "--no-progress"]

    def run(module: str, argv: list[str]) -> Any:
        return main_of(module)(argv)

    for module in ("zanzibar_env.train.sweep", "zanzibar_env.train.ppo", "zanzibar_env.train.tournament"):
        main_of(module)  # imported here, outside the cases' time limit (Ray and torch load slowly)

    cases: list[tuple[str, str, list[str]]] = [
        ("sweep over a hand-written best_config", "zanzibar_env.train.sweep",
         ["--config", str(SWEEP), "--best-config", str(hand), "--out-dir", str(work / "sweeps")]),
        ("sweep best_config a directory", "zanzibar_env.train.sweep",
         ["--config", str(SWEEP), "--best-config", str(work), "--out-dir", str(work / "sweeps")]),
        ("sweep out_dir a file", "zanzibar_env.train.sweep", ["--config", str(SWEEP), "--out-dir", str(afile)]),
        ("tournament --out a file", "zanzibar_env.train.tournament", [*tour, "--out", str(afile)]),
        ("tournament --out over an earlier result", "zanzibar_env.train.tournament", [*tour, "--out", str(old)]),
        ("tournament --out under a file", "zanzibar_env.train.tournament", [*tour, "--out", str(afile / "D")]),
        ("exact-eval --json over a file", "zanzibar_env.train.exact_eval",
         ["--agent", "greedy", "--json", str(afile)]),
        ("exact-eval --json in a missing directory", "zanzibar_env.train.exact_eval",
         ["--agent", "greedy", "--json", str(work / "nowhere" / "x.json")]),
        ("render --out over a ruleset", "zanzibar_env.ui.render", ["--out", str(ruleset)]),
        ("train --resume a non-run", "zanzibar_env.train.ppo", ["--resume", str(old)]),
    ]  # fmt: skip
    ro = _read_only_dir(work)
    if ro is not None:
        watch.append(ro / "results.json")
        cases += [
            ("tournament --out on a read-only disk", "zanzibar_env.train.tournament", [*tour, "--out", str(ro / "D")]),
            ("exact-eval --json on a read-only disk", "zanzibar_env.train.exact_eval",
             ["--agent", "greedy", "--json", str(ro / "x.json")]),
            ("render --out on a read-only disk", "zanzibar_env.ui.render", ["--out", str(ro / "f.png")]),
        ]  # fmt: skip
    order = rng.permutation(len(cases))[: max(n, len(cases))]
    try:
        for k in order:
            name, module, argv = cases[int(k)]
            yield Case(name, lambda m=module, a=argv: run(m, a), watch=watch, timeout=60)
        yield Case("GameRecord.save over a ruleset file", lambda: _save_over(ruleset), watch=watch)
        yield Case(
            "GameRecord.save in a missing directory", lambda: _save_over(work / "no" / "g.jsonl"), watch=watch
        )
    finally:
        if ro is not None:
            _unmount(ro)


def _save_over(path: Path) -> None:
    from zanzibar_env.core.game import play_game

    play_game("classic", num_players=2, seed=0, max_rounds=2).save(path)


GENERATORS = (output_cases,)
