"""Exact evaluation of 2-player games: win probabilities of any agents, best responses, exploitability.

Values are probabilities of winning the game (a shared win counts one half; see :mod:`zanzibar_env.agents.game_round`),
exact over the dice, from given starting stacks, with seat 0 rolling first in the first round unless
``first_seat`` says otherwise. The game is the untruncated one (``max_rounds`` is ignored).

How an agent is read (as :mod:`zanzibar_env.agents.exact` reads it for rounds): every decision of every round of
every stack state the game can reach is enumerated once (the first roller's roll and dice; the second
roller's roll, dice, roll limit and the first roller's hand rank), turned into one
:class:`~zanzibar_env.core.observation.ViewBatch` with the true stacks, and given to the agent in a
single call (:func:`zanzibar_env.agents.exact.action_probabilities`: ``action_probs_batch``, ``act_batch``, or ``act``
per view). So any agent that is a function of its observation can be evaluated, a neural one included.
The pair of policies then defines a Markov chain over (stacks, seat rolling first), solved by one linear
solve; a best response is found by strategy iteration against the fixed agent (:mod:`zanzibar_env.agents.game_solver`).

Exploitability of an agent in seat ``i``: the win probability a best response in the other seat reaches
against it, minus that seat's win probability when both play the game-optimal policy (``optimal_game``);
``average`` is the mean over the agent starting (seat 0) and not starting (seat 1). It is never negative,
and 0 for ``optimal_game``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import MAX_PLAYERS, Ruleset, load_ruleset

from zanzibar_env.agents.game_round import GameSpec, Pairs
from zanzibar_env.agents.game_solver import (
    GameSystem,
    OptimalGameAgent,
    SolvedGame,
    check_stacks,
    iterate,
    make_system,
    solved_game,
)
from zanzibar_env.agents.registry import make_agent
from zanzibar_env.agents.solver_turn import NUM_MULTISETS

_DICE = np.array(MULTISETS, np.int64)  # [56, 3] sorted faces of each multiset
_STOP_ROW = np.eye(8)[7]


def _grid(*sizes: int) -> list[np.ndarray]:
    return [g.ravel() for g in np.meshgrid(*(np.arange(n) for n in sizes), indexing="ij")]


def decision_rows(spec: GameSpec, pairs: Pairs) -> tuple[np.ndarray, ...]:
    """Every decision: ``(role, s, rA, li, r, m)`` (role 0 rolls first; ``rA``/``li`` are the first roller's
    rank and the roll-limit index, 0 for role 0; ``r`` the roll 1..; ``m`` the dice)."""
    rmax, nr, nl = spec.max_rolls, spec.num_ranks, spec.num_limits
    s, r, m = _grid(len(pairs), rmax - 1, NUM_MULTISETS)
    a = (np.zeros_like(s), s, np.zeros_like(s), np.zeros_like(s), r + 1, m)
    s, ra, li, r, m = _grid(len(pairs), nr, nl, rmax - 1, NUM_MULTISETS)
    limit = li + 1 if spec.sets_limit else np.full_like(li, rmax)
    ok = r + 1 < limit
    if spec.instant_m is not None:
        ok &= ra != nr - 1  # after an instant top hand the second roller never rolls
    b = (np.ones(ok.sum(), np.int64), s[ok], ra[ok], li[ok], r[ok] + 1, m[ok])
    rows = tuple(np.concatenate([x, y]) for x, y in zip(a, b, strict=True))
    keep = rows[5] != (spec.instant_m if spec.instant_m is not None else -1)
    return tuple(x[keep] for x in rows)


def decision_batch(spec: GameSpec, pairs: Pairs, rows: tuple[np.ndarray, ...]) -> ViewBatch:
    """The views of the decision rows, with the true stacks of each state."""
    role, s, ra, li, r, m = rows
    second = role == 1
    own = np.where(second, pairs.y[s], pairs.x[s])
    other = np.where(second, pairs.x[s], pairs.y[s])
    n = len(role)
    stacks = np.zeros((n, MAX_PLAYERS), np.int64)
    stacks[:, 0], stacks[:, 1] = own, other
    active = np.zeros((n, MAX_PLAYERS), np.int64)
    active[:, :2] = 1
    rank = np.where(second, ra, -1)
    limit = np.where(second & spec.sets_limit, li + 1, spec.max_rolls)
    own_hand = spec.ruleset.payment == "own_hand"
    return ViewBatch(
        ruleset=spec.ruleset, dice=_DICE[m], rolls_used=r, roll_limit=limit,
        is_first=(~second).astype(np.int64), players_after=1 - role, lowest_rank=rank,
        lowest_count=second.astype(np.int64), highest_rank=rank,
        earlier_payments=np.where(second & own_hand, spec.pay_of_rank[ra], 0), stacks=stacks,
        active=active, num_players=np.full(n, 2),
    )  # fmt: skip


def agent_tables(agent: Any, system: GameSystem) -> tuple[np.ndarray, np.ndarray]:
    """The agent's action probabilities as the first roller ``[S, max_rolls - 1, 56, 8]`` and as the second
    ``[S, R, num_limits, max_rolls - 1, 56, 8]`` (stop where there is no decision), from one batched query."""
    from zanzibar_env.agents.exact import (
        action_probabilities,
    )  # zanzibar_env.agents.exact re-exports this module's functions

    spec, pairs = system.spec, system.pairs
    rows = decision_rows(spec, pairs)
    probs = action_probabilities(agent, decision_batch(spec, pairs, rows))
    role, s, ra, li, r, m = rows
    rmax = max(spec.max_rolls - 1, 0)
    pa = np.broadcast_to(_STOP_ROW, (len(pairs), rmax, NUM_MULTISETS, 8)).copy()
    shape_b = (len(pairs), spec.num_ranks, spec.num_limits, rmax, NUM_MULTISETS, 8)
    pb = np.broadcast_to(_STOP_ROW, shape_b).copy()
    a = role == 0
    pa[s[a], r[a] - 1, m[a]] = probs[a]
    pb[s[~a], ra[~a], li[~a], r[~a] - 1, m[~a]] = probs[~a]
    return pa, pb


def _setup(ruleset: str | Ruleset, stacks: Any) -> tuple[Ruleset, tuple[int, int], GameSystem]:
    rules = load_ruleset(ruleset)
    st = check_stacks(rules, stacks)
    return rules, st, make_system(rules, st, classes=2)


def _seat0_value(system: GameSystem, u: np.ndarray, stacks: tuple[int, int], first_seat: int) -> float:
    """Probability that seat 0 wins from ``stacks`` (per seat) when ``first_seat`` rolls first."""
    row = system.pairs.row(stacks[first_seat], stacks[1 - first_seat])
    v = float(u[first_seat * len(system.pairs) + row])
    return v if first_seat == 0 else 1.0 - v


def _evaluate(system: GameSystem, tables: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """State values (class = seat rolling first) when seat ``i`` plays ``tables[i]``."""
    from zanzibar_env.agents.game_round import solve_rounds

    spec, s, r = system.spec, len(system.pairs), system.spec.num_ranks
    sols = [solve_rounds(spec, np.zeros((s, r, r)), tables[f][0], tables[1 - f][1]) for f in (0, 1)]
    try:
        return system.evaluate(sols)
    except np.linalg.LinAlgError as e:
        raise ValueError("the game does not end with probability 1 under these policies") from e


def game_win_probability(
    agent0: Any, agent1: Any, ruleset: str | Ruleset = "classic", stacks: Any = (20, 20), first_seat: int = 0
) -> float:
    """Exact probability that seat 0 (playing ``agent0``, starting with ``stacks[0]``) wins the 2-player game
    against ``agent1``, seat ``first_seat`` rolling first in the first round. Agents may be names."""
    if first_seat not in (0, 1):
        raise ValueError(f"first_seat must be 0 or 1, got {first_seat!r}")
    _, st, system = _setup(ruleset, stacks)
    t0 = agent_tables(make_agent(agent0), system)
    t1 = t0 if agent1 is agent0 else agent_tables(make_agent(agent1), system)
    return _seat0_value(system, _evaluate(system, [t0, t1]), st, first_seat)


def game_exploitability(
    agent: Any, ruleset: str | Ruleset = "classic", stacks: Any = (20, 20)
) -> dict[str, float]:
    """Game exploitability of ``agent`` sitting in seat 0 (rolls first in the first round) and seat 1, and
    their mean (``seat0``, ``seat1``, ``average``; module docstring), with the win probabilities behind
    them: ``game_value_seat{i}`` (optimal play), ``best_response_vs_seat{i}`` (the responder's, against the
    agent in seat ``i``), ``vs_optimal_game_seat{i}`` and ``vs_self_seat{i}`` (the agent's, in seat ``i``)."""
    rules, st, system = _setup(ruleset, stacks)
    tables = agent_tables(make_agent(agent), system)
    opt = solved_game(rules, st)
    game0 = opt.win_probability(*st)
    out = {"game_value_seat0": game0, "game_value_seat1": 1.0 - game0}
    for seat in (0, 1):
        fixed_a: list[np.ndarray | None] = [None, None]
        fixed_b: list[np.ndarray | None] = [None, None]
        fixed_a[seat], fixed_b[1 - seat] = tables
        u, _ = iterate(system, fixed_a, fixed_b)
        v0 = _seat0_value(system, u, st, 0)
        out[f"best_response_vs_seat{seat}"] = v0 if seat == 1 else 1.0 - v0
        out[f"seat{seat}"] = out[f"best_response_vs_seat{seat}"] - out[f"game_value_seat{1 - seat}"]
    out["average"] = (out["seat0"] + out["seat1"]) / 2
    opt_tables = agent_tables(make_agent("optimal_game"), system)
    v = _seat0_value(system, _evaluate(system, [tables, opt_tables]), st, 0)
    w = _seat0_value(system, _evaluate(system, [opt_tables, tables]), st, 0)
    out["vs_optimal_game_seat0"], out["vs_optimal_game_seat1"] = v, 1.0 - w
    s0 = _seat0_value(system, _evaluate(system, [tables, tables]), st, 0)
    out["vs_self_seat0"], out["vs_self_seat1"] = s0, 1.0 - s0
    return out


class GameBestResponse(OptimalGameAgent):
    """The exact best response in the 2-player game to a fixed agent, acting by look-up in either seat.

    Against a fixed agent that is a function of its observation, the best response's action at a state
    does not depend on which seat it sits in, so one table per role (rolling first / second) covers
    every stack state of the solve. ``value_first``/``value_second``: its win probability from the
    starting stacks rolling first / second in the first round.
    """

    name = "game_best_response"

    def __init__(self, solved: SolvedGame, value_first: float, value_second: float) -> None:
        super().__init__(use_disk=False)
        self.solved, self.value_first, self.value_second = solved, value_first, value_second

    def tables(self, ruleset: Ruleset, first: int, second: int) -> SolvedGame:
        """The fixed tables (``ValueError`` for stacks outside the solve)."""
        self.solved.pairs.row(first, second)
        return self.solved


def game_best_response(
    agent: Any, ruleset: str | Ruleset = "classic", stacks: Any = (20, 20)
) -> GameBestResponse:
    """The exact best response to ``agent`` in the 2-player game from ``stacks`` (every state reachable
    from them), found by strategy iteration against the agent's fixed tables."""
    _, st, system = _setup(ruleset, stacks)
    a_table, b_table = agent_tables(make_agent(agent), system)
    # class f = seat f rolls first; the agent sits in seat 0: it is A in class 0 and B in class 1
    u, sols = iterate(system, [a_table, None], [None, b_table])
    solved = SolvedGame(system.spec, system.pairs, u[: len(system.pairs)], sols[1].policy_a, sols[0].policy_b)
    second = 1.0 - _seat0_value(system, u, st, 0)  # the responder in seat 1, the agent rolling first
    first = 1.0 - _seat0_value(system, u, st, 1)
    return GameBestResponse(solved, first, second)
