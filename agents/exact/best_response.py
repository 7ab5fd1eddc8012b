"""Exact best responses: one agent, parametrised by scope, that plays its solved tables by look-up.

A best response is solved against fixed agents whose policies are read on every decision state
(:mod:`zanzibar_env.agents.exact.decisions`), then held fixed while the responder's play is solved; the
result is a :class:`BestResponse`, an agent like any other (it plays in envs, tournaments and exact
evaluation), holding the values behind it. The scope says what is solved:

- ``"round"`` (:func:`best_response`): a 2-player round, against a fixed agent in the other seat; it
  maximises its expected round result (chips given away minus chips received, or minus lives lost).
  In the other seat it plays the fixed agent's most likely action (so the pair replays the evaluated
  match).
- ``"table"`` (:func:`table_best_response`): a round at a table of known bots sitting clockwise after it
  (chip rulesets, any number of players; :mod:`zanzibar_env.agents.exact.table`), at every position.
- ``"game"`` (:func:`game_best_response`): the 2-player game from given stacks, against a fixed agent;
  it maximises its probability of winning, found by strategy iteration
  (:mod:`zanzibar_env.agents.exact.game_iteration`). Against a fixed agent that is a function of its
  observation, its action at a state does not depend on its seat, so one table per role (rolling first
  / second) covers every stack state of the solve.
- ``"table_game"`` (:func:`table_game_response`): the game at a table of known bots, greedy on the value
  of a family of round policies (:mod:`zanzibar_env.agents.exact.table_game`): a lower bound on the best
  response, not itself evaluated exactly.

``values[p]`` is the responder's value at position ``p`` in the order of play (``nan`` where it was not
solved there): the expected round result (round, table) or the probability of winning the game from the
stacks (game); ``value`` is their mean over the positions solved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from zanzibar_env.agents.exact.decisions import agent_policy, agent_tables, decision_states
from zanzibar_env.agents.exact.game_iteration import DEFAULT_MAX_STATES, SolvedGame, iterate
from zanzibar_env.agents.exact.lookup import Dense, dense_actions, dense_tables, game_action, game_actions
from zanzibar_env.agents.exact.round import RoundSpec, seat_values, solve
from zanzibar_env.agents.exact.table import solve_table
from zanzibar_env.agents.exact.table_game import FamilyPolicy, FamilySolve, solve_family
from zanzibar_env.agents.exact.value import game_system, seat0_value
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import Ruleset, load_ruleset

#: The agent name of each scope.
SCOPES = {
    "round": "best_response",
    "table": "table_response",
    "game": "game_best_response",
    "table_game": "table_game",
}


class SolvedPolicy(Protocol):
    """The responder's solved play, read at a batch of views or at one view."""

    def actions(self, batch: ViewBatch) -> np.ndarray: ...

    def action(self, view: View) -> int: ...


@dataclass
class RoundPolicy:
    """Tabled actions of a round solved for ``spec.n`` players (one table per position, :class:`Dense`)."""

    spec: RoundSpec
    dense: Dense

    def actions(self, batch: ViewBatch) -> np.ndarray:
        if (np.asarray(batch.num_players) != self.spec.n).any():
            raise ValueError(f"the best response was solved for {self.spec.n} players")
        return dense_actions(self.spec, self.dense, batch, self.spec.n, None)

    def action(self, view: View) -> int:
        return int(self.actions(ViewBatch.from_views([view]))[0])


@dataclass
class GamePolicy:
    """Tabled actions of a solved 2-player game (``ValueError`` for stacks outside the solve)."""

    solved: SolvedGame

    def tables(self, ruleset: Ruleset, first: int, second: int) -> SolvedGame:
        self.solved.pairs.row(first, second)
        return self.solved

    def actions(self, batch: ViewBatch) -> np.ndarray:
        return game_actions(self.tables, batch)

    def action(self, view: View) -> int:
        return game_action(self.tables, view)


@dataclass(eq=False)
class BestResponse(BaseAgent):
    """An exact best response of some ``scope`` (module docstring), playing its solved ``policy``.

    Attributes:
        scope: ``"round"``, ``"table"``, ``"game"`` or ``"table_game"``.
        policy: the solved play.
        values: ``float[n]``, its value at each position in the order of play (``nan``: not solved there).
        agent_value: the fixed agent's value against it (``"round"``; ``nan`` otherwise).
        seat: the seat it was solved for (``"round"``), or ``None`` (it plays every position).
        solved: the scope's solved tables (``"table"``: :class:`~zanzibar_env.agents.exact.table.TableSolve`,
            ``"game"``: :class:`~zanzibar_env.agents.exact.game_iteration.SolvedGame`, ``"table_game"``:
            :class:`~zanzibar_env.agents.exact.table_game.FamilySolve`; else the round's levels).
    """

    scope: str
    policy: SolvedPolicy
    values: np.ndarray
    agent_value: float = float("nan")
    seat: int | None = None
    solved: Any = None

    def __post_init__(self) -> None:
        self.name = SCOPES[self.scope]
        self.table_sizes = (len(self.values),)

    @property
    def value(self) -> float:
        """Its value, the mean over the positions it was solved for."""
        return float(np.nanmean(self.values))

    @property
    def value_first(self) -> float:
        """Its value rolling first."""
        return float(self.values[0])

    @property
    def value_second(self) -> float:
        """Its value rolling second."""
        return float(self.values[1])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return self.policy.actions(batch)

    def act(self, view: View) -> int:
        return self.policy.action(view)


