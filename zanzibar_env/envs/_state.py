"""The global state of a multi-agent game (PettingZoo's ``state()`` / ``state_space``).

``float32[41]``: indices 0-32 are the acting seat's flat observation (``OBS_LAYOUT``, from its seat);
33-40 are a one-hot code of the acting seat (absolute, 0-padded to 8 seats), so the state names
every seat's stack absolutely. After the game (nobody acts) 0-32 are seat 0's final observation and
33-40 are zeros. Dice are public in Zanzibar, so the state holds nothing an agent could not see.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ..core.game import GameState
from ..core.observation import OBS_SIZE
from ..core.rules import MAX_PLAYERS
from . import _envutil as U

STATE_SIZE = OBS_SIZE + MAX_PLAYERS


def state_space() -> spaces.Box:
    """``Box(-1, 8, (41,), float32)``."""
    return spaces.Box(U.OBS_LOW, U.OBS_HIGH, (STATE_SIZE,), np.float32)


def game_state(game: GameState | None, encode: Any, terminal: Any) -> np.ndarray:
    """The state of ``game``; ``encode(round)`` is the acting seat's observation, ``terminal(seat)``
    the final observation of a seat."""
    out = np.zeros(STATE_SIZE, np.float32)
    if game is None:
        return out
    seat = game.round.current_seat
    if seat is None or game.done:
        out[:OBS_SIZE] = terminal(0)
    else:
        out[:OBS_SIZE] = encode(game.round)
        out[OBS_SIZE + seat] = 1.0
    return out
