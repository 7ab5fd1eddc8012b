"""``python -m zanzibar_env.agents.exact``: the ``zanzibar solve`` command (:mod:`zanzibar_env.agents.exact.cli`)."""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import sys

from zanzibar_env.agents.exact.cli import main
from zanzibar_env.core.interrupts import run_command

if __name__ == "__main__":
    sys.exit(run_command(main, "solve"))
