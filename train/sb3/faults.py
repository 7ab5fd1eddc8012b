"""Surviving faults in a training run: Ctrl-C / SIGTERM stop cleanly, checkpoints are written atomically,
one process trains in a run directory at a time.

:class:`SignalGuard` turns SIGINT and SIGTERM into a flag while training runs (no
``KeyboardInterrupt`` traceback from deep inside SB3); :class:`StopOnSignal` ends ``model.learn`` at
the next environment step once the flag is up; :func:`save_model` writes a model zip through a
temporary file and ``os.replace``, so a checkpoint is never half-written; :func:`lock_run_dir` holds an
exclusive ``flock`` on ``RUN_DIR/.lock`` while a process trains there (the kernel releases it when the
process ends, however it ends), so a second ``--resume`` of the same run is refused.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

_EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}


class SignalGuard:
    """While entered (main thread only), SIGINT/SIGTERM set :attr:`caught` instead of killing the run.

    A second signal of either kind stops the process at once (exit 130 / 143, one line, no
    checkpoint): the way out of a long evaluation.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._old: dict[int, Any] = {}

    @property
    def caught(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else ""

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES.get(signal.Signals(self.signum), 1) if self.signum is not None else 0

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:  # second signal: stop now, without a checkpoint
            name = signal.Signals(signum).name
            print(f"second {name}: stopped at once, no checkpoint saved since the last one", file=sys.stderr)
            sys.stderr.flush()
            os._exit(_EXIT_CODES.get(signal.Signals(signum), 1))
        self.signum = signum

    def __enter__(self) -> SignalGuard:
        if threading.current_thread() is threading.main_thread():
            for sig in _EXIT_CODES:
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()


class StopOnSignal(BaseCallback):
    """Ends ``model.learn`` at the next step after :class:`SignalGuard` caught a signal."""

    def __init__(self, guard: SignalGuard) -> None:
        super().__init__(0)
        self.guard = guard

    def _on_step(self) -> bool:
        return not self.guard.caught


def save_model(model: Any, path: Path) -> None:
    """``model.save(path)`` through a temporary ``.zip`` beside it and ``os.replace`` (all or nothing)."""
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.zip")
    try:
        model.save(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


#: The lock file in a run directory (holds the pid of the process training there; empty when none).
LOCK_FILE = ".lock"


@contextlib.contextmanager
def lock_run_dir(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``run_dir`` while the block runs; ``ValueError`` (one line) if another
    process holds it. POSIX ``flock`` (released by the kernel on exit or crash); without ``fcntl``
    (Windows) runs are not locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path = Path(run_dir) / LOCK_FILE
    fh = open(path, "a+", encoding="utf-8")  # held open for the lock's lifetime
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            pid = fh.read().strip()[:20] or "?"
            raise ValueError(
                f"run directory {str(run_dir)!r} is in use: process {pid} is training in it "
                f"(lock {str(path)!r}); wait for it to end or stop it first"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        try:
            yield
        finally:
            fh.seek(0)
            fh.truncate()
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    finally:
        fh.close()
