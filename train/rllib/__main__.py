"""``python -m train.rllib`` (from a checkout, in the RLlib venv) and ``python -m zanzibar_env.train.rllib``."""

import sys

from zanzibar_env.train.rllib.ppo import main
from zanzibar_env.core.interrupts import run_command

sys.exit(run_command(main, "rllib"))
