"""The RL interfaces: the Gymnasium env, the batched vector env and the PettingZoo env.

They translate :mod:`zanzibar_env.core` to spaces and never decide a rule themselves. The PettingZoo
env lives in :mod:`zanzibar_env.envs.multiagent` (imported on demand: it needs ``pettingzoo``).
"""
