"""Self-play PPO with RLlib on the PettingZoo env: ``python -m train.rllib [--config P] [--set k=v]``.

Runs in the RLlib venv (``make setup-rllib``): :mod:`~zanzibar_env.train.rllib.ppo` (the config, the
training loop, the export of the shared policy) and :mod:`~zanzibar_env.train.rllib.module` (PPO's torch
module with the action mask applied). Importing this package imports neither Ray nor torch.
"""
