"""Zanzibar: a research environment for the dice game (rules engine, Gymnasium/PettingZoo envs, solver).

Layers, each a subpackage (ARCHITECTURE.md draws them):

* :mod:`zanzibar_env.core`: the pure game (rules, hands, engine, kernel, records), numpy and PyYAML only;
* :mod:`zanzibar_env.envs`: Gymnasium, vector and PettingZoo envs that translate the game to spaces;
* :mod:`zanzibar_env.ui`: the human interfaces (play, replay, render, narration, the ``zanzibar`` CLI).

The public API for research code::

    import zanzibar_env as zz
    rules = zz.load_ruleset("classic")
    zz.score((1, 4, 5)).points            # 109
    rec = zz.play_game("classic", num_players=4, seed=0)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .envs.registration import register_when_imported

if TYPE_CHECKING:  # the names below load on first use (``__getattr__``): importing the package stays cheap
    from .core.dice import DiceSource, RandomDice, ScriptedDice
    from .core.engine import NUM_ACTIONS, STOP, RoundState, View, mask_from_keep
    from .core.game import Agent, GameState, play_game, play_round, replay_game
    from .core.hands import MULTISETS, Hand, HandTable, hand_table
    from .core.records import GameRecord, RoundRecord, TurnRecord, load_games
    from .core.registry import available_agents, make_agent, register
    from .core.rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset, available_rulesets, load_ruleset

#: Where each public name lives (the module under ``zanzibar_env.core``).
_HOMES = {
    "dice": ("DiceSource", "RandomDice", "ScriptedDice"),
    "engine": ("NUM_ACTIONS", "STOP", "RoundState", "View", "mask_from_keep"),
    "game": ("Agent", "GameState", "play_game", "play_round", "replay_game"),
    "hands": ("MULTISETS", "Hand", "HandTable", "hand_table"),
    "records": ("GameRecord", "RoundRecord", "TurnRecord", "load_games"),
    "registry": ("available_agents", "make_agent", "register"),
    "rules": ("MAX_PLAYERS", "MIN_PLAYERS", "Ruleset", "available_rulesets", "load_ruleset"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__version__ = "0.1.0"


def score(dice: Any, ruleset: str | Ruleset = "classic") -> Hand:
    """Score three dice under a ruleset: a hashable, totally ordered :class:`Hand` (``>`` = better)."""
    from .core.rules import load_ruleset

    return load_ruleset(ruleset).table.score(dice)


def __getattr__(name: str) -> Any:
    """Load a public name from its home in :mod:`zanzibar_env.core` on first use (PEP 562)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'zanzibar_env' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"zanzibar_env.core.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})


__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MULTISETS",
    "NUM_ACTIONS",
    "STOP",
    "Agent",
    "DiceSource",
    "GameRecord",
    "GameState",
    "Hand",
    "HandTable",
    "RandomDice",
    "RoundRecord",
    "RoundState",
    "Ruleset",
    "ScriptedDice",
    "TurnRecord",
    "View",
    "available_agents",
    "available_rulesets",
    "hand_table",
    "load_games",
    "load_ruleset",
    "make_agent",
    "mask_from_keep",
    "play_game",
    "play_round",
    "register",
    "replay_game",
    "score",
]


# Register Zanzibar-v1 and ZanzibarRound-v1 with Gymnasium, now if it is imported, else when it is:
# ``import zanzibar_env`` imports neither gymnasium nor the dice tables (built on first use). The pure
# game (zanzibar_env.core) works without gymnasium; tests/package/test_layers.py runs it where it cannot be
# imported.
register_when_imported()