def best_response(agent: Any, ruleset: str | Ruleset = "classic", seat: int = 1) -> BestResponse:
    """The exact best response in ``seat`` (0 = rolls first) of a 2-player round to ``agent`` sitting in the
    other seat (an object or a name)."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 (rolls first) or 1, got {seat!r}")
    ds = decision_states(ruleset)
    fixed = {1 - seat: agent_policy(make_agent(agent), ds)[1 - seat]}
    levels = solve(ds.spec, fixed=fixed)
    v = seat_values(ds.spec, levels)
    values = np.full(2, np.nan)
    values[seat] = v[seat]
    policy = RoundPolicy(ds.spec, dense_tables(ds.spec, levels))
    return BestResponse("round", policy, values, float(v[1 - seat]), seat, levels)


def table_best_response(others: Sequence[Any], ruleset: str | Ruleset = "classic") -> BestResponse:
    """The exact round best response to the bots ``others`` (names or objects, ``others[0]`` in the next
    seat clockwise) at a table of a chip ruleset with ``final_hand: last``; it must be the one played
    (views of another table size raise ``ValueError``, as do public states the round cannot reach)."""
    solved = solve_table(ruleset, list(others))
    spec, n = solved.spec, solved.spec.n
    dense = dense_tables(spec, [solved.levels[p][p] for p in range(n)])
    return BestResponse("table", RoundPolicy(spec, dense), solved.value.copy(), solved=solved)


def game_best_response(
    agent: Any,
    ruleset: str | Ruleset = "classic",
    stacks: Sequence[int] | None = None,
    max_states: int = DEFAULT_MAX_STATES,
) -> BestResponse:
    """The exact best response to ``agent`` in the 2-player game from ``stacks`` (``None``: the ruleset's
    starting stacks; every state reachable from them), found by strategy iteration against the agent's
    fixed tables. ``value_first``/``value_second``: its win probability rolling first / second in the
    first round."""
    _, st, system = game_system(ruleset, stacks, max_states)  # (refused over max_states, with an estimate)
    a_table, b_table = agent_tables(make_agent(agent), system)
    # class f = seat f rolls first; the agent sits in seat 0: it is A in class 0 and B in class 1
    u, sols = iterate(system, [a_table, None], [None, b_table])
    solved = SolvedGame(system.spec, system.pairs, u[: len(system.pairs)], sols[1].policy_a, sols[0].policy_b)
    second = 1.0 - seat0_value(system, u, st, 0)  # the responder in seat 1, the agent rolling first
    first = 1.0 - seat0_value(system, u, st, 1)
    return BestResponse("game", GamePolicy(solved), np.array([first, second]), solved=solved)


def table_game_response(
    others: Sequence[Any],
    ruleset: str | Ruleset = "classic",
    stacks: Sequence[int] | None = None,
    family: int = 16,
    rival: int | None = None,
    tol: float = 1e-10,
) -> BestResponse:
    """Play for the game against the known bots ``others`` (names or objects, clockwise after it; they must
    not read stacks), greedily on the value of :func:`~zanzibar_env.agents.exact.table_game.solve_family`
    over every stack state of the table's chips (``sum(stacks)``; ``None``: players x the starting stack).

    ``family``: round policies beside `optimal` (0: one step of policy improvement over `optimal`);
    ``rival``: ``None`` to maximise its own win probability, or a seat (1 = next clockwise) whose win
    probability it subtracts; ``tol``: precision of the game values. The chip ruleset played:
    :func:`zanzibar_env.agents.exact.table_round.check_ruleset`.
    """
    rules = load_ruleset(ruleset)
    total = None if stacks is None else int(sum(stacks))
    return family_response(solve_family(rules, list(others), total, family, rival, tol))


def family_response(solved: FamilySolve) -> BestResponse:
    """The ``"table_game"`` response of an existing :func:`~zanzibar_env.agents.exact.table_game.solve_family`
    (no solving)."""
    values = np.full(solved.game.n, np.nan)
    return BestResponse("table_game", FamilyPolicy(solved), values, solved=solved)
