"""Self-play PPO with RLlib on the PettingZoo env: ``python -m train.rllib [--config P] [--set k=v]``.

Runs in the RLlib venv (``make setup-rllib``): :mod:`~zanzibar_env.train.rllib.ppo` (the config, the
training loop, the export of the shared policy) and :mod:`~zanzibar_env.train.rllib.module` (PPO's torch
module with the action mask applied). Importing this package imports neither Ray nor torch.
"""

import sys

if __name__ == "train.rllib":  # `python -m train.rllib` from a checkout (see zanzibar_env.train)
    import zanzibar_env.train.rllib as _installed

    sys.modules[__name__] = _installed
