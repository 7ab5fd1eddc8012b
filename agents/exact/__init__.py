"""Exact analysis of Zanzibar: solved rounds and games, the exact value of any agents, best responses and
exploitability, with exact dice probabilities.

This module is the API research code calls. Every function takes the ruleset as ``ruleset: str |
Ruleset`` (a name, a YAML path or a :class:`~zanzibar_env.core.rules.Ruleset`) and, where the figure
depends on them, ``stacks`` (``None``: the ruleset's starting stacks), in this order: agents first, then
``ruleset``, then ``stacks``, then the rest. Agents may be objects or names for
:func:`zanzibar_env.core.registry.make_agent`; any agent that is a function of its observation is read
exactly, from one batched query (:func:`action_probabilities`)::

    from zanzibar_env.agents.exact import exploitability, game_exploitability, best_response

    exploitability("greedy", "classic")["average"]               # chips per round a best response gains
    game_exploitability("optimal", "classic", (20, 20))["average"]  # win probability, the 2-player game
    br = best_response("greedy", "classic", seat=1)               # an agent: br.act(view), br.value

Round figures are expected round results (chips given away minus chips received, positive = good; minus
lives lost in lives rulesets; stack caps ignored); game figures are probabilities of winning the
untruncated 2-player game.

The modules, one concept each: :mod:`~zanzibar_env.agents.exact.turn` (the one-turn dynamic programme),
:mod:`~zanzibar_env.agents.exact.round` (a round by backward induction over the seats),
:mod:`~zanzibar_env.agents.exact.game` and :mod:`~zanzibar_env.agents.exact.game_iteration` (the
2-player game), :mod:`~zanzibar_env.agents.exact.game3` (the 3-player game, a study),
:mod:`~zanzibar_env.agents.exact.table`, :mod:`~zanzibar_env.agents.exact.table_round` and
:mod:`~zanzibar_env.agents.exact.table_game` (a table of known bots),
:mod:`~zanzibar_env.agents.exact.decisions` (reading an agent's policy),
:mod:`~zanzibar_env.agents.exact.value`, :mod:`~zanzibar_env.agents.exact.best_response`,
:mod:`~zanzibar_env.agents.exact.exploitability`, :mod:`~zanzibar_env.agents.exact.turn_end` (expected
results at the end of a turn), :mod:`~zanzibar_env.agents.exact.lookup` (acting by table look-up),
:mod:`~zanzibar_env.agents.exact.cache` (solved tables in memory and on disk) and
:mod:`~zanzibar_env.agents.exact.cli` (``zanzibar solve``, or ``python -m zanzibar_env.agents.exact``).
"""

from __future__ import annotations

from typing import Any

from zanzibar_env.agents.exact.best_response import (
    BestResponse,
    best_response,
    family_response,
    game_best_response,
    table_best_response,
    table_game_response,
)
from zanzibar_env.agents.exact.decisions import (
    DecisionStates,
    action_probabilities,
    agent_policy,
    batch_to_views,
    decision_batch,
    decision_rows,
    decision_states,
)
from zanzibar_env.agents.exact.exploitability import exploitability, game_exploitability
from zanzibar_env.agents.exact.game import GameSpec, Pairs
from zanzibar_env.agents.exact.game_iteration import MAX_STATES, SolvedGame, game_states, solve_game
from zanzibar_env.agents.exact.round import Level, RoundSpec, action_values, seat_values, solve
from zanzibar_env.agents.exact.table_round import check_ruleset as check_table_ruleset
from zanzibar_env.agents.exact.turn_end import TurnEndValues, turn_end_values
from zanzibar_env.agents.exact.value import round_value, win_probability
from zanzibar_env.core.rules import Ruleset, load_ruleset


def solve_round(
    ruleset: str | Ruleset = "classic", num_players: int = 2, fixed: dict[int, Any] | None = None
) -> list[Level]:
    """The round of ``num_players`` solved by backward induction (:mod:`zanzibar_env.agents.exact.round`):
    every position maximises its own value, except positions in ``fixed`` (``q -> float[S_q, max_rolls -
    1, 56, 8]`` action probabilities, e.g. :func:`agent_policy`), which play that policy. The tables
    include each position's final-hand distribution (``Level.dist``)."""
    return solve(RoundSpec.of(load_ruleset(ruleset), num_players), fixed)


__all__ = [
    "MAX_STATES",
    "BestResponse",
    "DecisionStates",
    "GameSpec",
    "Level",
    "Pairs",
    "RoundSpec",
    "SolvedGame",
    "TurnEndValues",
    "action_probabilities",
    "action_values",
    "agent_policy",
    "batch_to_views",
    "best_response",
    "check_table_ruleset",
    "decision_batch",
    "decision_rows",
    "decision_states",
    "exploitability",
    "family_response",
    "game_best_response",
    "game_exploitability",
    "game_states",
    "round_value",
    "seat_values",
    "solve_game",
    "solve_round",
    "table_best_response",
    "table_game_response",
    "turn_end_values",
    "win_probability",
]
