"""``python -m zanzibar_env.agents.exact``: the ``zanzibar solve`` command (:mod:`zanzibar_env.agents.exact.cli`)."""

from __future__ import annotations

import sys

from zanzibar_env.agents.exact.cli import main
from zanzibar_env.core.interrupts import run_command

if __name__ == "__main__":
    sys.exit(run_command(main, "solve"))
