"""The bot registry: agents are found by name here; packages fill it, ``zanzibar_env`` owns it.

``zanzibar_env`` never imports a bot package. Bots come from three places, looked up in this order:

1. :func:`register` calls made at run time (``register("mybot", MyBot)``);
2. the package entry-point group ``zanzibar_env.agents``: each entry ``name = "module:factory"``
   (this project's ``agents`` package declares ``random``, ``greedy``, ``threshold``, ``escape``,
   ``optimal`` this way in ``pyproject.toml``; a third-party bot package does the same);
3. a *prefix* entry whose name ends in ``:`` (``ppo:``) takes the rest of the spec as an argument,
   e.g. ``make_agent("ppo:models/ppo_classic_2p.zip")``.

A factory is called as ``factory(seed=..., **options)`` (prefix factories get the argument first)
and must return an object with ``act(view) -> int`` (see :class:`zanzibar_env.core.game.Agent`).
Entry points are loaded lazily, on the first name that needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any

ENTRY_POINT_GROUP = "zanzibar_env.agents"

_RUNTIME: dict[str, Callable[..., Any]] = {}
_ENTRY_POINTS: dict[str, metadata.EntryPoint] | None = None


def _entry_points() -> dict[str, metadata.EntryPoint]:
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        _ENTRY_POINTS = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return _ENTRY_POINTS


def register(name: str, factory: Callable[..., Any]) -> None:
    """Add an agent factory under ``name`` (a name ending in ``:`` registers a prefix such as ``ppo:``)."""
    if not isinstance(name, str) or not name or not callable(factory):
        raise ValueError(f"register needs a non-empty name and a callable factory, got {name!r}, {factory!r}")
    _RUNTIME[name] = factory


def _names() -> list[str]:
    return sorted(set(_RUNTIME) | set(_entry_points()))


def available_agents() -> list[str]:
    """Agent names accepted by :func:`make_agent` (prefixes such as ``ppo:`` take an argument)."""
    return [n for n in _names() if not n.endswith(":")]


def available_prefixes() -> list[str]:
    """Spec prefixes (``ppo:``) whose rest is an argument, e.g. a model path."""
    return [n for n in _names() if n.endswith(":")]


def available_text() -> str:
    """One line naming what :func:`make_agent` accepts (used in error messages)."""
    names = ", ".join(available_agents()) or "(none installed)"
    prefixes = ", ".join(f"'{p}ARG'" for p in available_prefixes())
    return f"available: {names}" + (f", or {prefixes}" if prefixes else "")


def _factory(name: str) -> Callable[..., Any] | None:
    if name in _RUNTIME:
        return _RUNTIME[name]
    ep = _entry_points().get(name)
    if ep is None:
        return None
    try:
        factory = ep.load()
    except Exception as e:  # a broken third-party package must not break the others
        raise ValueError(f"agent {name!r} is not available: cannot load {ep.value} ({e})") from None
    _RUNTIME[name] = factory
    return factory


def split_spec(spec: str) -> tuple[str, str | None]:
    """``("ppo:", "path.zip")`` for a prefixed spec, ``(spec, None)`` for a plain name."""
    for prefix in available_prefixes():
        if spec.startswith(prefix):
            return prefix, spec[len(prefix) :]
    return spec, None


def make_agent(spec: Any, *, seed: int | None = None, **options: Any) -> Any:
    """An agent from a registered name, a prefixed spec (``"ppo:PATH"``) or an agent object (passed through).

    ``seed`` seeds any randomness the agent uses; ``options`` go to its factory (e.g.
    ``make_agent("threshold", bar=0.7)``). Unknown names raise ``ValueError`` listing what exists.
    """
    if not isinstance(spec, str):
        if hasattr(spec, "act"):
            return spec
        raise ValueError(
            f"an agent must be a name or an object with .act(view), got {spec!r}; {available_text()}"
        )
    name, arg = split_spec(spec)
    factory = _factory(name)
    if factory is None:
        raise ValueError(f"unknown agent {spec!r}; {available_text()}")
    try:
        return factory(seed=seed, **options) if arg is None else factory(arg, seed=seed, **options)
    except TypeError as e:
        raise ValueError(f"bad options for agent {spec!r}: {e}") from None
    except ValueError as e:
        raise ValueError(f"{e}; {available_text()}") from None
