"""Before a command's first game, step or solve: what it needs is there, or one line says what is not.

Every command calls :func:`preflight` once, after parsing its options and before any work, with the
extras it needs (default: :data:`COMMAND_EXTRAS` of its name), the files it reads and the files it
writes. A missing extra is found by :func:`importlib.util.find_spec`, without importing it, so a
tournament without ``openskill`` stops before its first game, not after its last one. Problems raise
``ValueError`` (the commands' "bad input, nothing done" path, exit 2); a missing extra's message is the
``pip install`` that brings it.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.util import find_spec
from pathlib import Path

from ..extras import EXTRAS, install_hint
from .safe_io import check_output

#: The extras each command needs to finish (its name as ``zanzibar NAME`` spells it).
COMMAND_EXTRAS: dict[str, tuple[str, ...]] = {
    "play": ("ui",),
    "replay": ("ui",),
    "render": ("ui",),
    "train": ("train",),
    "evaluate": ("train",),
    "seeds": ("train",),
    "game-curve": ("train",),
    "tournament": ("tournament",),
    "sweep": ("train", "ray"),
    "zoo": ("zoo", "train"),
    "jax-train": ("jax",),
    "jax-game": ("jax",),
    "serve": ("web",),
    "rllib": ("rllib", "multiagent"),
}


def _importable(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a parent that fails to import; a module whose __spec__ is None
        return False


def missing_extras(extras: Iterable[str]) -> dict[str, list[str]]:
    """Per extra of ``extras``, the top-level modules of it that cannot be imported (only extras with some)."""
    out: dict[str, list[str]] = {}
    for extra in extras:
        install_hint(extra)  # ValueError for an unknown extra
        missing = [m for m in EXTRAS[extra] if not _importable(m)]
        if missing:
            out[extra] = missing
    return out


def preflight(
    command: str,
    *,
    extras: Iterable[str] | None = None,
    inputs: Iterable[str | Path] = (),
    outputs: Iterable[str | Path] = (),
    force: bool = False,
) -> None:
    """Check a command's extras, inputs and outputs before it starts.

    Args:
        command: the command's name (``"tournament"``): named in messages, and its
            :data:`COMMAND_EXTRAS` entry when ``extras`` is None.
        extras: the extras it needs (``("tournament", "ray")`` for a tournament on Ray).
        inputs: files or folders it reads: each must exist.
        outputs: files it writes: each must be writable (:func:`~zanzibar_env.core.safe_io.check_output`).
        force: outputs may replace existing files.

    Raises:
        ValueError: the first problem, in one line (a missing extra names its ``pip install``).
    """
    needed = COMMAND_EXTRAS.get(command, ()) if extras is None else tuple(extras)
    missing = missing_extras(needed)
    if missing:
        (extra, modules), *_ = missing.items()
        names = ", ".join(repr(m) for m in modules)
        raise ValueError(
            f"{command} needs {names} (the [{extra}] extra), which is not installed: {install_hint(extra)}"
        )
    for path in inputs:
        if not Path(path).exists():
            raise ValueError(f"{command}: input {str(path)[:200]!r} does not exist")
    for path in outputs:
        check_output(path, force=force, what=f"{command}: output")
