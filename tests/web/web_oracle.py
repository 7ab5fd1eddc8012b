"""An independent check of the arena's hint values: the exact value of every hold, solved afresh."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import numpy as np

from zanzibar_env.agents.exact import RoundSpec, action_values, solve_round
from zanzibar_env.agents.exact.lookup import turn_best, view_state
from zanzibar_env.core.dice import ScriptedDice
from zanzibar_env.core.engine import View
from zanzibar_env.core.game import GameState
from zanzibar_env.core.hands import MULTISET_INDEX
from zanzibar_env.core.records import GameRecord
from zanzibar_env.core.rules import Ruleset, load_ruleset


@cache
def _solved(name: str, n: int) -> tuple[RoundSpec, list]:
    rules = load_ruleset(name)
    return RoundSpec.of(rules, n), solve_round(rules, n)


def exact_values(view: View) -> dict[int, float]:
    """Each legal hold's value at ``view`` from :func:`zanzibar_env.agents.exact.action_values`."""
    n = sum(view.active) if view.ruleset.stake == "lives" else view.num_players
    spec, levels = _solved(view.ruleset.name, n)
    q, key = view_state(spec, view)
    best = turn_best(spec, view)
    qv = action_values(
        spec, levels, q, key, view.rolls_used, MULTISET_INDEX[view.dice], -1 if best is None else best
    )
    return {a: float(v) for a, v in enumerate(qv) if not np.isnan(v)}


def seat_views(record: GameRecord, seat: int) -> Iterator[tuple[View, int]]:
    """Every decision of ``seat`` in a saved game: the view and the hold played."""
    rules = Ruleset.from_dict(record.ruleset)
    game = GameState(
        rules,
        record.num_players,
        ScriptedDice([d for r in record.rounds for d in r.dice_drawn]),
        record.first_seat,
    )
    for action in [a for r in record.rounds for t in r.turns for a in t.actions]:
        if game.current_seat == seat:
            yield game.view(), action
        game.apply(action)
    assert game.done and game.record.game_dict() == {**record.game_dict(), "seed": None}
