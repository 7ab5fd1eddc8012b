"""Exact dice transitions and the one-turn dynamic programme behind the optimal player.

A turn is a small Markov decision process over the 56 multisets of three dice (``hands.MULTISETS``):
after roll ``r`` (``1 <= r < limit``) the player picks a hold mask ``a`` over the sorted dice (bit ``i``
keeps die ``i``; ``7`` stops), after roll ``limit`` the turn ends. :func:`transitions` gives the exact
probabilities ``P[m, a, m']`` of reaching multiset ``m'`` from ``m`` with mask ``a``; :func:`backward`
solves (or evaluates a fixed stochastic policy over) many turns at once, one per row ("state"), each
with its own value of stopping; :func:`forward` gives the distribution of the hand a turn ends with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.kernel import NUM_ACTIONS, STOP, transition_probs
from zanzibar_env.core.kernel import legal_mask as kernel_legal_mask

NUM_MULTISETS = len(MULTISETS)
#: Ties between actions within this margin are broken deterministically: stop first, then lowest mask.
TIE_EPS = 1e-9
_CHUNK = 4096  # states per block when computing action values (bounds memory)
#: Action order used to break ties: stop first, then masks 0..6.
_TIE_ORDER = np.array([STOP, 0, 1, 2, 3, 4, 5, 6])


def transitions() -> tuple[np.ndarray, np.ndarray]:
    """``(P, p3)``: the kernel's transition probabilities (``zanzibar_env.core.kernel.transition_probs``)."""
    return transition_probs()


def legal_mask(holds_allowed: bool) -> np.ndarray:
    """``bool[8]``: the kernel's legal hold masks (:func:`zanzibar_env.core.kernel.legal_mask`)."""
    return kernel_legal_mask(holds_allowed)


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
    p, _ = transitions()
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
    p, p3 = transitions()
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
    _, p3 = transitions()
    return np.asarray(us[1] @ p3)
