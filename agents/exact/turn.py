"""Exact dice transitions and the one-turn dynamic programme behind the optimal player.

A turn is a small Markov decision process over the 56 multisets of three dice (``hands.MULTISETS``):
after roll ``r`` (``1 <= r < limit``) the player picks a hold mask ``a`` over the sorted dice (bit ``i``
keeps die ``i``; ``7`` stops), after roll ``limit`` the turn ends.
:func:`zanzibar_env.core.kernel.transition_probs` gives the exact probabilities ``P[m, a, m']`` of
reaching multiset ``m'`` from ``m`` with mask ``a``; :func:`backward` solves (or evaluates a fixed
stochastic policy over) many turns at once, one per row ("state"), each with its own value of stopping;
:func:`forward` gives the distribution of the hand a turn ends with.

Under ``final_hand: best`` a turn's hand is its best throw (RULES.md §9): :func:`backward_best` and
:func:`forward_best` solve the same turns over (dice showing, best rank so far). Arrays are indexed
``[s, b, m]`` (``b = 0..num_ranks - 1``) and mean the state whose best rank is ``max(b, rank(m))``
(cells with ``b < rank(m)`` repeat the cell ``b = rank(m)``), so the arrival at a new throw ``m'``
after best ``b`` is simply the cell ``[b, m']``. Holds act on the dice showing. Ending the turn with
best rank ``b`` is worth ``stop[s, r, rep[b]]``, where ``rep[b]`` is one multiset of rank ``b``: equal
rank means equal hand and category, so the value of a hand depends on its rank alone. The final-hand
distribution is reported on those representatives, so the round solver
(:mod:`zanzibar_env.agents.exact.round`) reads it exactly as under ``final_hand: last``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.kernel import NUM_ACTIONS, STOP, legal_mask, transition_probs

NUM_MULTISETS = len(MULTISETS)
#: Ties between actions within this margin are broken deterministically: stop first, then lowest mask.
TIE_EPS = 1e-9
_CHUNK = 4096  # states (or (state, best) rows) per block when computing action values (bounds memory)
#: Action order used to break ties: stop first, then masks 0..6.
_TIE_ORDER = np.array([STOP, 0, 1, 2, 3, 4, 5, 6])


@dataclass
class TurnProblem:
    """Many turns at once, one per row ``s``.

    Attributes:
        stop: ``float[S, Rt, 56]`` value to the player of ending the turn with multiset ``m`` after roll ``r``
            (index ``r - 1``; ``Rt`` is 1 when it does not depend on ``r``, else ``max_rolls``).
        limit: ``int[S]`` rolls allowed in each turn (1..max_rolls).
        max_rolls: the largest limit.
        holds_allowed: whether masks 1-6 are legal.
        instant_m: multiset index of the instant Zanzibar, or ``None`` if rolled top hands do not end turns.
        instant_value: ``float[S]`` value of rolling the instant Zanzibar (ignored if ``instant_m`` is None).
    """

    stop: np.ndarray
    limit: np.ndarray
    max_rolls: int
    holds_allowed: bool
    instant_m: int | None = None
    instant_value: np.ndarray | None = None

    def stop_at(self, r: int) -> np.ndarray:
        """``float[S, 56]``: stop values after roll ``r``."""
        return self.stop[:, min(r, self.stop.shape[1]) - 1, :]


def _action_values(u_next: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """``Q[s, m, a]``: expected value of mask ``a`` on ``m``, given arrival values ``u_next[s, m']``."""
    p, _ = transition_probs()
    flat = p.transpose(2, 0, 1).reshape(NUM_MULTISETS, NUM_MULTISETS * NUM_ACTIONS)
    q = (u_next @ flat).reshape(-1, NUM_MULTISETS, NUM_ACTIONS)
    q[:, :, STOP] = stop
    return q


def choose(q: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Best legal action per row of ``q[..., 8]``; ties within :data:`TIE_EPS`: stop, then the lowest mask."""
    qo = np.where(legal[_TIE_ORDER], q[..., _TIE_ORDER], -np.inf)
    best = qo.max(axis=-1, keepdims=True)
    return _TIE_ORDER[np.argmax(qo >= best - TIE_EPS, axis=-1)]


def backward(tp: TurnProblem, probs: np.ndarray | None = None) -> tuple[list[np.ndarray], np.ndarray]:
    """Solve the turns by backward induction over rolls, or evaluate a fixed policy.

    Args:
        tp: the turns.
        probs: ``None`` to maximise the player's value, or ``float[S, max_rolls - 1, 56, 8]`` action
            probabilities after each roll (a fixed, possibly stochastic policy).

    Returns:
        ``(U, policy)``: ``U[r]`` (``r = 1..max_rolls``; ``U[0]`` unused) is ``float[S, 56]``, the value of
        arriving at ``m`` by roll ``r``; ``policy`` is ``int8[S, max_rolls - 1, 56]``, the chosen (or most
        likely) action after roll ``r`` (index ``r - 1``), ``STOP`` where there is no decision.
    """
    s, rmax = len(tp.limit), tp.max_rolls
    legal = legal_mask(tp.holds_allowed)
    policy = np.full((s, max(rmax - 1, 0), NUM_MULTISETS), STOP, np.int8)
    us: list[np.ndarray] = [np.zeros((0, NUM_MULTISETS))] * (rmax + 1)
    for r in range(rmax, 0, -1):
        stop = tp.stop_at(r)
        u = np.array(stop, dtype=np.float64, copy=True)
        rows = np.flatnonzero(tp.limit > r)
        for lo in range(0, len(rows), _CHUNK):
            idx = rows[lo : lo + _CHUNK]
            q = _action_values(us[r + 1][idx], stop[idx])
            if probs is None:
                act = choose(q, legal)
                u[idx] = np.take_along_axis(q, act[..., None], -1)[..., 0]
            else:
                pr = probs[idx, r - 1]
                act = np.argmax(pr, axis=-1)
                u[idx] = (q * pr).sum(-1)
            policy[idx, r - 1] = act
        if tp.instant_m is not None:
            assert tp.instant_value is not None
            u[:, tp.instant_m] = tp.instant_value
            if r < rmax:
                policy[:, r - 1, tp.instant_m] = STOP
        us[r] = u
    return us, policy


def forward(tp: TurnProblem, policy: np.ndarray | None, probs: np.ndarray | None = None) -> np.ndarray:
    """``D[s, r - 1, m]``: probability that turn ``s`` ends after roll ``r`` with multiset ``m`` (an instant
    Zanzibar included), under ``policy`` (``int8[S, max_rolls - 1, 56]``) or, if given, ``probs``
    (``float[S, max_rolls - 1, 56, 8]``; ``policy`` may then be ``None``)."""
    if policy is None and probs is None:
        raise ValueError("forward needs a policy or action probabilities")
    det = policy if policy is not None else np.zeros((0, 0, 0), np.int8)  # read only without probs
    p, p3 = transition_probs()
    s, rmax = len(tp.limit), tp.max_rolls
    out = np.zeros((s, rmax, NUM_MULTISETS))
    dist = np.tile(p3, (s, 1))
    for r in range(1, rmax + 1):
        if tp.instant_m is not None:
            out[:, r - 1, tp.instant_m] += dist[:, tp.instant_m]
            dist[:, tp.instant_m] = 0.0
        last = tp.limit == r
        out[last, r - 1] += dist[last]
        dec = np.flatnonzero(tp.limit > r)
        nxt = np.zeros_like(dist)
        if len(dec):
            d = dist[dec]
            for a in range(NUM_ACTIONS):
                w = d * (probs[dec, r - 1, :, a] if probs is not None else det[dec, r - 1] == a)
                if a == STOP:
                    out[dec, r - 1] += w
                elif w.any():
                    nxt[dec] += w @ p[:, a, :]
        dist = nxt
    return out


def turn_value(us: list[np.ndarray]) -> np.ndarray:
    """``float[S]``: expected value of each turn before its first roll."""
    _, p3 = transition_probs()
    return np.asarray(us[1] @ p3)


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
    """As :func:`backward`, over states ``(b, m)``.

    Args:
        tp: the turns (``stop`` indexed by multiset; only the representatives are read).
        ranks: ``int[56]`` rank of each multiset.
        probs: ``None`` to maximise, or ``float[S, max_rolls - 1, B, 56, 8]`` action probabilities
            (a fixed policy; read at the cell ``[max(b, rank(m)), m]``).

    Returns:
        ``(U, policy)``: ``U[r]`` is ``float[S, B, 56]``; ``policy`` is ``int8[S, max_rolls - 1, B, 56]``.
    """
    p, _ = transition_probs()
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
    p, p3 = transition_probs()
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
    _, p3 = transition_probs()
    return np.asarray(us[1][:, 0, :] @ p3)
