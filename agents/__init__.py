"""Agents for Zanzibar: one protocol (:class:`BaseAgent`), a registry (:func:`make_agent`), baselines.

Installed as ``zanzibar_env.agents`` (the repository's ``agents/`` folder).

``random``, the heuristics ``greedy``, ``threshold``, ``escape`` (:mod:`zanzibar_env.agents.heuristics`),
``optimal`` (:mod:`zanzibar_env.agents.optimal`) and ``ppo:PATH`` (:mod:`zanzibar_env.agents.ppo_agent`).
"""

from __future__ import annotations

from zanzibar_env.agents.heuristics import EscapeAgent, GreedyAgent, ThresholdAgent
from zanzibar_env.core.bots import BaseAgent, RandomAgent
from zanzibar_env.core.registry import available_agents, make_agent, register

__all__ = [
    "BaseAgent",
    "EscapeAgent",
    "GreedyAgent",
    "RandomAgent",
    "ThresholdAgent",
    "available_agents",
    "make_agent",
    "register",
]
