"""Exact evaluation of 2-player rounds: values of any agents, exact best responses, exploitability.

Values are expected round results per seat (seat 0 rolls first): chips given away minus chips
received (positive = good; zero-sum in chip rulesets), or minus lives lost in lives rulesets, with
exact dice probabilities and stack caps ignored (as in :mod:`zanzibar_env.agents.solver`).

How an agent is read: every decision state of the 2-player round is enumerated once (the first
player's dice and roll; the second player's dice, roll, roll limit and the first player's hand), turned
into one :class:`~zanzibar_env.core.observation.ViewBatch` and given to ``agent.act_batch`` in a single call
(agents without a batched policy get ``act`` per state). So any agent that is a function of its
observation can be evaluated, a neural one included. Views carry the ruleset's starting stack for both
seats and the earlier hand as its rank (with ``act``, a :class:`~zanzibar_env.core.hands.Hand` of that rank).
Under ``final_hand: best`` each decision also has the rank of the turn's best throw so far
(``turn_best_rank``, every rank at least the dice's after the first roll); under ``last`` that field
is the rank of the dice showing.
An agent with ``action_probs_batch(batch) -> float[B, 8]`` is read as that stochastic policy, and
:class:`~zanzibar_env.agents.random_agent.RandomAgent` as the uniform policy over legal actions; any other agent is
taken to be deterministic.

Exploitability of an agent sitting in seat ``i``: the value a best response in the other seat earns
against it, minus that seat's value when both seats play :class:`~zanzibar_env.agents.optimal.OptimalAgent` (the
subgame-perfect equilibrium); ``average`` is the mean over the two seats. In chip rulesets the round is
zero-sum and this is never negative; the optimal agent's exploitability is 0. Lives rounds are not
zero-sum (under ``tie_rule: all`` both players can lose a life), so an agent whose play also costs the
other seat lives can score slightly below 0 there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import MAX_PLAYERS, Ruleset, load_ruleset

from zanzibar_env.agents.base import BaseAgent
from zanzibar_env.agents.optimal import BEST_FIELD, dense_actions, dense_tables
from zanzibar_env.agents.random_agent import RandomAgent
from zanzibar_env.agents.registry import make_agent
from zanzibar_env.agents.solver import Level, RoundSpec, enumerate_levels, seat_values, solve
from zanzibar_env.agents.solver_turn import NUM_MULTISETS, legal_mask

_DICE = np.array(MULTISETS, np.int64)  # [56, 3] sorted faces of each multiset


@dataclass
class DecisionStates:
    """Every decision of a 2-player round: position ``q``, state row ``s`` in ``levels[q]``, roll ``r``,
    dice ``m`` and, under ``final_hand: best``, the best rank ``b`` so far (else the rank of ``m``; one row
    of ``batch`` each)."""

    spec: RoundSpec
    levels: list[Level]
    q: np.ndarray
    s: np.ndarray
    r: np.ndarray
    m: np.ndarray
    batch: ViewBatch
    b: np.ndarray


def decision_states(ruleset: Ruleset) -> DecisionStates:
    """Enumerate the decision states of a 2-player round of ``ruleset`` and their views."""
    spec = RoundSpec.of(ruleset, 2)
    levels = enumerate_levels(spec)
    parts: list[tuple[np.ndarray, ...]] = []
    bests = np.arange(spec.num_ranks if spec.best else 1)
    for q in (0, 1):
        lim = spec.decode(levels[q].keys)[3] if q else np.array([spec.max_rolls])
        s, r, m, b = np.meshgrid(
            np.arange(len(lim)), np.arange(1, spec.max_rolls), np.arange(NUM_MULTISETS), bests, indexing="ij"
        )
        ok = (r < lim[s]) & (m != (spec.instant_m if spec.instant_m is not None else -1))
        if spec.best:  # the best so far is at least the dice showing, and is them after the first roll
            ok &= ((b > spec.rank_of_m[m]) & (r > 1)) | (b == spec.rank_of_m[m])
        else:
            b = spec.rank_of_m[m]
        parts.append((np.full(ok.sum(), q), s[ok], r[ok], m[ok], b[ok]))
    cq, cs, cr, cm, cb = (np.concatenate(cols) for cols in zip(*parts, strict=True))
    batch = _views(ruleset, spec, levels, cq, cs, cr, cm, cb)
    return DecisionStates(spec, levels, cq, cs, cr, cm, batch, cb)


def _with_best(cls: type, best: Any, **fields: Any) -> Any:
    """``cls(**fields)`` carrying ``turn_best_rank`` (RULES.md §9), a field of ``View`` and ``ViewBatch``."""
    return cls(**fields, **{BEST_FIELD: best})


def _views(
    ruleset: Ruleset,
    spec: RoundSpec,
    levels: list[Level],
    q: np.ndarray,
    s: np.ndarray,
    r: np.ndarray,
    m: np.ndarray,
    best: np.ndarray,
) -> ViewBatch:
    """The batch of views of the decision states (both seats hold the starting stack; ``best``: the rank of
    the turn's best throw so far under ``final_hand: best``, else of the dice showing)."""
    b = len(q)
    lo, k, x, lim = spec.decode(levels[1].keys)
    second = q == 1
    s1 = np.where(second, s, 0)
    rank = np.where(second, lo[s1], -1)
    seats = np.zeros((b, MAX_PLAYERS), np.int64)
    seats[:, :2] = 1
    return _with_best(
        ViewBatch, best, ruleset=ruleset, dice=_DICE[m],
        rolls_used=r, roll_limit=np.where(second, lim[s1], spec.max_rolls),
        is_first=(~second).astype(np.int64), players_after=1 - q, lowest_rank=rank,
        lowest_count=np.where(second, k[s1], 0), highest_rank=rank,
        earlier_payments=np.where(second & (spec.kind == "own_hand"), x[s1], 0),
        stacks=seats * ruleset.starting_stack, active=seats, num_players=np.full(b, 2),
    )  # fmt: skip


def batch_to_views(batch: ViewBatch) -> list[View]:
    """The :class:`View` of each row of a 2-player decision batch (earlier hands as a hand of that rank)."""
    table = batch.ruleset.table
    best = getattr(batch, BEST_FIELD, None)
    best = table.rank_of_multiset[batch.dice_index] if best is None else np.asarray(best)
    out = []
    for i in range(len(batch)):
        lo = int(batch.lowest_rank[i])
        hand = table.hand_of_rank(lo) if lo >= 0 else None
        a, b2, c = (int(v) for v in batch.dice[i])
        n = int(batch.num_players[i])
        out.append(_with_best(
            View, int(best[i]), ruleset=batch.ruleset, seat=int(1 - batch.is_first[i]), num_players=n,
            dice=(a, b2, c),
            rolls_used=int(batch.rolls_used[i]), roll_limit=int(batch.roll_limit[i]),
            is_first=bool(batch.is_first[i]), players_after=int(batch.players_after[i]), lowest=hand,
            lowest_count=int(batch.lowest_count[i]), highest=hand,
            earlier_payments=int(batch.earlier_payments[i]),
            stacks=tuple(int(v) for v in batch.stacks[i, :n]),
            active=tuple(bool(v) for v in batch.active[i, :n]),
        ))  # fmt: skip
    return out


def action_probabilities(agent: Any, batch: ViewBatch) -> np.ndarray:
    """``float[B, 8]``: the agent's action probabilities on every row (one batched query; see module doc)."""
    legal = legal_mask(batch.ruleset.holds_allowed)
    if len(batch) == 0:
        return np.zeros((0, 8))
    if hasattr(agent, "action_probs_batch"):
        probs = np.asarray(agent.action_probs_batch(batch), np.float64)
    elif isinstance(agent, RandomAgent):
        probs = np.tile(legal / legal.sum(), (len(batch), 1))
    else:
        try:
            acts = np.asarray(agent.act_batch(batch))
        except NotImplementedError:
            acts = np.array([agent.act(v) for v in batch_to_views(batch)])
        acts = acts.astype(np.int64).reshape(-1)
        if acts.shape != (len(batch),) or acts.min() < 0 or acts.max() > STOP:
            raise ValueError(
                f"agent {agent!r} returned actions outside 0-7 or of the wrong shape {acts.shape}"
            )
        probs = np.eye(8)[acts]
    if probs.shape != (len(batch), 8) or not np.allclose(probs.sum(1), 1.0) or (probs < 0).any():
        raise ValueError(f"agent {agent!r} gave invalid action probabilities of shape {probs.shape}")
    if (probs[:, ~legal] > 0).any():
        raise ValueError(
            f"agent {agent!r} chose illegal hold masks (legal: {np.flatnonzero(legal).tolist()})"
        )
    return probs


def agent_policy(agent: Any, ds: DecisionStates) -> dict[int, np.ndarray]:
    """The agent's policy at both positions, ``q -> float[S_q, max_rolls - 1, 56, 8]`` (stop where there
    is no decision)."""
    probs = action_probabilities(agent, ds.batch)
    out = {}
    best = (ds.spec.num_ranks,) if ds.spec.best else ()
    for q in (0, 1):
        table = np.zeros((len(ds.levels[q].keys), max(ds.spec.max_rolls - 1, 0), *best, NUM_MULTISETS, 8))
        table[..., STOP] = 1.0
        sel = ds.q == q
        cell = (ds.s[sel], ds.r[sel] - 1, *((ds.b[sel],) if best else ()), ds.m[sel])
        table[cell] = probs[sel]
        out[q] = table
    return out


def _setup(ruleset: str | Ruleset | dict[str, Any]) -> DecisionStates:
    return decision_states(load_ruleset(ruleset))


def round_value(
    agent_first: Any, agent_second: Any, ruleset: str | Ruleset = "classic"
) -> tuple[float, float]:
    """Exact expected round results ``(first, second)``: ``agent_first`` rolls first, ``agent_second`` second.

    Agents may be objects or names for :func:`zanzibar_env.agents.registry.make_agent`.
    """
    ds = _setup(ruleset)
    first = agent_policy(make_agent(agent_first), ds)[0]
    second = agent_policy(make_agent(agent_second), ds)[1]
    v = seat_values(ds.spec, solve(ds.spec, fixed={0: first, 1: second}))
    return float(v[0]), float(v[1])


class BestResponse(BaseAgent):
    """The exact best response, sitting in ``seat``, to a fixed agent in the other seat of a 2-player round.

    Attributes:
        seat: 0 (rolls first) or 1.
        value: the best response's expected round result.
        agent_value: the fixed agent's expected round result against it.
    """

    name = "best_response"

    def __init__(
        self, seat: int, value: float, agent_value: float, spec: RoundSpec, levels: list[Level]
    ) -> None:
        self.seat, self.value, self.agent_value = seat, value, agent_value
        self._spec, self._levels = spec, levels
        self._dense = dense_tables(spec, levels)

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Hold masks for decisions of a 2-player round of this ruleset: the best response in its own seat;
        in the other seat, the fixed agent's most likely action (so the pair replays the evaluated match)."""
        if (batch.num_players != 2).any():
            raise ValueError("a best response plays 2-player rounds only")
        return dense_actions(self._spec, self._dense, batch, 2, None)

    def act(self, view: View) -> int:
        return int(self.act_batch(ViewBatch.from_views([view]))[0])


def best_response(agent: Any, ruleset: str | Ruleset = "classic", seat: int = 1) -> BestResponse:
    """The exact best response in ``seat`` (0 = rolls first) to ``agent`` sitting in the other seat."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 (rolls first) or 1, got {seat!r}")
    ds = _setup(ruleset)
    fixed = {1 - seat: agent_policy(make_agent(agent), ds)[1 - seat]}
    levels = solve(ds.spec, fixed=fixed)
    v = seat_values(ds.spec, levels)
    return BestResponse(seat, float(v[seat]), float(v[1 - seat]), ds.spec, levels)


def exploitability(agent: Any, ruleset: str | Ruleset = "classic") -> dict[str, float]:
    """Exploitability of ``agent`` per seat it sits in (``seat0``, ``seat1``) and averaged (``average``; see
    the module docstring), with the values behind it: ``game_value_seat{i}``, ``best_response_vs_seat{i}``
    (the responder's value against the agent in seat ``i``), and the agent's values in seat ``i`` against
    optimal (``vs_optimal_seat{i}``) and against itself (``vs_self_seat{i}``)."""
    ds = _setup(ruleset)
    pol = agent_policy(make_agent(agent), ds)
    opt_levels = solve(ds.spec)
    opt = {q: np.eye(8)[opt_levels[q].policy.astype(np.int64)] for q in (0, 1)}
    game = seat_values(ds.spec, opt_levels)
    br_vs0 = seat_values(ds.spec, solve(ds.spec, fixed={0: pol[0]}))  # agent first, responder second
    br_vs1 = seat_values(ds.spec, solve(ds.spec, fixed={1: pol[1]}))  # agent second, responder first
    self_play = seat_values(ds.spec, solve(ds.spec, fixed=pol))
    out = {
        "seat0": float(br_vs0[1] - game[1]),
        "seat1": float(br_vs1[0] - game[0]),
        "game_value_seat0": float(game[0]),
        "game_value_seat1": float(game[1]),
        "best_response_vs_seat0": float(br_vs0[1]),
        "best_response_vs_seat1": float(br_vs1[0]),
        "vs_self_seat0": float(self_play[0]),
        "vs_self_seat1": float(self_play[1]),
    }
    out["average"] = (out["seat0"] + out["seat1"]) / 2
    opt_second = seat_values(ds.spec, solve(ds.spec, fixed={0: pol[0], 1: opt[1]}))
    opt_first = seat_values(ds.spec, solve(ds.spec, fixed={0: opt[0], 1: pol[1]}))
    out["vs_optimal_seat0"], out["vs_optimal_seat1"] = float(opt_second[0]), float(opt_first[1])
    return out


# Game-level evaluation (2 players, win probabilities): implemented in zanzibar_env.agents.game_eval.
from zanzibar_env.agents.game_eval import game_exploitability, game_win_probability  # noqa: E402

__all__ = ["best_response", "exploitability", "game_exploitability", "game_win_probability", "round_value"]
