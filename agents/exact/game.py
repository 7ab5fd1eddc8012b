"""The rounds of a 2-player game, solved as one batch over stack states (used by
:mod:`zanzibar_env.agents.exact.game_iteration`).

A *game state* is the pair of stacks at the start of a round, first roller first: ``(x, y)`` = chips
(or lives) of the player rolling first (``A``) and of the other (``B``). Its *value* ``U`` is the
probability that ``A`` wins the game (a shared win, possible only in ``lives`` when both go out in the
same round from equal lives, counts one half, so the game is zero-sum). A round ends with ``A``'s hand
of rank ``rA`` and ``B``'s of rank ``rB``; :func:`round_terms` maps every ``(x, y, rA, rB)`` to the next
state (or the game's end): who loses the round is decided here (2 hands, roll-offs in expectation), the
payments, lives and the game's end come from :mod:`zanzibar_env.core.settlement` (RULES.md):

- the higher hand wins the round and rolls first next round; the lower hand receives ``min(payment,
  payer's chips)`` from the other (chips) or loses ``lives_lost`` lives;
- equal hands: the earlier roller (``A``) keeps the lead and rolls first next round; with ``rolloff``
  each loses the roll-off with probability 1/2 (the roll-off throws are i.i.d.); with ``all`` both are
  losers (chips: nobody pays; lives: both lose lives);
- an instant top hand (``instant_zanzibar``): by ``A``, nobody loses and ``A`` starts again; by ``B``,
  ``B`` starts next and nobody loses (``no_loss``) or ``A`` loses (``worst_so_far_loses``);
- chips: a player at 0 chips has won; lives: a player at 0 lives is out, the other wins; both out:
  more lives at the round's start wins, equal lives share the win.

Given values ``U`` of the next states, each state's round is a 2-stage game solved by backward induction
over rolls (:func:`zanzibar_env.agents.exact.turn.backward`): ``B`` for every ``(rA, roll limit)``, then ``A``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zanzibar_env.agents.exact.turn import NUM_MULTISETS, TurnProblem, backward, forward, turn_value
from zanzibar_env.core.kernel import chips_of_category
from zanzibar_env.core.rules import Ruleset
from zanzibar_env.core.settlement import game_winners, stacks_after, tie_outcomes

Event = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # (c, k, pair, swap), see Terms
#: Option values this solver models (a ruleset with any other value raises ValueError).
_MODELLED = {
    "stake": ("chips", "lives"),
    "payment": ("highest_hand", "own_hand", "one_life"),
    "tie_rule": ("rolloff", "all"),
    "instant_zanzibar": ("off", "no_loss", "worst_so_far_loses"),
}


@dataclass(frozen=True, eq=False)
class GameSpec:
    """What the game solver needs to know about a ruleset (2 players)."""

    ruleset: Ruleset
    chips: bool
    num_ranks: int
    rank_of_m: np.ndarray  # int[56] dense rank of each multiset (0 = worst)
    pay_of_rank: np.ndarray  # int[num_ranks] chips paid by a hand of each rank
    max_rolls: int
    holds_allowed: bool
    sets_limit: bool  # the first roller's number of rolls caps the second's
    instant: str
    lives_lost: int
    zanz_m: int  # multiset index of the top hand

    @classmethod
    def of(cls, ruleset: Ruleset) -> GameSpec:
        """The spec of ``ruleset`` (``ValueError`` for options this solver does not model)."""
        for key, values in _MODELLED.items():
            if getattr(ruleset, key) not in values:
                raise ValueError(f"the game solver does not model {key}={getattr(ruleset, key)!r}")
        t = ruleset.table
        cat_of_rank = np.zeros(t.num_ranks, np.int64)
        cat_of_rank[t.rank_of_multiset] = t.category_of_multiset
        pay_cat = np.asarray(chips_of_category(ruleset))  # Ruleset.payment_of, as every engine reads it
        return cls(
            ruleset=ruleset,
            chips=ruleset.stake == "chips",
            num_ranks=t.num_ranks,
            rank_of_m=np.asarray(t.rank_of_multiset, np.int64),
            pay_of_rank=pay_cat[cat_of_rank],
            max_rolls=ruleset.max_rolls,
            holds_allowed=ruleset.holds_allowed,
            sets_limit=ruleset.first_roller_sets_limit,
            instant=ruleset.instant_zanzibar,
            lives_lost=ruleset.lives_lost,
            zanz_m=int(np.flatnonzero(t.category_of_multiset == 0)[0]),
        )

    @property
    def num_limits(self) -> int:
        """How many roll limits the second player can face (``max_rolls`` if the first sets it, else 1)."""
        return self.max_rolls if self.sets_limit else 1

    @property
    def instant_m(self) -> int | None:
        return None if self.instant == "off" else self.zanz_m

    @property
    def rank_onehot(self) -> np.ndarray:
        """``float[56, R]``: 1 where multiset ``m`` has rank ``r``."""
        return np.eye(self.num_ranks)[self.rank_of_m]


@dataclass(frozen=True, eq=False)
class Pairs:
    """The game states ``(x, y)`` (first roller's stack, other's stack) of one solve, and their rows."""

    x: np.ndarray
    y: np.ndarray
    index: np.ndarray  # int[top + 1, top + 1]: row of (x, y), -1 if not a state

    @classmethod
    def reachable(cls, spec: GameSpec, stacks: tuple[int, int]) -> Pairs:
        """Every state a game from ``stacks`` can reach: chips, all splits of the total; lives, all
        pairs of 1..max(stacks)."""
        a, b = stacks
        if spec.chips:
            xs = np.arange(1, a + b)
            ys = a + b - xs
        else:
            m = max(a, b)
            xs, ys = (g.ravel() for g in np.meshgrid(np.arange(1, m + 1), np.arange(1, m + 1), indexing="ij"))
        top = int(max(xs.max(), ys.max()))
        index = np.full((top + 1, top + 1), -1, np.int64)
        index[xs, ys] = np.arange(len(xs))
        return cls(xs, ys, index)

    def __len__(self) -> int:
        return len(self.x)

    def row(self, x: int, y: int) -> int:
        """Row of the state ``(x, y)`` (``ValueError`` if it is not a state of this solve)."""
        top = self.index.shape[0] - 1
        row = int(self.index[x, y]) if 0 <= x <= top and 0 <= y <= top else -1
        if row < 0:
            raise ValueError(f"stacks ({x}, {y}) are not a state of this game")
        return row

    def find(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Rows of the states ``(x, y)`` (``ValueError`` if one is not a state of this solve)."""
        x, y = np.asarray(x), np.asarray(y)
        top = self.index.shape[0] - 1
        ok = (x >= 0) & (x <= top) & (y >= 0) & (y <= top)
        rows = np.where(ok, self.index[np.clip(x, 0, top), np.clip(y, 0, top)], -1)
        if (rows < 0).any():
            i = int(np.flatnonzero(rows < 0)[0])
            raise ValueError(f"stacks ({int(x.flat[i])}, {int(y.flat[i])}) are not a state of this game")
        return rows


