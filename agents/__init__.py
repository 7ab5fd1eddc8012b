"""Agents for Zanzibar: one protocol (:class:`BaseAgent`), a registry (:func:`make_agent`), baselines.

``random``, the heuristics ``greedy``, ``threshold``, ``escape`` (:mod:`agents.heuristics`),
``optimal`` (:mod:`agents.optimal`) and ``ppo:PATH`` (:mod:`agents.ppo_agent`).
"""

from __future__ import annotations

from .base import BaseAgent
from .heuristics import EscapeAgent, GreedyAgent, ThresholdAgent
from .random_agent import RandomAgent
from .registry import available_agents, make_agent, register

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
