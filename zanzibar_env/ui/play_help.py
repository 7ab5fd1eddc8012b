"""Helpers of the play command: hold masks in a person's words, and ``--hint`` from the optimal bot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.engine import STOP, View
from ..core.registry import make_agent
from ..core.rules import Ruleset


def hold_mask_text(dice: Sequence[int], mask: int) -> str:
    """A hold mask in a person's words, e.g. ``"keep 1 3 (3 and 6), reroll 1 die"``."""
    if mask == STOP:
        return "stop (press Enter)"
    if mask == 0:
        return "reroll all three (type 'r')"
    keep = [i for i in range(len(dice)) if mask >> i & 1]
    values = " and ".join(str(dice[i]) for i in keep)
    n = len(dice) - len(keep)
    return f"keep {' '.join(str(i + 1) for i in keep)} ({values}), reroll {n} {'die' if n == 1 else 'dice'}"


class Hinter:
    """``--hint``: what the optimal agent would do at a view, and its expected result for the round.

    Uses ``zanzibar_env.agents.make_agent("optimal")``; its ``evaluate(view)`` gives each action's expected round
    result (chips given away minus received, or the lives measure of the lives rulesets). If the agent
    is not available, :attr:`problem` says why and every hint repeats it briefly.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.agent: Any = None
        self.problem = ""
        try:
            self.agent = make_agent("optimal")
        except (ValueError, ImportError) as e:
            self.problem = f"--hint needs the 'optimal' agent, which is not available here: {e}"

    def __call__(self, view: View) -> str:
        if self.agent is None:
            return "(no hint: the optimal agent is not available)"
        try:
            evaluate = getattr(self.agent, "evaluate", None)
            if evaluate is None:
                best = int(self.agent.act(view))
                return f"Hint: the optimal player would {hold_mask_text(view.dice, best)}."
            values = {int(a): float(v) for a, v in evaluate(view).items()}
        except (ValueError, NotImplementedError, KeyError) as e:
            return f"(no hint here: {e})"
        best = max(values, key=lambda a: values[a])
        chips = self.rules.stake == "chips"
        what = (
            "chips given away minus received"
            if chips
            else "minus penalty points taken"
            if self.rules.stake == "penalty"
            else "lives (minus lives lost)"
        )
        text = f"Hint: the optimal player would {hold_mask_text(view.dice, best)}"
        text += f": expected {values[best]:+.3f} {what} this round"
        if best != STOP and STOP in values:
            text += f" (stopping now: {values[STOP]:+.3f})"
        return text + "."