@dataclass
class Terms:
    """Up to two weighted outcomes per ``(state, rA, rB)``, arrays ``[S, R, R, 2]``: the value to ``A`` is
    ``sum w * (c + k * U[next])``, ``next`` = state ``pair`` seen by ``A`` (``swap`` false) or by ``B``
    (``swap``: ``B`` rolls first next round, ``k = -1``, ``c = 1``); ``k = 0`` ends the game."""

    w: np.ndarray
    c: np.ndarray
    k: np.ndarray
    pair: np.ndarray
    swap: np.ndarray


def _settle(
    spec: GameSpec,
    pairs: Pairs,
    x: np.ndarray,
    y: np.ndarray,
    lose_a: bool,
    lose_b: bool,
    pay: np.ndarray,
    a_starts: bool,
) -> Event:
    """The outcome when ``A`` (``x``) and ``B`` (``y``) lose the round or not, each paying ``pay`` (``A``
    starts next or not): the stacks after it and the game's end as the engine settles them
    (:func:`zanzibar_env.core.settlement.stacks_after`, :func:`~zanzibar_env.core.settlement.game_winners`;
    a shared win counts one half)."""
    rules = spec.ruleset
    after = stacks_after(rules, [x, y], [lose_a, lose_b], [pay, pay], spec.lives_lost)
    a2, b2 = np.broadcast_arrays(*after)
    won, over = game_winners(rules, [x, y], [a2, b2], [True, True], 1)
    won_a, won_b = (np.asarray(w, np.float64) for w in won)
    value = won_a / np.maximum(won_a + won_b, 1.0)
    first, second = (a2, b2) if a_starts else (b2, a2)
    top = pairs.index.shape[0] - 1
    pair = np.where(over, 0, pairs.index[np.clip(first, 0, top), np.clip(second, 0, top)])
    assert (pair >= 0).all(), "a round led outside the solved states"
    c = np.where(over, value, 0.0 if a_starts else 1.0)
    k = np.where(over, 0.0, 1.0 if a_starts else -1.0)
    return c, k, pair, np.full(c.shape, not a_starts)


def _pick(cond: np.ndarray, e1: Event, e2: Event) -> Event:
    return tuple(np.where(cond, a, b) for a, b in zip(e1, e2, strict=True))  # type: ignore[return-value]  # four in, four out


