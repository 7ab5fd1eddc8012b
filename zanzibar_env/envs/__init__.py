"""The RL interfaces: the Gymnasium env, the batched vector env and the PettingZoo env.

They translate :mod:`zanzibar_env.core` to spaces and never decide a rule themselves. The PettingZoo
envs live in :mod:`zanzibar_env.envs.multiagent` (AEC) and :mod:`zanzibar_env.envs.parallel` (parallel),
imported on demand: they need ``pettingzoo``. Every env takes ``obs_type`` (:mod:`._obs`).
"""
