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

A spec ``"module:Attr"`` that names no registered bot is imported directly (``"mypkg.bots:MyBot"``),
so a bot of your own needs no registration to play in a tournament or the terminal game. Such a spec
runs that module's code when it is imported, as any ``import`` does: name only modules you trust. A module of
yours that hides one of zanzibar-env's top-level packages (an ``agents.py`` in the working directory)
makes a bot that lives there fail with one ``ValueError`` naming the file and the fix.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..extras import MissingExtraError, missing_extra, requires_extra
from .checks import check_agent_object, check_bool, check_seed
from .made_for import drop_ruleset_claims, drop_table_size_claim

if TYPE_CHECKING:
    from importlib import metadata

ENTRY_POINT_GROUP = "zanzibar_env.agents"
#: ``package.module:Attr`` (the form of an entry point's value)
_OBJECT_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")

_RUNTIME: dict[str, Callable[..., Any]] = {}
_ENTRY_POINTS: dict[str, metadata.EntryPoint] | None = None


def _entry_points() -> dict[str, metadata.EntryPoint]:
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        from importlib import metadata  # (imported on first use: not paid by ``import zanzibar_env``)

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


def spec_help() -> str:
    """What a command line's agent argument accepts (every ``--help`` that takes agents says it): the
    registered bot names, read from the registry, and the prefixes."""
    names = ", ".join(available_agents()) or "none installed"
    prefixes = ", ".join(f"{p}ARG" for p in available_prefixes()) or "none installed"
    return (
        f"a registered bot ({names}), a registered prefix and its argument ({prefixes}; e.g. ppo:PATH, "
        "an SB3 zip, or rllib:PATH, an RLlib run directory) or module:Attr (a class on the Python path; "
        "importing the module runs its code)"
    )


def available_text() -> str:
    """One line naming what :func:`make_agent` accepts (used in error messages)."""
    names = ", ".join(available_agents()) or "(none installed)"
    prefixes = ", ".join(f"'{p}ARG'" for p in available_prefixes())
    return f"available: {names}" + (f", or {prefixes}" if prefixes else "") + ", or 'module:Attr'"


def _shadowed(module: str, error: ModuleNotFoundError) -> str | None:
    """A one-line explanation if ``module``'s top-level package is hidden by another module, else None."""
    top, missing = module.split(".")[0], error.name or ""
    if missing == top or not (module == missing or module.startswith(missing + ".")):
        return None  # the top-level name itself is missing: nothing hides it
    found = sys.modules.get(top)
    where = getattr(found, "__file__", None) or list(getattr(found, "__path__", [])) or "?"
    from importlib import metadata

    owners = metadata.packages_distributions().get(top)
    if not owners:
        return None
    return (
        f"the module {top!r} imported from {where} hides the package {top!r} of {owners[0]} "
        f"(it has no {missing!r}); rename your {top!r} file or folder, or run from another directory"
    )