def round_terms(spec: GameSpec, pairs: Pairs) -> Terms:
    """The outcome of every round end ``(state, rA, rB)`` (see the module docstring)."""
    r = spec.num_ranks
    x, y = pairs.x[:, None, None], pairs.y[:, None, None]
    ra, rb = np.arange(r)[None, :, None], np.arange(r)[None, None, :]
    shape = (len(pairs), r, r)
    pay_a, pay_b = spec.pay_of_rank[ra], spec.pay_of_rank[rb]
    a_wins = _settle(spec, pairs, x, y, False, True, pay_a, True)
    b_wins = _settle(spec, pairs, x, y, True, False, pay_b, False)
    first = _pick(ra > rb, a_wins, b_wins)
    second = tuple(np.zeros(shape) for _ in range(4))
    w1 = np.zeros(shape)
    tie = np.broadcast_to(ra == rb, shape)
    _, ways = tie_outcomes(spec.ruleset, 2)  # A keeps the lead either way
    if ways == 1:  # both lose (lives), or nobody pays (chips)
        first = _pick(tie, _settle(spec, pairs, x, y, True, True, pay_a, True), first)
    else:  # roll-off: B loses in one of the two equally likely ways, A in the other
        a_loses = _settle(spec, pairs, x, y, True, False, pay_a, True)
        first = _pick(tie, a_wins, first)
        second = _pick(tie, a_loses, second)  # type: ignore[arg-type]  # an Event of four arrays
        w1 = np.where(tie, 1.0 / ways, 0.0)
    if spec.instant != "off":
        top = r - 1
        nothing_a = _settle(spec, pairs, x, y, False, False, pay_a, True)
        first = _pick(np.broadcast_to(ra == top, shape), nothing_a, first)
        w1 = np.where(ra == top, 0.0, w1)
        if spec.instant == "no_loss":
            nothing_b = _settle(spec, pairs, x, y, False, False, pay_b, False)
            first = _pick(np.broadcast_to((rb == top) & (ra < top), shape), nothing_b, first)
    c, k, pair, swap = (
        np.stack([np.broadcast_to(f, shape), np.broadcast_to(s, shape)], -1)
        for f, s in zip(first, second, strict=True)
    )
    w = np.stack([1.0 - w1, w1], -1)
    return Terms(w, c, k, pair.astype(np.int64), swap.astype(bool))


@dataclass
class RoundSolution:
    """One class of states solved: ``A``'s value, both policies, and the joint law of the two hands."""

    value: np.ndarray  # float[S] value to A of the round (with U as the next states' values)
    policy_a: np.ndarray  # int8[S, max_rolls - 1, 56]
    policy_b: np.ndarray  # int8[S, R, num_limits, max_rolls - 1, 56] (by A's rank and B's roll limit)
    joint: np.ndarray  # float[S, R, R] probability that the round ends with ranks (rA, rB)
    turns: tuple[TurnProblem, list[np.ndarray], TurnProblem, list[np.ndarray]]  # A's and B's, with values


def solve_rounds(
    spec: GameSpec, g: np.ndarray, probs_a: np.ndarray | None = None, probs_b: np.ndarray | None = None
) -> RoundSolution:
    """Solve (or evaluate) the rounds of ``S`` states with end values ``g[S, rA, rB]`` to ``A``.

    ``A`` maximises and ``B`` minimises ``A``'s value, except where a fixed policy is given: ``probs_a``
    ``float[S, max_rolls - 1, 56, 8]``, ``probs_b`` ``float[S, R, num_limits, max_rolls - 1, 56, 8]``.
    """
    s, r, nl, rmax = g.shape[0], spec.num_ranks, spec.num_limits, spec.max_rolls
    limits = np.arange(1, nl + 1) if spec.sets_limit else np.array([rmax])
    stop_b = 1.0 - g[:, :, None, spec.rank_of_m]  # [S, R(rA), 1, 56] B's view
    stop_b = np.broadcast_to(stop_b, (s, r, nl, NUM_MULTISETS)).reshape(-1, 1, NUM_MULTISETS)
    inst_b = np.broadcast_to(1.0 - g[:, :, None, r - 1], (s, r, nl)).reshape(-1)
    tp_b = TurnProblem(stop_b, np.tile(limits, s * r), rmax, spec.holds_allowed, spec.instant_m, inst_b)
    pb = None if probs_b is None else probs_b.reshape(s * r * nl, *probs_b.shape[3:])
    us_b, pol_b = backward(tp_b, pb)
    vb = 1.0 - turn_value(us_b).reshape(s, r, nl)  # value to A of B's turn by (rA, limit)
    stop_a = np.moveaxis(vb[:, spec.rank_of_m, :], 2, 1)  # [S, nl, 56]
    tp_a = TurnProblem(stop_a, np.full(s, rmax), rmax, spec.holds_allowed, spec.instant_m, g[:, r - 1, 0])
    us_a, pol_a = backward(tp_a, probs_a)
    onehot = spec.rank_onehot
    dist_a = forward(tp_a, pol_a, probs_a)  # [S, rmax, 56]
    if spec.sets_limit:
        law_a = np.einsum("slm,mr->srl", dist_a, onehot)  # [S, rA, limit]
    else:
        law_a = (dist_a.sum(1) @ onehot)[:, :, None]
    law_b = (forward(tp_b, pol_b, pb).sum(1) @ onehot).reshape(s, r, nl, r)
    joint = np.einsum("sal,salb->sab", law_a, law_b)
    pol_b = pol_b.reshape(s, r, nl, *pol_b.shape[1:])
    return RoundSolution(turn_value(us_a), pol_a, pol_b, joint, (tp_a, us_a, tp_b, us_b))
