"""Zanzibar: a research environment for the dice game (rules engine, Gymnasium/PettingZoo envs, solver).

The public API for research code::

    import zanzibar_env as zz
    rules = zz.load_ruleset("classic")
    zz.score((1, 4, 5)).points            # 109
    rec = zz.play_game("classic", num_players=4, seed=0)
"""

from __future__ import annotations

from typing import Any

from .dice import DiceSource, RandomDice, ScriptedDice
from .engine import NUM_ACTIONS, STOP, RoundState, View, mask_from_keep
from .game import Agent, GameState, play_game, play_round, replay_game
from .hands import MULTISETS, Hand, HandTable, hand_table
from .records import GameRecord, RoundRecord, TurnRecord, load_games
from .rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset, available_rulesets, load_ruleset

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
    "available_rulesets",
    "hand_table",
    "load_games",
    "load_ruleset",
    "mask_from_keep",
    "play_game",
    "play_round",
    "replay_game",
    "score",
]
from . import registration as _registration  # noqa: E402,F401  (registers Zanzibar-v0, ZanzibarRound-v0)
