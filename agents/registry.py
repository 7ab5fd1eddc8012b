"""Build agents from names: ``make_agent("escape")``, ``make_agent("ppo:runs/x/model.zip")``, ...

The registry itself lives in :mod:`zanzibar_env.core.registry` (the envs find bots through it without
importing this package); this package fills it through the ``zanzibar_env.agents`` entry points
declared in ``pyproject.toml``: ``random``, the heuristics ``greedy``, ``threshold`` and ``escape``
(:mod:`zanzibar_env.agents.heuristics`), ``optimal``
(:mod:`zanzibar_env.agents.optimal`) and the prefix ``ppo:PATH`` for a
saved SB3 model (:mod:`zanzibar_env.agents.ppo_agent`). A bad name or a missing/unloadable model file raises
``ValueError`` listing the available names, before anything is played.
"""

from __future__ import annotations

from zanzibar_env.core.registry import available_agents, available_text, make_agent, register

__all__ = ["available_agents", "available_text", "make_agent", "register"]
