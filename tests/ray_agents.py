"""Agents for the Ray tests (importable by Ray workers, which start in the repository's directory)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from agents.heuristics import GreedyAgent
from zanzibar_env.core.engine import View


class KillOnceAgent(GreedyAgent):
    """Plays as ``greedy``; the first process to find ``marker`` deletes it and kills itself (SIGKILL).

    Only one process wins the ``unlink``, so exactly one worker dies, in the middle of a task; Ray must
    re-run that task. Without the marker file it is plain ``greedy``.
    """

    name = "kill_once"

    def __init__(self, marker: Path) -> None:
        super().__init__()
        self.marker = str(marker)

    def act(self, view: View) -> int:
        try:
            os.unlink(self.marker)
        except FileNotFoundError:
            return super().act(view)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")
