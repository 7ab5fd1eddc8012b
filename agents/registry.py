"""Build agents from names: ``make_agent("random")``, ``make_agent("ppo:runs/x/model.zip")``, ...

Bad names and missing model files raise ``ValueError`` before anything is played.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import BaseAgent
from .random_agent import RandomAgent

# name -> factory(seed) ; other modules add themselves with register()
_REGISTRY: dict[str, Callable[..., BaseAgent]] = {"random": RandomAgent}


def register(name: str, factory: Callable[..., BaseAgent]) -> None:
    """Add an agent factory under ``name`` (called with ``seed=`` and keyword options)."""
    _REGISTRY[name] = factory


def available_agents() -> list[str]:
    """Names accepted by :func:`make_agent` (plus ``ppo:PATH``)."""
    return sorted(_REGISTRY)


def make_agent(spec: Any, *, seed: int | None = None, **options: Any) -> BaseAgent:
    """An agent from a name in :func:`available_agents`, ``"ppo:PATH"``, or an agent object (passed through)."""
    if isinstance(spec, BaseAgent) or (not isinstance(spec, str) and hasattr(spec, "act")):
        return spec  # type: ignore[no-any-return]
    if not isinstance(spec, str):
        raise ValueError(f"an agent must be a name, 'ppo:PATH' or an agent object, got {spec!r}")
    if spec.startswith("ppo:"):
        raise ValueError("ppo: agents are not available yet")
    if spec not in _REGISTRY:
        raise ValueError(f"unknown agent {spec!r}; available: {available_agents()} or 'ppo:PATH'")
    return _REGISTRY[spec](seed=seed, **options)
