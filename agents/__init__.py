"""Agents for Zanzibar: one protocol (:class:`BaseAgent`), a registry (:func:`make_agent`), baselines."""

from __future__ import annotations

from .base import BaseAgent
from .random_agent import RandomAgent
from .registry import available_agents, make_agent, register

__all__ = ["BaseAgent", "RandomAgent", "available_agents", "make_agent", "register"]
