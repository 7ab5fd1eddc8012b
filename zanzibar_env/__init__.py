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

from .core.interrupts import install_startup_handler

install_startup_handler()  # first: Ctrl-C while a command is still importing exits 130 with one line

from typing import Any  # noqa: E402

from .core.dice import DiceSource, RandomDice, ScriptedDice  # noqa: E402
from .core.engine import NUM_ACTIONS, STOP, RoundState, View, mask_from_keep  # noqa: E402
from .core.game import Agent, GameState, play_game, play_round, replay_game  # noqa: E402
from .core.hands import MULTISETS, Hand, HandTable, hand_table  # noqa: E402
from .core.records import GameRecord, RoundRecord, TurnRecord, load_games  # noqa: E402
from .core.registry import available_agents, make_agent, register  # noqa: E402
from .core.rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset, available_rulesets, load_ruleset  # noqa: E402
from .envs.registration import register_when_imported  # noqa: E402

__version__ = "0.1.0"


def score(dice: Any, ruleset: str | Ruleset = "classic") -> Hand:
    """Score three dice under a ruleset: a hashable, totally ordered :class:`Hand` (``>`` = better)."""
    return load_ruleset(ruleset).table.score(dice)


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
# game (zanzibar_env.core) works without gymnasium; tests/test_layers.py runs it where it cannot be
# imported.
register_when_imported()
