"""Build agents from names: ``make_agent("escape")``, ``make_agent("ppo:runs/x/model.zip")``, ...

Names: ``random``, the heuristics ``greedy``, ``threshold`` and ``escape`` (:mod:`agents.heuristics`),
``optimal`` (:mod:`agents.optimal`, imported only when asked for) and ``ppo:PATH`` for a saved SB3
model (:mod:`agents.ppo_agent`). A bad name or a missing/unloadable model file raises ``ValueError``
listing the available names, before anything is played.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .base import BaseAgent
from .heuristics import EscapeAgent, GreedyAgent, ThresholdAgent
from .random_agent import RandomAgent

PPO_PREFIX = "ppo:"


def _optimal(seed: int | None = None, **options: Any) -> BaseAgent:
    """The exactly round-optimal agent, imported lazily (its solver is heavy and optional)."""
    try:
        module = importlib.import_module("agents.optimal")
    except ImportError as e:
        raise ValueError(f"agent 'optimal' is not available: cannot import agents.optimal ({e})") from None
    factory = getattr(module, "OptimalAgent", None)
    if factory is None:
        raise ValueError("agent 'optimal' is not available: agents.optimal has no OptimalAgent")
    return factory(seed=seed, **options)


# name -> factory(seed=..., **options); other modules may add themselves with register()
_REGISTRY: dict[str, Callable[..., BaseAgent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "threshold": ThresholdAgent,
    "escape": EscapeAgent,
    "optimal": _optimal,
}


def register(name: str, factory: Callable[..., BaseAgent]) -> None:
    """Add an agent factory under ``name`` (called with ``seed=`` and keyword options)."""
    if not isinstance(name, str) or not name or name.startswith(PPO_PREFIX):
        raise ValueError(f"agent name must be a non-empty string not starting with 'ppo:', got {name!r}")
    _REGISTRY[name] = factory


def available_agents() -> list[str]:
    """Names accepted by :func:`make_agent` (plus ``ppo:PATH``)."""
    return sorted(_REGISTRY)


def _available_text() -> str:
    return f"available: {', '.join(available_agents())}, or 'ppo:PATH' for a saved SB3 model.zip"


def make_agent(spec: Any, *, seed: int | None = None, **options: Any) -> BaseAgent:
    """An agent from a name in :func:`available_agents`, ``"ppo:PATH"``, or an agent object (passed through).

    ``seed`` seeds any randomness the agent uses; ``options`` go to its constructor (e.g.
    ``make_agent("threshold", bar=0.7)``).
    """
    if isinstance(spec, BaseAgent) or (not isinstance(spec, str) and hasattr(spec, "act")):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"an agent must be a name or an agent object, got {spec!r}; {_available_text()}")
    if spec.startswith(PPO_PREFIX):
        from .ppo_agent import PPOAgent  # torch/SB3 are imported only when a ppo agent is asked for

        try:
            return PPOAgent(spec[len(PPO_PREFIX) :], seed=seed, **options)
        except ValueError as e:
            raise ValueError(f"{e}; {_available_text()}") from None
    if spec not in _REGISTRY:
        raise ValueError(f"unknown agent {spec!r}; {_available_text()}")
    try:
        return _REGISTRY[spec](seed=seed, **options)
    except TypeError as e:
        raise ValueError(f"bad options for agent {spec!r}: {e}") from None
