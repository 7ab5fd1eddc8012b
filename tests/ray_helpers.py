"""Helpers of the Ray tests: a local Ray, and an agent that kills its worker (importable by Ray workers,
which start in the repository's directory)."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.agents.heuristics import GreedyAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch


@contextmanager
def local_ray() -> Iterator[Any]:
    """A local Ray with 2 CPUs, no dashboard, its files in a short temporary folder; always shut down.

    (Ray's socket paths must stay under 107 bytes, too short for pytest's ``tmp_path``.)
    """
    import ray

    tmp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=tmp)
    try:
        yield ray
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


class KillOnceAgent(GreedyAgent):
    """Plays as ``greedy``; the first process to find ``marker`` deletes it and kills itself (SIGKILL).

    Only one process wins the ``unlink``, so exactly one worker dies, in the middle of a task; Ray must
    re-run that task. Without the marker file it is plain ``greedy``.
    """

    name = "kill_once"

    def __init__(self, marker: Path) -> None:
        super().__init__()
        self.marker = str(marker)

    def _die_once(self) -> None:
        try:
            os.unlink(self.marker)
        except FileNotFoundError:
            return
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")

    def act(self, view: View) -> int:
        self._die_once()
        return super().act(view)

    def act_batch(self, batch: ViewBatch) -> np.ndarray:  # (tournaments in lockstep ask for batches)
        self._die_once()
        return super().act_batch(batch)
