"""Faults: Ctrl-C, a full or read-only disk, two processes in one run directory, file modes, versions.

Disk faults use real file systems where the test may mount them (root in a container: a 64 KiB tmpfs
for a full disk, a tmpfs remounted read-only); elsewhere the same tests raise the same ``OSError`` from
a monkeypatched call and say so in their skip-free fallback (``_fs`` reports which was used).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from zanzibar_env.core import safe_io
from zanzibar_env.core.interrupts import EXIT_INTERRUPTED, launched_as_command
from zanzibar_env.core.safe_io import StagedDir, atomic_write_text, check_writable_dir

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _popen(args: list[str], **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen(  # type: ignore[call-overload,no-any-return]
        [sys.executable, *args], cwd=ROOT, env=ENV, text=True, stdout=subprocess.PIPE, **kw
    )


@contextlib.contextmanager
def _tmpfs(path: Path, size: str = "64k") -> Iterator[bool]:
    """Mount a small tmpfs at ``path``; yields whether it could (root in a container can)."""
    path.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    if r.returncode != 0:
        yield False
        return
    try:
        yield True
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _read_only(path: Path) -> bool:
    r = subprocess.run(["mount", "-o", "remount,ro", str(path)], capture_output=True)
    return r.returncode == 0


def _one_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    assert "Traceback" not in text, text[-1500:]
    assert lines, "no message"
    return lines[-1]


# ---- file modes -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_outputs_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
        safe_io.atomic_copy(tmp_path / "a.txt", tmp_path / "b.txt")
        with StagedDir(tmp_path / "out") as staged:
            atomic_write_text(staged.path / "c.txt", "y")
            staged.commit()
    finally:
        os.umask(old)
    for p in (tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "out" / "c.txt"):
        assert p.stat().st_mode & 0o777 == mode, p
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o777 & ~umask


# ---- read-only and full disks ---------------------------------------------------------------------
def test_read_only_output_is_refused_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from zanzibar_env.train.tournament import main

    ro = tmp_path / "ro"
    with _tmpfs(ro) as mounted:
        if mounted:
            (ro / "keep.txt").write_text("old")
            mounted = _read_only(ro)
        if not mounted:  # no mount allowed: the same error from the probe itself
            ro.mkdir(exist_ok=True)

            def refuse(*a: object, **k: object) -> object:
                raise OSError(errno.EROFS, "Read-only file system")

            monkeypatch.setattr(safe_io.tempfile, "mkstemp", refuse)
        with pytest.raises(ValueError, match="read-only file system"):
            check_writable_dir(ro / "new" / "deeper")
        t0 = time.perf_counter()
        code = main(
            ["--agents", "random,greedy", "--players", "2", "--games", "100000", "--out", str(ro / "D")]
        )
        assert code == 2 and time.perf_counter() - t0 < 30  # refused before 100000 games
        assert not (ro / "D").exists()


def test_full_disk_leaves_earlier_tournament_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """``--force --out`` on a full disk: exit 1, one line naming the path, the old outputs untouched."""
    from zanzibar_env.train.tournament import main

    disk = tmp_path / "disk"
    with _tmpfs(disk, "64k") as mounted:
        if not mounted:  # no mount allowed: the figure's write fails as on a full disk
            import zanzibar_env.train.tournament.report as report

            def full(*a: object, **k: object) -> None:
                raise OSError(errno.ENOSPC, "No space left on device")

            monkeypatch.setattr(report, "plot_tournament", full)
        out = disk / "D"
        out.mkdir()
        old = {n: f"old {n}" for n in ("games.csv", "results.json", "run.json", "tournament.png", "mine.txt")}
        for name, text in old.items():
            (out / name).write_text(text)
        code = main(["--agents", "random,greedy", "--players", "2", "--games", "40", "--out", str(out), "--force",
                     "--no-progress"])  # fmt: skip
        assert {p.name: p.read_text() for p in out.iterdir()} == old  # nothing new mixed in
        assert [p.name for p in disk.iterdir()] == ["D"]  # no staging directory left behind
    err = capsys.readouterr().err
    assert code == 1, err
    line = _one_line(err)
    assert "no space left" in line and str(out) in line


# ---- Ctrl-C -----------------------------------------------------------------------------------------
def _wait_for(predicate: object, seconds: float = 240.0) -> None:
    end = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


def test_ctrl_c_at_start_up_is_one_line_and_130(tmp_path: Path) -> None:
    out = tmp_path / "D"
    err = tmp_path / "err.txt"
    with err.open("w") as fh:
        p = _popen(["-m", "train.tournament", "--agents", "random,greedy", "--out", str(out)], stderr=fh)
        maps = Path(f"/proc/{p.pid}/maps")
        # numpy is imported right after the start-up handler is installed, seconds before the first game
        _wait_for(lambda: p.poll() is not None or "_multiarray_umath" in maps.read_text())
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=120)
    text = err.read_text()
    assert p.returncode == EXIT_INTERRUPTED, text
    line = _one_line(text)
    assert line.startswith("interrupted") and len(text.strip().splitlines()) == 1
    if "start-up" in line:
        assert not out.exists()


def test_ctrl_c_mid_tournament_keeps_finished_deals(tmp_path: Path) -> None:
    out, err = tmp_path / "D", tmp_path / "err.txt"
    args = ["-m", "train.tournament", "--agents", "random,greedy", "--players", "2", "--games", "10000000"]
    with err.open("w") as fh:
        p = _popen([*args, "--out", str(out), "--jobs", "2"], stderr=fh)
        played = re.compile(r"\|\s*[1-9]\d*/")  # tqdm: at least one deal done
        _wait_for(lambda: bool(played.search(err.read_text())) or p.poll() is not None)
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=120)
    text = err.read_text()
    assert p.returncode == EXIT_INTERRUPTED, text
    assert "Traceback" not in text
    last = text.strip().splitlines()[-1]
    assert last.startswith("interrupted:") and "marked incomplete" in last, last
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] is False and json.loads((out / "run.json").read_text())["complete"] is False
    assert 0 < len(doc["games"]) < 10_000_000 and len(doc["games"]) % 2 == 0  # whole deals
    assert sum(1 for _ in (out / "games.csv").open()) == 1 + 2 * len(doc["games"])
    assert not (out / "tournament.png").exists()


def test_launched_as_command() -> None:
    py = "/usr/bin/python3"
    assert launched_as_command([py, "-m", "train.ppo", "--set", "x=1"])
    assert launched_as_command([py, "-u", "-m", "zanzibar_env.ui.replay", "f"])
    assert launched_as_command([py, "/venv/bin/zanzibar", "tournament"])
    assert not launched_as_command([py, "-m", "pytest", "-m", "train"])
    assert not launched_as_command([py, "script.py", "-m", "train.ppo"])
    assert not launched_as_command([py, "-c", "import zanzibar_env"])


# ---- training: resume checks, the run lock, Ctrl-C twice -------------------------------------------
TINY = ["num_envs=16", "second_seat_frac=0.5", "n_steps=64", "batch_size=256", "n_epochs=1", "net_arch=[16]",
        "eval_games=4", "eval_bots=[random]", "eval_exact=false", "eval_freq=0", "progress_bar=false"]  # fmt: skip


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from zanzibar_env.train import ppo

    runs = tmp_path_factory.mktemp("runs")
    sets = [a for s in [*TINY, "total_timesteps=64", f"runs_dir={runs}"] for a in ("--set", s)]
    assert ppo.main(sets) == 0
    (run,) = runs.iterdir()
    return run


def _snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_failed_resume_writes_nothing(run_dir: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from zanzibar_env.train import ppo

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    cfg = (run / "config.yaml").read_text()
    assert "- 16" in cfg
    (run / "config.yaml").write_text(cfg.replace("- 16", "- 32"))  # the saved model has [16]
    before = _snapshot(run)
    assert ppo.main(["--resume", str(run), "--set", "total_timesteps=128"]) == 2
    assert "net_arch [32]" in _one_line(capsys.readouterr().err)
    assert _snapshot(run) == before  # config.yaml not rewritten, no environment_resumed.json


def test_a_locked_run_is_refused_from_another_process(run_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from zanzibar_env.train import ppo

    holder = _popen(
        ["-c", "import sys, time; from pathlib import Path; from zanzibar_env.train.sb3.faults import lock_run_dir\n"
         f"with lock_run_dir(Path({str(run_dir)!r})):\n    print('locked', flush=True); time.sleep(60)"],
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert ppo.main(["--resume", str(run_dir), "--set", "total_timesteps=128"]) == 2
        line = _one_line(capsys.readouterr().err)
        assert "in use" in line and str(holder.pid) in line
    finally:
        holder.kill()
        holder.wait()
    from zanzibar_env.train.sb3.faults import lock_run_dir

    with lock_run_dir(run_dir):  # the killed holder's lock is gone: the kernel released it
        assert (run_dir / ".lock").read_text().strip() == str(os.getpid())


def test_ctrl_c_twice_while_training_exits_130(run_dir: Path, tmp_path: Path) -> None:
    import shutil

    from zanzibar_env.train import ppo

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    err = tmp_path / "err.txt"
    with err.open("w") as fh:
        p = _popen(["-m", "train.ppo", "--resume", str(run), "--set", "total_timesteps=100000000"], stderr=fh)
        _wait_for(lambda: (run / ".lock").is_file() and (run / ".lock").read_text().strip() == str(p.pid))
        time.sleep(0.5)
        # a second process may not train the same run meanwhile
        assert ppo.main(["--resume", str(run)]) == 2
        p.send_signal(signal.SIGINT)
        # the second Ctrl-C once the first was handled: the run is shutting down (torch's teardown)
        _wait_for(lambda: "interrupted by SIGINT" in err.read_text() or p.poll() is not None)
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        p.communicate(timeout=240)
    text = err.read_text()
    assert p.returncode == EXIT_INTERRUPTED, text
    assert "Traceback" not in text


def test_sweep_best_config_written_by_hand_needs_force(tmp_path: Path) -> None:
    from zanzibar_env.train.sweep import check_best_config

    mine = tmp_path / "best.yaml"
    mine.write_text("# my notes\nlearning_rate: 0.001\n")
    with pytest.raises(ValueError, match=r"was not written by the sweep 'tiny'.*--force"):
        check_best_config(mine, "tiny", force=False)
    assert check_best_config(mine, "tiny", force=True) == mine
    mine.write_text("# Best trial of the sweep 'tiny' (python -m train.sweep ...):\nlearning_rate: 0.1\n")
    assert check_best_config(mine, "tiny", force=False) == mine  # its own earlier output
    with pytest.raises(ValueError, match="not written by the sweep 'other'"):
        check_best_config(mine, "other", force=False)
