"""The exact round best response at a table of known bots (any number of players, chip rulesets).

:class:`~zanzibar_env.agents.optimal.OptimalAgent` plays the subgame-perfect round: it assumes every other seat
plays it too. At a table of known bots that is not the best one can do: the table best response
(:func:`zanzibar_env.agents.exact.best_response.table_best_response`, the agent of :func:`solve_table`)
maximises its own expected round result (chips given away minus chips received, stack caps ignored,
as in :mod:`zanzibar_env.agents.exact.round`) against the actual policies of the bots sitting clockwise after it,
``others[0]`` in the next seat, ``others[1]`` in the one after, and so on.

How it is solved: the round is solved once per position ``p`` of the responder in the order of play
(``p = 0``: it rolls first); at position ``p`` the bot at position ``(p + 1 + i) % n`` is ``others[i]``,
and every bot's action probabilities are read on every decision state of its position (one batched
query per position, :func:`zanzibar_env.agents.exact.decisions.fixed_policy`), then held fixed while the responder's
position is solved. So a bot is read as a function of its view; views carry the ruleset's starting
stack for every seat and the earlier hands as their lowest rank, its count and a highest rank of the
right payment class (the solver's public state). Bots that read more than that (stacks, exact
highest hand) are read at those stand-ins. Lives rulesets (where who plays next depends on who is
out) and ``final_hand: best`` are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.decisions import fixed_policy
from zanzibar_env.agents.exact.round import Level, RoundSpec, enumerate_levels, seat_values, solve
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import Ruleset, load_ruleset


@dataclass
class TableSolve:
    """The responder's solved round at each of its positions, and the values that go with it."""

    spec: RoundSpec
    levels: list[list[Level]]  # levels[p]: the round solved with the responder at position p
    value: np.ndarray  # float[n]: the responder's expected round result at each position
    reference: np.ndarray  # float[n]: the same seat played by ``reference`` instead (nan without one)


def solve_table(ruleset: str | Ruleset, others: list[Any], reference: Any | None = None) -> TableSolve:
    """Solve the responder's round against ``others`` (clockwise after it) at every position; with
    ``reference`` (an agent), also that agent's value in the responder's seat."""
    rs = load_ruleset(ruleset) if not isinstance(ruleset, Ruleset) else ruleset
    if rs.stake != "chips":
        raise ValueError(f"the table best response needs a chip ruleset, got stake {rs.stake!r}")
    if rs.final_hand != "last":
        raise ValueError(f"the table best response supports final_hand 'last' only, got {rs.final_hand!r}")
    n = len(others) + 1
    spec = RoundSpec.of(rs, n)
    bots = [make_agent(a) if isinstance(a, str) else a for a in others]
    base = enumerate_levels(spec)
    per_pos: list[list[Level]] = []
    value, ref = np.zeros(n), np.full(n, np.nan)
    cache: dict[tuple[int, int], np.ndarray] = {}

    def policy_of(i: int, q: int, agent: Any) -> np.ndarray:
        if (i, q) not in cache:
            cache[(i, q)] = fixed_policy(agent, rs, spec, base[q], q)
        return cache[(i, q)]

    ref_agent = make_agent(reference) if isinstance(reference, str) else reference
    for p in range(n):
        fixed = {(p + 1 + i) % n: policy_of(i, (p + 1 + i) % n, bot) for i, bot in enumerate(bots)}
        levels = solve(spec, fixed)
        per_pos.append(levels)
        value[p] = seat_values(spec, levels)[p]
        if ref_agent is not None:
            fixed_ref = {**fixed, p: fixed_policy(ref_agent, rs, spec, base[p], p)}
            ref[p] = seat_values(spec, solve(spec, fixed_ref))[p]
    return TableSolve(spec, per_pos, value, ref)
