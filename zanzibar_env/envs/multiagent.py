"""Zanzibar for PettingZoo, laid out as PettingZoo's own envs are: ``env``, ``raw_env``, ``parallel_env``.

``env(**kwargs)`` is the AEC env wrapped in PettingZoo's order-enforcing wrapper, ``raw_env`` its class
(:mod:`zanzibar_env.envs.aec`), ``parallel_env`` the parallel API (:mod:`zanzibar_env.envs.parallel`),
so ``pettingzoo.test``'s checks that take a module (``max_cycles_test``) run on this one::

    from zanzibar_env.envs.multiagent import env, parallel_env, raw_env
"""

from __future__ import annotations

from .aec import env, raw_env
from .parallel import parallel_env

__all__ = ["env", "parallel_env", "raw_env"]
