"""How the user started a command, so that its usage line and messages name a form that runs where printed.

A command runs in one of four ways, and each prints its own form::

    zanzibar train --help                        # the console script         -> "zanzibar train"
    python -m zanzibar_env train --help          # the package's __main__      -> "python -m zanzibar_env train"
    python -m zanzibar_env.train.ppo --help      # the module, installed       -> "python -m zanzibar_env.train.ppo"
    python -m train.ppo --help                   # the module, from a checkout -> "python -m train.ppo"

:func:`command_prog` is the one place that decides it: every command's parser passes its result as
``prog`` (and its messages quote it). A command called as a function (``main([...])`` from a test or
another script) names the installed module form, which runs from a checkout and from an install alike.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

#: Set by the ``zanzibar`` command while it runs a subcommand: its prefix (``"zanzibar"``) and the
#: subcommand of each command module (``{"zanzibar_env.train.ppo": "train", ...}``).
_VIA: ContextVar[tuple[str, Mapping[str, str]] | None] = ContextVar("zanzibar_command_prog", default=None)

_PACKAGE = "zanzibar_env."


def _main_module_name() -> str | None:
    """The dotted name ``python -m`` ran (``train.ppo``; ``train.tournament`` for a package), or None."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    name = getattr(spec, "name", None)
    if not isinstance(name, str):
        return None
    return name.removesuffix(".__main__")


def command_prog(module: str) -> str:
    """The command line prefix that runs the command whose module is ``module``, in the form the user used.

    Args:
        module: the command's installed module name, ``"zanzibar_env.train.ppo"`` (a package command
            names its package: ``"zanzibar_env.train.tournament"``). It may be another command than the
            one running (a sweep names ``zanzibar_env.train.ppo`` to run its best config).

    Returns:
        ``"zanzibar train"`` under the ``zanzibar`` command; ``"python -m train.ppo"`` when Python ran a
        checkout's short name (``python -m train.X`` or ``python -m agents.X``); else
        ``"python -m zanzibar_env.train.ppo"``, which runs from a checkout and from an install alike.
    """
    via = _VIA.get()
    if via is not None and module in via[1]:
        return f"{via[0]} {via[1][module]}"
    ran = _main_module_name() or ""
    short = module.removeprefix(_PACKAGE)
    if ran.split(".")[0] in ("train", "agents") and short.split(".")[0] == ran.split(".")[0]:
        return f"python -m {short}"
    return f"python -m {module}"


def zanzibar_prog() -> str:
    """``"zanzibar"``, or ``"python -m zanzibar_env"`` when Python ran the package (``zanzibar_env.__main__``)."""
    return "python -m zanzibar_env" if _main_module_name() == "zanzibar_env" else "zanzibar"


@contextmanager
def invoked_as(prefix: str, commands: Mapping[str, str]) -> Iterator[None]:
    """While the block runs, :func:`command_prog` of a module in ``commands`` answers
    ``f"{prefix} {commands[module]}"`` (the ``zanzibar`` command running its subcommands)."""
    token = _VIA.set((prefix, dict(commands)))
    try:
        yield
    finally:
        _VIA.reset(token)
