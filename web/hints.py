"""Exact values of every hold, for the arena's hints and its "ask the solved policy" form.

A hold's value is the acting player's expected result for the round (chips given away minus chips
received; minus lives or penalty points lost in the other stakes) when every player from there on plays
the solved round-optimal policy (:func:`zanzibar_env.agents.exact.action_values`, read through the
``optimal`` bot's cached tables). Stack caps are ignored, as in the solver. A choice's cost is the best
value minus the chosen one.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from zanzibar_env.core.dice import ScriptedDice
from zanzibar_env.core.engine import STOP, RoundState, View
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import Ruleset

#: a throw that ends no turn by itself and ranks low: the filler of the earlier throws of a scripted turn
FILLER = (2, 3, 5)
_LOCK = threading.Lock()
_AGENT: list[Any] = []


def _optimal() -> Any:
    """One ``optimal`` bot for the process (its solved tables are cached in memory and on disk)."""
    with _LOCK:
        if not _AGENT:
            _AGENT.append(make_agent("optimal"))
        return _AGENT[0]


def what_values_mean(rules: Ruleset) -> str:
    """One line: the unit of a hold's value under ``rules``."""
    if rules.stake == "chips":
        return "expected chips given away minus chips received this round (higher is better)"
    if rules.stake == "penalty":
        return "minus the expected penalty points taken this round (higher is better)"
    return "minus the expected lives lost this round (higher is better)"


def hold_words(dice: tuple[int, ...], mask: int) -> str:
    """A hold mask in words: ``"stop"``, ``"reroll all three"`` or ``"keep 5 6, reroll 1 die"``."""
    if mask == STOP:
        return "stop"
    if mask == 0:
        return "reroll all three"
    keep = [str(dice[i]) for i in range(3) if mask >> i & 1]
    n = 3 - len(keep)
    return f"keep {' '.join(keep)}, reroll {n} {'die' if n == 1 else 'dice'}"


@dataclass(frozen=True)
class HoldValues:
    """The exact value of each legal hold at one decision, best first."""

    values: dict[int, float]  # hold mask -> value
    best: int
    dice: tuple[int, int, int]

    def rows(self) -> list[dict[str, Any]]:
        """One JSON row per legal hold: the mask, its words, its value and its gap to the best."""
        top = self.values[self.best]
        order = sorted(self.values, key=lambda a: (-self.values[a], a))
        return [
            {
                "action": a,
                "text": hold_words(self.dice, a),
                "value": round(self.values[a], 6),
                "loss": round(top - self.values[a], 6),
            }
            for a in order
        ]

    def cost(self, action: int) -> float:
        """What ``action`` gives up against the best hold (0 for a best one)."""
        return self.values[self.best] - self.values[action]


@lru_cache(maxsize=16384)
def hold_values(view: View) -> HoldValues:
    """The exact value of every legal hold at ``view`` (``ValueError`` if no table fits the state).

    A view holds all the values depend on, so they are kept per view (decisions repeat across games)."""
    values = {int(a): float(v) for a, v in _optimal().evaluate(view).items()}
    if not values:
        raise ValueError("no legal hold at this state")
    best = max(values, key=lambda a: (values[a], a == STOP, -a))
    return HoldValues(values, best, view.dice)


def _check_dice(dice: Any, what: str) -> tuple[int, int, int]:
    if (
        not isinstance(dice, list)
        or len(dice) != 3
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
    ):
        raise ValueError(
            f"{what} must be three dice, each an integer 1-6, e.g. [2, 5, 6]; got {str(dice)[:60]}"
        )
    return (dice[0], dice[1], dice[2])


def _turn(throws: int, last: tuple[int, int, int], limit: int) -> tuple[list[int], list[int]]:
    """Dice and holds of a turn that ends on ``last`` after ``throws`` throws (earlier throws: FILLER)."""
    dice = [*FILLER] * (throws - 1) + list(last)
    actions = [0] * (throws - 1) + ([STOP] if throws < limit else [])
    return dice, actions


def ask_view(rules: Ruleset, players: int, hands: list[Any], first_rolls: int, dice: Any, roll: int) -> View:
    """The view of the player who rolls after ``hands`` (earlier players' final dice, in order of play) with
    ``dice`` showing after roll ``roll``; the first player used ``first_rolls`` rolls. Built by playing the
    round on scripted dice, so every public figure (roll limit, lowest and highest hand) is the engine's."""
    if not isinstance(hands, list) or len(hands) > players - 1:
        raise ValueError(f"hands so far must be a list of at most {players - 1} hands for {players} players")
    earlier = [_check_dice(h, f"hand {k + 1} so far") for k, h in enumerate(hands)]
    mine = _check_dice(dice, "dice")
    limit = rules.max_rolls
    if not 1 <= first_rolls <= limit:
        raise ValueError(f"the first player's rolls must be 1-{limit}, got {first_rolls}")
    own_limit = first_rolls if earlier and rules.first_roller_sets_limit else limit
    if not 1 <= roll < own_limit:
        raise ValueError(f"roll must be 1-{own_limit - 1} (a decision comes after a roll before the limit)")
    script: list[int] = []
    actions: list[int] = []
    for k, hand in enumerate(earlier):
        throws, holds = _turn(first_rolls if k == 0 else 1, hand, limit if k == 0 else own_limit)
        script += throws
        actions += holds
    script += [*FILLER] * (roll - 1) + list(mine)
    actions += [0] * (roll - 1)
    state = RoundState(rules, [rules.starting_stack] * players, 0, ScriptedDice(script))
    for a in actions:
        if state.current_seat is None:
            raise ValueError("the round ended before your turn (an earlier hand ends it at once)")
        state.apply(a)
    if state.current_seat != len(earlier):
        raise ValueError("an earlier hand ends the turn at once; it cannot be followed by a decision here")
    return state.view()
