"""``python -m train.tournament`` (from a checkout) and ``python -m zanzibar_env.train.tournament``."""

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import sys

from zanzibar_env.core.interrupts import run_command
from zanzibar_env.train.tournament.cli import main

sys.exit(run_command(main, "tournament"))
