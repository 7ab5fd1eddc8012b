"""The one-turn dynamic programme under ``final_hand: best``: a turn's hand is its best throw (RULES.md §9).

The state after roll ``r`` is the dice showing, multiset ``m``, and the rank ``b`` of the best throw so
far this turn. Arrays are indexed ``[s, b, m]`` (``b = 0..num_ranks - 1``) and mean the state whose best
rank is ``max(b, rank(m))`` (cells with ``b < rank(m)`` repeat the cell ``b = rank(m)``), so the arrival
at a new throw ``m'`` after best ``b`` is simply the cell ``[b, m']``. Holds act on the dice showing.

Ending the turn with best rank ``b`` is worth ``stop[s, r, rep[b]]``, where ``rep[b]`` is one multiset of
rank ``b``: equal rank means equal hand and category, so the value of a hand depends on its rank
alone. The final-hand distribution is reported on those representatives, so the rest of the solver
(:mod:`zanzibar_env.agents.solver`) reads it exactly as under ``final_hand: last``.
"""

from __future__ import annotations

import numpy as np

from zanzibar_env.core.engine import NUM_ACTIONS, STOP

from zanzibar_env.agents.solver_turn import NUM_MULTISETS, TurnProblem, choose, legal_mask, transitions

_CHUNK = 4096  # (state, best) rows per block when computing action values (bounds memory)


def best_of(ranks: np.ndarray) -> np.ndarray:
    """``int[B, 56]``: the best rank after a throw of ``m`` when the best before was ``b``."""
    nb = int(ranks.max()) + 1
    return np.maximum(np.arange(nb)[:, None], ranks[None, :])


def representatives(ranks: np.ndarray) -> np.ndarray:
    """``int[B]``: the first multiset of each rank."""
    return np.array([int(np.flatnonzero(ranks == b)[0]) for b in range(int(ranks.max()) + 1)])


def backward_best(
    tp: TurnProblem, ranks: np.ndarray, probs: np.ndarray | None = None
) -> tuple[list[np.ndarray], np.ndarray]:
    """As :func:`zanzibar_env.agents.solver_turn.backward`, over states ``(b, m)``.

    Args:
        tp: the turns (``stop`` indexed by multiset; only the representatives are read).
        ranks: ``int[56]`` rank of each multiset.
        probs: ``None`` to maximise, or ``float[S, max_rolls - 1, B, 56, 8]`` action probabilities
            (a fixed policy; read at the cell ``[max(b, rank(m)), m]``).

    Returns:
        ``(U, policy)``: ``U[r]`` is ``float[S, B, 56]``; ``policy`` is ``int8[S, max_rolls - 1, B, 56]``.
    """
    p, _ = transitions()
    flat = p.transpose(2, 0, 1).reshape(NUM_MULTISETS, NUM_MULTISETS * NUM_ACTIONS)
    s, rmax = len(tp.limit), tp.max_rolls
    eff, rep = best_of(ranks), representatives(ranks)
    nb, cols = eff.shape[0], np.arange(NUM_MULTISETS)[None, :]
    legal = legal_mask(tp.holds_allowed)
    policy = np.full((s, max(rmax - 1, 0), nb, NUM_MULTISETS), STOP, np.int8)
    us: list[np.ndarray] = [np.zeros((0, nb, NUM_MULTISETS))] * (rmax + 1)
    for r in range(rmax, 0, -1):
        stop = tp.stop_at(r)[:, rep][:, eff]  # [S, B, 56]: value of ending with best rank eff[b, m]
        u = stop.copy()
        rows = np.flatnonzero(tp.limit > r)
        step = max(1, _CHUNK // nb)
        for lo in range(0, len(rows), step):
            idx = rows[lo : lo + step]
            x = (us[r + 1][idx].reshape(-1, NUM_MULTISETS) @ flat).reshape(len(idx), nb, NUM_MULTISETS, -1)
            q = x[:, eff, cols, :]  # Q[s, b, m, a] = X[s, max(b, rank m), m, a]
            q[..., STOP] = stop[idx]
            if probs is None:
                act = choose(q, legal)
                u[idx] = np.take_along_axis(q, act[..., None], -1)[..., 0]
            else:
                pr = probs[idx, r - 1][:, eff, cols, :]
                act = np.argmax(pr, axis=-1)
                u[idx] = (q * pr).sum(-1)
            policy[idx, r - 1] = act
        if tp.instant_m is not None:
            assert tp.instant_value is not None
            u[:, :, tp.instant_m] = tp.instant_value[:, None]
            if r < rmax:
                policy[:, r - 1, :, tp.instant_m] = STOP
        us[r] = u
    return us, policy


def forward_best(
    tp: TurnProblem, ranks: np.ndarray, policy: np.ndarray, probs: np.ndarray | None = None
) -> np.ndarray:
    """``D[s, r - 1, m]``: probability that turn ``s`` ends after roll ``r`` with best hand ``m`` (a
    representative multiset of its rank; an instant Zanzibar included), under ``policy`` or ``probs``."""
    p, p3 = transitions()
    s, rmax = len(tp.limit), tp.max_rolls
    eff, rep = best_of(ranks), representatives(ranks)
    nb, cols = eff.shape[0], np.arange(NUM_MULTISETS)
    lower = np.arange(nb)[:, None] < ranks[None, :]  # cells that are not the state's own best rank
    out = np.zeros((s, rmax, NUM_MULTISETS))
    dist = np.zeros((s, nb, NUM_MULTISETS))
    dist[:, ranks, cols] = p3  # the first throw: its best is itself
    for r in range(1, rmax + 1):
        if tp.instant_m is not None:
            out[:, r - 1, tp.instant_m] += dist[:, :, tp.instant_m].sum(1)
            dist[:, :, tp.instant_m] = 0.0
        ending = np.zeros((s, nb))  # mass ending now, by best rank
        last = tp.limit == r
        ending[last] += dist[last].sum(2)
        dec = np.flatnonzero(tp.limit > r)
        nxt = np.zeros_like(dist)
        if len(dec):
            d = dist[dec]
            for a in range(NUM_ACTIONS):
                w = d * (probs[dec, r - 1, :, :, a] if probs is not None else policy[dec, r - 1] == a)
                if a == STOP:
                    ending[dec] += w.sum(2)
                elif w.any():
                    nxt[dec] += w @ p[:, a, :]
        moved = np.where(lower, nxt, 0.0).sum(1)  # a new throw better than the best so far becomes it
        nxt = np.where(lower, 0.0, nxt)
        nxt[:, ranks, cols] += moved
        out[:, r - 1, rep] += ending
        dist = nxt
    return out


def turn_value_best(us: list[np.ndarray]) -> np.ndarray:
    """``float[S]``: expected value of each turn before its first roll (no best yet: ``b = 0``)."""
    _, p3 = transitions()
    return np.asarray(us[1][:, 0, :] @ p3)
