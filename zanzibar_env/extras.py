"""Optional dependencies: which extra brings which module, and one error that names the fix.

The core install (``pip install zanzibar-env``) is numpy, PyYAML and gymnasium: the game, the Gymnasium
and vector envs, the bots, the solver and exact evaluation. Everything else is an extra::

    pip install "zanzibar-env[multiagent]"   # the PettingZoo env
    pip install "zanzibar-env[ui]"           # terminal play, replay, pictures (rich, pillow)
    pip install "zanzibar-env[train]"        # SB3 training, PPO agents, the SB3 vector adapter
    pip install "zanzibar-env[tournament]"   # tournaments with ratings, tables and charts
    pip install "zanzibar-env[ray]"          # tournaments and sweeps on a Ray cluster (Ray Core, Tune)
    pip install "zanzibar-env[rllib]"        # multi-agent training with RLlib (pins its own gymnasium)
    pip install "zanzibar-env[jax]"          # the JAX env zanzibar_env.jax (jax, pgx; not in [all])
    pip install "zanzibar-env[web]"          # the browser arena, zanzibar serve (starlette, uvicorn)
    pip install "zanzibar-env[all]"          # all of the above

Every place that imports an optional module does it inside :func:`requires_extra`, so a missing one
raises :class:`MissingExtraError` (an ``ImportError``) whose message is the ``pip install`` that fixes
it::

    with requires_extra("multiagent", "the PettingZoo env"):
        from pettingzoo import AECEnv
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

#: Top-level modules each extra installs (module names, not distribution names: ``PIL`` is pillow).
EXTRAS: dict[str, tuple[str, ...]] = {
    "multiagent": ("pettingzoo",),
    "ui": ("rich", "PIL"),
    "train": (
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "tensorboard",
        "tqdm",
        "matplotlib",
        "rich",
        "scipy",
    ),
    "tournament": ("openskill", "tqdm", "rich", "matplotlib", "scipy", "threadpoolctl"),
    "zoo": ("rl_zoo3",),
    "ray": ("ray",),
    "rllib": ("ray", "torch"),
    "docs": ("mkdocs", "mkdocstrings"),
    "openspiel": ("pyspiel", "open_spiel"),
    "jax": ("jax", "pgx", "optax"),
    "web": ("starlette", "uvicorn"),
}


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the ``pip install`` that fixes it."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install "zanzibar-env[extra]"``."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; extras: {sorted(EXTRAS)}")
    return f'pip install "zanzibar-env[{extra}]"'


def extra_of(module: str, preferred: str | None = None) -> str | None:
    """The extra that installs ``module`` (``preferred`` first if it does), or ``None`` for a non-extra."""
    top = module.split(".")[0]
    if preferred is not None and top in EXTRAS.get(preferred, ()):
        return preferred
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)


def missing_extra(error: ModuleNotFoundError, feature: str, extra: str | None = None) -> ImportError:
    """``error`` turned into a :class:`MissingExtraError` naming the fix (or returned as it is)."""
    name = error.name or ""
    found = extra_of(name, extra)
    if found is None:
        return error
    return MissingExtraError(
        f"{feature} needs {name.split('.')[0]!r}, which is not installed: {install_hint(found)}"
    )


@contextmanager
def requires_extra(extra: str | None, feature: str) -> Iterator[None]:
    """Imports in this block that fail for a module of an extra raise :class:`MissingExtraError`.

    ``extra`` is the extra to name when the module belongs to it (``None``: whichever extra has it);
    ``feature`` says what needed it ("the PettingZoo env"). Other import errors pass through.
    """
    if extra is not None:
        install_hint(extra)  # ValueError for an unknown extra
    try:
        yield
    except ModuleNotFoundError as e:
        err = missing_extra(e, feature, extra)
        if err is e:
            raise
        raise err from e
