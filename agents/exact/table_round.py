"""The law of a round's outcome at a table of known bots, for one seat (chip rulesets paying by the
highest hand, roll-off ties, up to 4 players): the round layer of :mod:`zanzibar_env.agents.exact.table_game`.

Seats are numbered relative to the seat studied (0), clockwise; ``start`` is the relative seat rolling
first. A round's *outcome class* is ``(loser, category of the round's highest hand, seat holding it
first)``, flattened as ``loser * 4n + category * n + top``: it fixes the next stacks (the loser receives
the category's payment from each other seat, as far as their chips go) and the next round's first
roller. Every tuple of final ranks (``42**n`` times the first roller's roll count) is enumerated with
its probability, each bot's turn played out exactly from its own actions (:func:`turn_law`), the bots
queried at the views they would see (the lowest and highest hands so far, their count, the limit; the
starting stacks, which they must not read). A tie for the lowest hand is a roll-off: each tied seat
loses with equal probability.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.decisions import action_probabilities
from zanzibar_env.agents.exact.round import RoundSpec
from zanzibar_env.agents.exact.turn import NUM_MULTISETS, TurnProblem, backward, forward
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.kernel import NUM_ACTIONS, STOP
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import MAX_PLAYERS, Ruleset

_DICE = np.array(MULTISETS, np.int64)
MAX_TABLE = 4  # the round's rank tuples are enumerated: 42**n * max_rolls of them


def check_ruleset(ruleset: Ruleset, n: int) -> None:
    """``ValueError`` unless this module supports ``ruleset`` with ``n`` players."""
    if ruleset.stake != "chips" or ruleset.payment != "highest_hand" or ruleset.tie_rule != "rolloff":
        raise ValueError("table game play needs chips, payment highest_hand and roll-off ties")
    if ruleset.instant_zanzibar != "off" or ruleset.final_hand != "last":
        raise ValueError("table game play needs instant_zanzibar off and final_hand last")
    if not ruleset.first_roller_sets_limit:
        raise ValueError("table game play needs the first roller's roll count as everyone's limit")
    if not 2 <= n <= MAX_TABLE:
        raise ValueError(f"table game play supports 2-{MAX_TABLE} players, got {n}")


def num_classes(n: int) -> int:
    """Outcome classes of an ``n``-player round."""
    return n * 4 * n  # (loser seat, category of the top hand, seat holding it first)


def _rank_onehot(ruleset: Ruleset) -> np.ndarray:
    """``float[56, R]``: multiset -> hand rank, as a matrix (a law over multisets ``@`` it is over ranks)."""
    out = np.zeros((NUM_MULTISETS, ruleset.table.num_ranks))
    out[np.arange(NUM_MULTISETS), np.asarray(ruleset.table.rank_of_multiset)] = 1.0
    return out


def _views(ruleset: Ruleset, n: int, q: int, ctx: np.ndarray, t: int) -> ViewBatch:
    """The views of position ``q`` after roll ``t`` with every multiset, context by context."""
    b = len(ctx) * NUM_MULTISETS
    rows = np.repeat(np.arange(len(ctx)), NUM_MULTISETS)
    seats = np.zeros((b, MAX_PLAYERS), np.int64)
    seats[:, :n] = 1
    return ViewBatch(
        ruleset=ruleset,
        dice=np.tile(_DICE, (len(ctx), 1)),
        rolls_used=np.full(b, t),
        roll_limit=ctx[rows, 3],
        is_first=np.full(b, int(q == 0)),
        players_after=np.full(b, n - 1 - q),
        lowest_rank=ctx[rows, 0],
        lowest_count=ctx[rows, 1],
        highest_rank=ctx[rows, 2],
        earlier_payments=np.zeros(b, np.int64),
        stacks=seats * ruleset.starting_stack,
        active=seats,
        num_players=np.full(b, n),
    )


def turn_law(agent: Any, ruleset: Ruleset, n: int, q: int, ctx: np.ndarray) -> np.ndarray:
    """``float[C, max_rolls, R]``: probability that the agent at position ``q`` ends its turn after roll
    ``t`` (index ``t - 1``) with rank ``r``, in each context ``ctx[c] = (lowest, count, highest, limit)``
    (``-1, 0, -1`` before any hand): its action probabilities read on every decision
    (:func:`zanzibar_env.agents.exact.action_probabilities`: a deterministic bot's actions, or a stochastic bot's
    law, e.g. ``random``'s uniform one), then :func:`zanzibar_env.agents.exact.turn.forward`."""
    c, rmax = len(ctx), ruleset.max_rolls
    probs = np.zeros((c, max(rmax - 1, 0), NUM_MULTISETS, NUM_ACTIONS))
    probs[..., STOP] = 1.0
    for t in range(1, rmax):
        rows = np.flatnonzero(ctx[:, 3] > t)
        if len(rows):
            p = action_probabilities(agent, _views(ruleset, n, q, ctx[rows], t))
            probs[rows, t - 1] = p.reshape(len(rows), NUM_MULTISETS, NUM_ACTIONS)
    tp = TurnProblem(np.zeros((c, 1, NUM_MULTISETS)), ctx[:, 3], rmax, ruleset.holds_allowed)
    return forward(tp, None, probs) @ _rank_onehot(ruleset)


@dataclass
class _Tuples:
    """Prefixes of a round: ranks by position, the limit, their weight, and where the free seat stood."""

    ranks: np.ndarray  # int16[N, q]
    limit: np.ndarray  # int8[N]
    weight: np.ndarray  # float[N]
    ctx: np.ndarray  # int32[N]: the free seat's context id (-1 before it acts)


def _contexts(t: _Tuples) -> np.ndarray:
    """``int[N, 4]``: (lowest, count, highest, limit) seen by the next position."""
    if t.ranks.shape[1] == 0:
        return np.stack(
            [np.full(len(t.limit), -1), np.zeros(len(t.limit)), np.full(len(t.limit), -1), t.limit], 1
        )
    lo, hi = t.ranks.min(1), t.ranks.max(1)
    k = (t.ranks == lo[:, None]).sum(1)
    return np.stack([lo, k, hi, t.limit], 1).astype(np.int64)


def _extend(t: _Tuples, law: np.ndarray, ctx_id: np.ndarray | None) -> _Tuples:
    """Append a position whose rank follows ``law[N, R]`` (``ctx_id`` given: the free seat, weight 1)."""
    r = law.shape[1]
    w = (t.weight[:, None] * law).ravel()
    keep = np.flatnonzero(w > 0)
    row, rank = keep // r, keep % r
    ranks = np.concatenate([t.ranks[row], rank[:, None].astype(np.int16)], 1)
    ctx = t.ctx[row] if ctx_id is None else ctx_id[row]
    return _Tuples(ranks, t.limit[row], w[keep], ctx)


def _first(ruleset: Ruleset, agent: Any, n: int) -> tuple[_Tuples, np.ndarray]:
    """The first roller's (rank, roll count) with their weights; free (``agent`` None): every pair,
    weight 1, its context being the roll count it chooses (id ``limit - 1``)."""
    rmax, nr = ruleset.max_rolls, ruleset.table.num_ranks
    limits = np.arange(1, rmax + 1)
    if agent is None:
        law = np.ones(rmax * nr)
        ctx = np.stack([np.full(rmax, -1), np.zeros(rmax, np.int64), np.full(rmax, -1), limits], 1)
    else:
        law = turn_law(agent, ruleset, n, 0, np.array([[-1, 0, -1, rmax]])).ravel()
        ctx = np.zeros((0, 4), np.int64)
    keep = np.flatnonzero(law > 0)
    lim, rank = keep // nr + 1, keep % nr
    ids = (lim - 1) if agent is None else np.full(len(keep), -1)
    return _Tuples(rank[:, None].astype(np.int16), lim.astype(np.int8), law[keep], ids.astype(np.int32)), ctx


def _enumerate(ruleset: Ruleset, agents: list[Any], start: int) -> tuple[_Tuples, np.ndarray]:
    """Every rank tuple of a round started by seat ``start`` (relative seats; ``agents[0]`` is the free
    seat when it is ``None``) with its weight, and the free seat's contexts ``int[C, 4]``."""
    n, nr = len(agents), ruleset.table.num_ranks
    t, free_ctx = _first(ruleset, agents[start], n)
    for q in range(1, n):
        agent = agents[(start + q) % n]
        uniq, inv = np.unique(_contexts(t), axis=0, return_inverse=True)
        inv = inv.ravel()
        if agent is None:
            free_ctx = uniq
            t = _extend(t, np.ones((len(t.weight), nr)), inv.astype(np.int32))
        else:
            t = _extend(t, turn_law(agent, ruleset, n, q, uniq).sum(1)[inv], None)
    return t, free_ctx


def _settle(ruleset: Ruleset, t: _Tuples, start: int, n: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Outcome class without the loser (``cat * n + top seat``) and each seat's losing share, per tuple."""
    cat_of_rank = RoundSpec.of(ruleset, n).cat_of_rank
    lo, hi = t.ranks.min(1), t.ranks.max(1)
    low = t.ranks == lo[:, None]
    share = low / low.sum(1, keepdims=True)
    top_pos = np.argmax(t.ranks == hi[:, None], axis=1)
    rest = cat_of_rank[hi] * n + (start + top_pos) % n
    shares = [share[:, (j - start) % n] for j in range(n)]  # by relative seat
    return rest, shares


def round_law(ruleset: Ruleset, agents: list[Any], start: int) -> np.ndarray:
    """``float[n * 4 * n]``: law of the outcome class ``(loser, category, top) -> loser * 4n + category * n
    + top`` of a round started by relative seat ``start``, every seat played by ``agents`` (seat order)."""
    n = len(agents)
    t, _ = _enumerate(ruleset, agents, start)
    rest, shares = _settle(ruleset, t, start, n)
    out = np.zeros(num_classes(n))
    for j in range(n):
        out += np.bincount(j * 4 * n + rest, t.weight * shares[j], minlength=num_classes(n))
    return out


@dataclass
class Response:
    """The rest of the round as seat 0 sees it when relative seat ``start`` rolls first.

    ``law[c, r, class]``: law of the outcome class given the context ``ctx[c] = (lowest, count, highest,
    limit)`` it sees and the rank ``r`` it ends with; ``prior[c]``: probability of that context. Rolling
    first (``first``), the contexts are its own limits ``1..max_rolls``: the rolls it uses, its choice
    (``prior`` 1).
    """

    law: np.ndarray
    ctx: np.ndarray
    prior: np.ndarray
    first: bool


def response_law(ruleset: Ruleset, others: list[Any], start: int) -> Response:
    """:class:`Response` of seat 0 (free) against ``others`` (relative seats ``1..n-1``) in a round
    started by relative seat ``start``."""
    n, nr = len(others) + 1, ruleset.table.num_ranks
    t, ctx = _enumerate(ruleset, [None, *others], start)
    rest, shares = _settle(ruleset, t, start, n)
    pos = (0 - start) % n
    key = (t.ctx.astype(np.int64) * nr + t.ranks[:, pos]) * num_classes(n)
    size = len(ctx) * nr * num_classes(n)
    flat = np.zeros(size)
    for j in range(n):
        flat += np.bincount(key + j * 4 * n + rest, t.weight * shares[j], minlength=size)
    out = flat.reshape(len(ctx), nr, num_classes(n))
    total = out.sum(-1, keepdims=True)
    law = np.divide(out, total, out=np.zeros_like(out), where=total > 0)
    return Response(law, ctx, total[:, 0, 0], pos == 0)


def response_turns(
    ruleset: Ruleset, resp: Response, u: np.ndarray, rows: np.ndarray | None = None
) -> TurnProblem:
    """Seat 0's turns in the contexts ``rows`` (default: all) when the outcome classes are worth ``u``."""
    rank = np.asarray(ruleset.table.rank_of_multiset)
    rows = np.arange(len(resp.ctx)) if rows is None else rows
    w = resp.law[rows] @ u  # [rows, R]
    if resp.first:  # one turn; stopping after roll t sets the limit t
        return TurnProblem(
            w[:, rank][None], np.array([ruleset.max_rolls]), ruleset.max_rolls, ruleset.holds_allowed
        )
    limit = resp.ctx[rows, 3]
    return TurnProblem(w[:, rank][:, None], limit, ruleset.max_rolls, ruleset.holds_allowed)


def outcome_law(ruleset: Ruleset, resp: Response, u: np.ndarray) -> np.ndarray:
    """``float[classes]``: the round's outcome law when seat 0 maximises the expected ``u`` of the class."""
    tp = response_turns(ruleset, resp, u)
    _, policy = backward(tp)
    ends = forward(tp, policy)  # [rows, roll, 56]
    onehot = _rank_onehot(ruleset)
    if resp.first:
        by_rank = ends[0] @ onehot  # [limit, R]
        return np.einsum("cr,crk->k", by_rank, resp.law)
    by_rank = ends.sum(1) @ onehot  # [C, R]
    return np.einsum("c,cr,crk->k", resp.prior, by_rank, resp.law)
