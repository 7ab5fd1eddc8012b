"""Register ``Zanzibar-v1`` and ``ZanzibarRound-v1`` with Gymnasium (single and vector entry points).

``import zanzibar_env`` does not import gymnasium (a tenth of a second or more that the pure game,
tournament workers and test subprocesses need not pay): it calls :func:`register_when_imported`,
which registers the ids at once if gymnasium is already imported, and otherwise the moment
``gymnasium.envs.registration`` has loaded, so ``import zanzibar_env; import gymnasium as gym;
gym.make("Zanzibar-v1")`` works in either import order.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

ENV_IDS = {"Zanzibar-v1": "game", "ZanzibarRound-v1": "round"}
_GYM_REGISTRATION = "gymnasium.envs.registration"


def register_envs() -> None:
    """Register both ids (idempotent): ``gym.make(id)`` and ``gym.make_vec(id, vectorization_mode=...)``."""
    from gymnasium.envs.registration import register, registry

    for env_id, episode in ENV_IDS.items():
        if env_id in registry:
            continue
        register(
            id=env_id,
            entry_point="zanzibar_env.envs.env:ZanzibarEnv",
            vector_entry_point="zanzibar_env.envs.vector:ZanzibarVectorEnv",
            kwargs={"episode": episode},
        )


class _RegisterAfterLoad:
    """A ``sys.meta_path`` finder that finds nothing itself: when ``gymnasium.envs.registration`` is
    about to load, it asks the other finders for the module's spec and wraps its loader so that
    :func:`register_envs` runs right after the module has executed (then it removes itself)."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if name != _GYM_REGISTRATION:
            return None
        _remove_hook()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec: ModuleSpec | None = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # (a namespace package or a loader of the old protocol: nothing registered here)
        spec.loader = _ThenRegister(spec.loader)  # type: ignore[assignment]  # a loader by protocol, not a subclass
        return spec


class _ThenRegister:
    """A loader (by protocol, not a subclass: mypy is told so) that runs ``inner``'s and then
    :func:`register_envs`; everything else is ``inner``'s."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        module: ModuleType | None = self.inner.create_module(spec)
        return module

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        register_envs()

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, is_package, ...
        return getattr(self.inner, name)


def _remove_hook() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _RegisterAfterLoad)]


def register_when_imported() -> None:
    """Register the ids now if gymnasium is imported, else as soon as it is (installs one import hook)."""
    if _GYM_REGISTRATION in sys.modules:
        register_envs()
    elif not any(isinstance(f, _RegisterAfterLoad) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterAfterLoad())
