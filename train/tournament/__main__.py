"""``python -m train.tournament`` (from a checkout) and ``python -m zanzibar_env.train.tournament``."""

import sys

from zanzibar_env.train.tournament.cli import main
from zanzibar_env.core.interrupts import run_command

sys.exit(run_command(main, "tournament"))