def load_object(target: str, *, what: str, extra: str | None = None) -> Any:
    """Import ``"package.module:Attr"`` (or a module, without ``:Attr``) for ``what`` (used in errors).

    A module of an uninstalled extra raises :class:`~zanzibar_env.extras.MissingExtraError` (naming
    ``extra`` if that extra brings the missing module, else whichever does); a
    package hidden by a same-named module of the user's, a missing module or attribute raise
    ``ValueError`` with one line saying which and how to fix it.
    """
    module, _, attr = target.partition(":")
    try:
        obj = importlib.import_module(module)
    except ModuleNotFoundError as e:
        clash = _shadowed(module, e)
        if clash is not None:
            raise ValueError(f"{what} is not available: {clash}") from None
        err = missing_extra(e, what, extra)
        if err is not e:
            raise err from e
        raise ValueError(f"{what} is not available: cannot import {module!r} ({e})") from None
    for part in filter(None, attr.split(".")):
        if not hasattr(obj, part):
            raise ValueError(f"{what} is not available: {module!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


#: Classes loaded from ``module:Attr`` specs (kept apart: they are not registered names).
_LOADED_OBJECTS: dict[str, Callable[..., Any]] = {}


def _factory(name: str) -> Callable[..., Any] | None:
    if name in _RUNTIME:
        return _RUNTIME[name]
    if name in _LOADED_OBJECTS:
        return _LOADED_OBJECTS[name]
    ep = _entry_points().get(name)
    if ep is not None:
        target, what = ep.value.split("[")[0].strip(), f"agent {name!r}"
    elif _OBJECT_SPEC.match(name):
        target, what = name, f"agent {name!r}"
    else:
        return None
    try:
        factory = load_object(target, what=what)
    except (MissingExtraError, ValueError):
        raise
    except Exception as e:  # a broken third-party package must not break the others
        raise ValueError(f"{what} is not available: cannot load {target} ({e})") from None
    if not callable(factory):
        raise ValueError(f"{what} is not available: {target} is not callable")
    (_RUNTIME if ep is not None else _LOADED_OBJECTS)[name] = factory
    return factory


def split_spec(spec: str) -> tuple[str, str | None]:
    """``("ppo:", "path.zip")`` for a prefixed spec, ``(spec, None)`` for a plain name."""
    for prefix in available_prefixes():
        if spec.startswith(prefix):
            return prefix, spec[len(prefix) :]
    return spec, None


#: The documented opt-ins of :mod:`zanzibar_env.core.made_for`: option name, what it drops.
_OPT_INS = (("any_ruleset", drop_ruleset_claims), ("any_table_size", drop_table_size_claim))


def make_agent(spec: Any, *, seed: int | None = None, **options: Any) -> Any:
    """An agent from a registered name, a prefixed spec (``"ppo:PATH"``) or an agent object (passed through).

    ``seed`` seeds any randomness the agent uses; ``options`` go to its factory (e.g.
    ``make_agent("threshold", bar=0.7)``). Unknown names raise ``ValueError`` listing what exists.
    ``any_ruleset=True`` plays a learned agent on rules (and table sizes) it was not made for,
    ``any_table_size=True`` at table sizes it was not made for (:mod:`zanzibar_env.core.made_for`).
    """
    if not isinstance(spec, str):
        try:
            return check_agent_object(spec, "agent")
        except ValueError as e:
            raise ValueError(f"{e}; {available_text()}") from None
    seed = check_seed(seed)
    drops = [f for k, f in _OPT_INS if check_bool(options.pop(k, False), k)]  # zanzibar_env.core.made_for
    if drops:
        agent = make_agent(spec, seed=seed, **options)
        for drop in drops:
            drop(agent)
        return agent
    name, arg = split_spec(spec)
    factory = _factory(name)
    if factory is None:
        raise ValueError(f"unknown agent {spec!r}; {available_text()}")
    try:
        with requires_extra(None, f"agent {spec!r}"):
            return factory(seed=seed, **options) if arg is None else factory(arg, seed=seed, **options)
    except TypeError as e:
        raise ValueError(f"bad options for agent {spec!r}: {e}") from None
    except ValueError as e:
        raise ValueError(f"{e}; {available_text()}") from None


def agents_with(attribute: str) -> list[str]:
    """The registered bot names whose class defines ``attribute`` (e.g. ``policy_table``: the bots that
    can play inside the JAX step), read from the registry without making the agents."""
    found = []
    for name in available_agents():
        try:
            factory = _factory(name)
        except ValueError:
            continue
        if isinstance(factory, type) and callable(getattr(factory, attribute, None)):
            found.append(name)
    return found


def declared_table_sizes(name: str) -> tuple[int, ...] | None:
    """The table sizes the registered agent ``name`` declares on its class (``table_sizes``), read without
    making the agent; ``None`` if it declares none (or is not a registered name)."""
    try:
        factory = _factory(name)
    except ValueError:
        return None
    sizes = getattr(factory, "table_sizes", None) if isinstance(factory, type) else None
    return tuple(sizes) if sizes is not None else None
