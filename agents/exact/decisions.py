"""Reading an agent's policy: every decision state of a round or a game, and the agent's action
probabilities at them, from one batched query.

How an agent is read: every decision state is enumerated once and turned into one
:class:`~zanzibar_env.core.observation.ViewBatch` given to the agent in a single call
(:func:`action_probabilities`: ``action_probs_batch``, ``act_batch``, or ``act`` per view). So any agent
that is a function of its observation can be evaluated, a neural one included. An agent with
``action_probs_batch(batch) -> float[B, 8]`` is read as that stochastic policy, and
:class:`~zanzibar_env.core.bots.RandomAgent` as the uniform policy over legal actions; any
other agent is taken to be deterministic.

- **2-player round** (:func:`decision_states`, :func:`agent_policy`): the first player's dice and roll;
  the second player's dice, roll, roll limit and the first player's hand. Views carry the ruleset's
  starting stack for both seats and the earlier hand as its rank (with ``act``, a
  :class:`~zanzibar_env.core.hands.Hand` of that rank). Under ``final_hand: best`` each decision also
  has the rank of the turn's best throw so far (``turn_best_rank``, every rank at least the dice's after
  the first roll); under ``last`` that field is the rank of the dice showing.
- **n-player round at a table** (:func:`position_views`, :func:`fixed_policy`): every decision of one
  position, at the solver's public state (lowest earlier rank, its count, a highest rank of the right
  payment class, the limit) and the starting stacks.
- **2-player game** (:func:`decision_rows`, :func:`decision_batch`, :func:`agent_tables`): every decision
  of every round of every stack state the game can reach, with the true stacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.game import GameSpec, Pairs
from zanzibar_env.agents.exact.game_iteration import GameSystem
from zanzibar_env.agents.exact.lookup import BEST_FIELD
from zanzibar_env.agents.exact.round import Level, RoundSpec, enumerate_levels
from zanzibar_env.agents.exact.turn import NUM_MULTISETS
from zanzibar_env.core.bots import RandomAgent
from zanzibar_env.core.checks import is_int
from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.kernel import check_actions, legal_mask
from zanzibar_env.core.made_for import check_made_for
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import MAX_PLAYERS, Ruleset, load_ruleset

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


def decision_states(ruleset: str | Ruleset = "classic") -> DecisionStates:
    """Enumerate the decision states of a 2-player round of ``ruleset`` and their views."""
    ruleset = load_ruleset(ruleset)
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
        ViewBatch,
        best,
        ruleset=ruleset,
        dice=_DICE[m],
        rolls_used=r,
        roll_limit=np.where(second, lim[s1], spec.max_rolls),
        is_first=(~second).astype(np.int64),
        players_after=1 - q,
        lowest_rank=rank,
        lowest_count=np.where(second, k[s1], 0),
        highest_rank=rank,
        earlier_payments=np.where(second & (spec.kind == "own_hand"), x[s1], 0),
        stacks=seats * ruleset.starting_stack,
        active=seats,
        num_players=np.full(b, 2),
    )


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
        ))  # fmt: skip  # packed: one field a line is 10 lines more
    return out


def _actions(agent: Any, batch: ViewBatch, legal: np.ndarray) -> np.ndarray:
    """``int64[B]``: the agent's hold masks, by ``act_batch`` or, for an agent with only ``act(view)``
    (or whose ``act_batch`` raises ``NotImplementedError``), view by view; every answer held to the one
    action contract of the engines (:func:`~zanzibar_env.core.kernel.check_actions`: an integer legal
    hold mask, so ``6.9`` or ``"7"`` is refused as a tournament refuses it)."""
    acts: Any = None
    if callable(getattr(agent, "act_batch", None)):
        try:
            acts = agent.act_batch(batch)
        except NotImplementedError:
            acts = None
    if acts is None:
        acts = [agent.act(v) for v in batch_to_views(batch)]
        acts = np.array(acts, dtype=object if any(not is_int(a) for a in acts) else np.int64)
    acts = np.asarray(acts)
    if acts.shape != (len(batch),):
        raise ValueError(f"agent {agent!r} returned {acts.shape} actions for {len(batch)} decisions")
    return check_actions(acts, legal, who=f"agent {getattr(agent, 'name', type(agent).__name__)!r}")


def action_probabilities(agent: Any, batch: ViewBatch) -> np.ndarray:
    """``float[B, 8]``: the agent's action probabilities on every row (one batched query; see module doc).
    An agent made for other rules (:mod:`zanzibar_env.core.made_for`) is refused first."""
    legal = legal_mask(batch.ruleset.holds_allowed)
    players = int(np.max(batch.num_players)) if len(batch) else None
    check_made_for(agent, batch.ruleset, players, where="in the exact evaluation")
    if len(batch) == 0:
        return np.zeros((0, 8))
    if hasattr(agent, "action_probs_batch"):
        probs = np.asarray(agent.action_probs_batch(batch), np.float64)
    elif isinstance(agent, RandomAgent):
        probs = np.tile(legal / legal.sum(), (len(batch), 1))
    else:
        probs = np.eye(8)[_actions(agent, batch, legal)]
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


# ---- a round at a table of n players -------------------------------------------------------------
def _rank_of_class(spec: RoundSpec) -> np.ndarray:
    """``rank[x]``: a hand rank whose payment class is ``x`` (``-1`` for ``x = no_top``: no hand yet)."""
    out = np.full(spec.no_top + 1, -1, np.int64)
    classes = spec.top_class(np.arange(spec.num_ranks))
    for rank in range(spec.num_ranks):  # the lowest rank of each class
        if out[classes[rank]] < 0:
            out[classes[rank]] = rank
    return out


def position_views(
    ruleset: Ruleset, spec: RoundSpec, level: Level, q: int
) -> tuple[ViewBatch, tuple[np.ndarray, ...]]:
    """Views of every decision at position ``q`` (state row ``s``, roll ``r``, multiset ``m``) and those
    indices."""
    lo, k, x, lim = spec.decode(level.keys)
    if q == 0:
        lim = np.full(len(level.keys), spec.max_rolls)
    s, r, m = np.meshgrid(
        np.arange(len(level.keys)), np.arange(1, spec.max_rolls), np.arange(NUM_MULTISETS), indexing="ij"
    )
    ok = (r < lim[s]) & (m != (spec.instant_m if spec.instant_m is not None else -1))
    s, r, m = s[ok], r[ok], m[ok]
    b, n = len(s), spec.n
    highest = (
        _rank_of_class(spec)[x[s]]
        if spec.kind == "highest_hand"
        else np.where(lo[s] < spec.num_ranks, lo[s], -1)
    )
    seats = np.zeros((b, MAX_PLAYERS), np.int64)
    seats[:, :n] = 1
    batch = ViewBatch(
        ruleset=ruleset,
        dice=_DICE[m],
        rolls_used=r,
        roll_limit=lim[s],
        is_first=np.full(b, int(q == 0)),
        players_after=np.full(b, n - 1 - q),
        lowest_rank=np.where(lo[s] < spec.num_ranks, lo[s], -1),
        lowest_count=k[s],
        highest_rank=highest,
        earlier_payments=np.where(spec.kind == "own_hand", x[s], 0),
        stacks=seats * ruleset.starting_stack,
        active=seats,
        num_players=np.full(b, n),
    )
    return batch, (s, r, m)


def fixed_policy(agent: Any, ruleset: Ruleset, spec: RoundSpec, level: Level, q: int) -> np.ndarray:
    """``float[S_q, max_rolls - 1, 56, 8]``: the agent's action probabilities at position ``q``."""
    batch, (s, r, m) = position_views(ruleset, spec, level, q)
    table = np.zeros((len(level.keys), max(spec.max_rolls - 1, 0), NUM_MULTISETS, 8))
    table[..., 7] = 1.0
    table[s, r - 1, m] = action_probabilities(agent, batch)
    return table


# ---- the 2-player game ---------------------------------------------------------------------------
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
        ruleset=spec.ruleset,
        dice=_DICE[m],
        rolls_used=r,
        roll_limit=limit,
        is_first=(~second).astype(np.int64),
        players_after=1 - role,
        lowest_rank=rank,
        lowest_count=second.astype(np.int64),
        highest_rank=rank,
        earlier_payments=np.where(second & own_hand, spec.pay_of_rank[ra], 0),
        stacks=stacks,
        active=active,
        num_players=np.full(n, 2),
    )


def agent_tables(agent: Any, system: GameSystem) -> tuple[np.ndarray, np.ndarray]:
    """The agent's action probabilities as the first roller ``[S, max_rolls - 1, 56, 8]`` and as the second
    ``[S, R, num_limits, max_rolls - 1, 56, 8]`` (stop where there is no decision), from one batched query."""
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
