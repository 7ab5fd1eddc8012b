"""Argument checks shared by every public entry point: seeds, booleans, option dicts and agent objects.

Each raises ``ValueError`` with one line naming the argument, the bad value and what is allowed, so a
seed, a flag or an agent is refused the same way by the envs, the game functions and the commands.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np


def show(value: Any, limit: int = 80) -> str:
    """``repr(value)`` on one line, cut to ``limit`` characters (for error messages)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_int(value: Any) -> bool:
    """A Python or numpy integer that is not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """``seed`` as a Python int (numpy ints welcome), or ``None``; ``ValueError`` for anything else
    (floats, strings, bools, negatives, sequences)."""
    if seed is None:
        return None
    if is_int(seed) and seed >= 0:
        return int(seed)
    raise ValueError(f"{name} must be None or a non-negative integer, got {show(seed)}")


def check_bool(value: Any, name: str) -> bool:
    """``value`` if it is a real bool (Python or numpy), else ``ValueError``: ``"false"`` or ``0`` is not
    taken for ``False``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {show(value)}")


def check_options(options: Any, allowed: Collection[str] | None) -> dict[str, Any]:
    """``reset(options=...)`` as a dict: ``None`` gives ``{}``; anything but a mapping, or (when ``allowed``
    is given) a key not in ``allowed``, raises ``ValueError``."""
    if options is None:
        return {}
    keys = f" with the keys {sorted(allowed)}" if allowed is not None else ""
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be None or a dict{keys}, got {show(options)}")
    unknown = [k for k in options if allowed is None or k not in allowed]
    if allowed is not None and unknown:
        raise ValueError(f"unknown options {show(unknown)}; allowed keys: {sorted(allowed)}")
    return dict(options)


def check_agent_object(agent: Any, what: str) -> Any:
    """``agent`` if it is an agent instance with a callable ``act``; a class, or an object whose ``act``
    is missing or not callable, raises ``ValueError`` naming ``what`` (the argument)."""
    if isinstance(agent, type):
        name = agent.__name__
        raise ValueError(f"{what}: got the class {name}, not an agent; pass an instance such as {name}()")
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"{what} must be an agent name or an object with a callable .act(view), got {show(agent)}"
        )
    return agent


def check_int(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    """``value`` as a Python int if it is an integer (not a bool) in ``lo..hi`` (``hi=None``: no upper
    bound), else ``ValueError`` naming ``name``, the value and the range: every count a user gives has a
    limit that names itself."""
    if is_int(value) and value >= lo and (hi is None or value <= hi):
        return int(value)
    span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
    raise ValueError(f"{name} must be an integer {span}, got {show(value)}")


def check_float(value: Any, name: str, lo: float | None = None, hi: float | None = None) -> float:
    """``value`` as a float if it is a finite real number (not a bool) in ``[lo, hi]`` (``None``: no
    bound), else ``ValueError`` naming ``name`` (``nan`` and infinities are refused)."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if ok and np.isfinite(value) and (lo is None or value >= lo) and (hi is None or value <= hi):
        return float(value)
    span = f"in [{lo}, {hi}]" if lo is not None and hi is not None else f">= {lo}" if lo is not None else ""
    span = span or (f"<= {hi}" if hi is not None else "")
    raise ValueError(f"{name} must be a finite number{' ' + span if span else ''}, got {show(value)}")
