"""The exact value of fixed agents: expected round results, and win probabilities of the 2-player game.

Round values are expected round results per seat (seat 0 rolls first): chips given away minus chips
received (positive = good; zero-sum in chip rulesets), or minus lives lost in lives rulesets, with exact
dice probabilities and stack caps ignored (as in :mod:`zanzibar_env.agents.exact.round`). Game values
are probabilities of winning the game (a shared win counts one half; see
:mod:`zanzibar_env.agents.exact.game`), exact over the dice, from given stacks; the game is the
untruncated one (``max_rounds`` is ignored). The pair of policies read from the agents
(:mod:`zanzibar_env.agents.exact.decisions`) defines a Markov chain over (stacks, seat rolling first),
solved by one linear solve.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.decisions import agent_policy, agent_tables, decision_states
from zanzibar_env.agents.exact.game import solve_rounds
from zanzibar_env.agents.exact.game_iteration import (
    DEFAULT_MAX_STATES,
    GameSystem,
    check_game_size,
    check_stacks,
    make_system,
)
from zanzibar_env.agents.exact.round import seat_values, solve
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import Ruleset, load_ruleset

#: An agent's action probabilities in the game, as the first roller and as the second (:func:`agent_tables`).
Tables = tuple[np.ndarray, np.ndarray]


def round_value(
    agent_first: Any, agent_second: Any, ruleset: str | Ruleset = "classic"
) -> tuple[float, float]:
    """Exact expected round results ``(first, second)``: ``agent_first`` rolls first, ``agent_second`` second.

    Agents may be objects or names for :func:`zanzibar_env.core.registry.make_agent`.
    """
    ds = decision_states(ruleset)
    first = agent_policy(make_agent(agent_first), ds)[0]
    second = agent_policy(make_agent(agent_second), ds)[1]
    v = seat_values(ds.spec, solve(ds.spec, fixed={0: first, 1: second}))
    return float(v[0]), float(v[1])


def game_system(
    ruleset: str | Ruleset, stacks: Sequence[int] | None, max_states: int = DEFAULT_MAX_STATES
) -> tuple[Ruleset, tuple[int, int], GameSystem]:
    """The ruleset, the checked stacks (``None``: the starting stacks) and the game's states in two classes
    (class ``f``: seat ``f`` rolls first); a game of more than ``max_states`` stack states is refused with
    the estimate (:func:`~zanzibar_env.agents.exact.game_iteration.check_game_size`)."""
    rules = load_ruleset(ruleset)
    st = check_stacks(rules, (rules.starting_stack,) * 2 if stacks is None else stacks)
    check_game_size(rules, st, max_states)
    return rules, st, make_system(rules, st, classes=2)


def seat0_value(system: GameSystem, u: np.ndarray, stacks: tuple[int, int], first_seat: int) -> float:
    """Probability that seat 0 wins from ``stacks`` (per seat) when ``first_seat`` rolls first."""
    row = system.pairs.row(stacks[first_seat], stacks[1 - first_seat])
    v = float(u[first_seat * len(system.pairs) + row])
    return v if first_seat == 0 else 1.0 - v


def evaluate_tables(system: GameSystem, tables: list[Tables]) -> np.ndarray:
    """State values (class = seat rolling first) when seat ``i`` plays ``tables[i]``."""
    spec, s, r = system.spec, len(system.pairs), system.spec.num_ranks
    sols = [solve_rounds(spec, np.zeros((s, r, r)), tables[f][0], tables[1 - f][1]) for f in (0, 1)]
    try:
        return system.evaluate(sols)
    except np.linalg.LinAlgError as e:
        raise ValueError("the game does not end with probability 1 under these policies") from e


def win_probability(
    agent0: Any,
    agent1: Any,
    ruleset: str | Ruleset = "classic",
    stacks: Sequence[int] | None = None,
    first_seat: int = 0,
    max_states: int = DEFAULT_MAX_STATES,
) -> float:
    """Exact probability that seat 0 (playing ``agent0``, starting with ``stacks[0]``; ``None``: the
    ruleset's starting stacks) wins the 2-player game against ``agent1``, seat ``first_seat`` rolling first
    in the first round. Agents may be names. A game of more than ``max_states`` stack states is refused
    with an estimate of its time and memory (the limit of ``exact-eval --max-states``)."""
    if first_seat not in (0, 1):
        raise ValueError(f"first_seat must be 0 or 1, got {first_seat!r}")
    _, st, system = game_system(ruleset, stacks, max_states)
    t0 = agent_tables(make_agent(agent0), system)
    t1 = t0 if agent1 is agent0 else agent_tables(make_agent(agent1), system)
    return seat0_value(system, evaluate_tables(system, [t0, t1]), st, first_seat)
