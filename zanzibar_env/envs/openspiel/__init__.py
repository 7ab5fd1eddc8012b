"""Zanzibar as an OpenSpiel game: ``python_zanzibar_round`` (one round) and ``python_zanzibar`` (a game).

Importing this module registers both games with ``pyspiel.register_game`` (extra ``[openspiel]``)::

    import pyspiel
    import zanzibar_env.envs.openspiel  # registers the games
    game = pyspiel.load_game("python_zanzibar_round", {"ruleset": "classic", "players": 2})

A state serializes as the actions played (:mod:`~zanzibar_env.envs.openspiel.serial`), never as a pickle:
``game.deserialize_state(text)`` and ``pyspiel.deserialize_game_and_state(text)`` replay a history and
refuse anything else with a ``ValueError``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any

from ...extras import requires_extra

with requires_extra("openspiel", "the OpenSpiel games"):
    import pyspiel

from . import serial
from ._round import DICE_OUTCOMES, MAX_CHANCE_OUTCOMES, ROLLOFF_BASE, RoundMachine
from .games import (
    GAME_NAME,
    GAME_PARAMS,
    ROUND_NAME,
    ROUND_PARAMS,
    Observer,
    ZanzibarGame,
    ZanzibarRoundGame,
    ZanzibarState,
    _game_type,
)

for _cls in (ZanzibarRoundGame, ZanzibarGame):
    if _cls.short_name not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(_cls.short_name, None, _cls.param_spec), _cls)
serial.install()  # our states (de)serialize as action histories, never as pickles

__all__ = [
    "DICE_OUTCOMES",
    "GAME_NAME",
    "GAME_PARAMS",
    "MAX_CHANCE_OUTCOMES",
    "ROLLOFF_BASE",
    "ROUND_NAME",
    "ROUND_PARAMS",
    "Observer",
    "RoundMachine",
    "ZanzibarGame",
    "ZanzibarRoundGame",
    "ZanzibarState",
    "value_iteration_module",
]


def value_iteration_module() -> ModuleType:
    """OpenSpiel's ``open_spiel.python.algorithms.value_iteration``, importable without cvxpy.

    The module imports ``lp_solver`` (and with it cvxpy, ~100 MB) for simultaneous-move nodes only;
    Zanzibar has none. Where cvxpy is missing, the import is given a stand-in ``lp_solver`` that
    raises ``ImportError`` if anything calls it, and the real import is left untouched for others.
    """
    name = "open_spiel.python.algorithms.lp_solver"
    if importlib.util.find_spec("cvxpy") is None:
        if name not in sys.modules:
            stub = ModuleType(name, "stand-in for lp_solver (cvxpy is not installed)")

            def _missing(attr: str) -> Any:
                raise ImportError(f"open_spiel's lp_solver.{attr} needs cvxpy: pip install cvxpy")

            stub.__getattr__ = _missing  # type: ignore[method-assign]  # a stand-in module's __getattr__
            sys.modules[name] = stub
            try:
                return importlib.import_module("open_spiel.python.algorithms.value_iteration")
            finally:
                del sys.modules[name]
    return importlib.import_module("open_spiel.python.algorithms.value_iteration")
