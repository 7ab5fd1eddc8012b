"""Exact round-optimal play: backward induction over the seats of one round (a subgame-perfect equilibrium).

Objective
---------
Each player, in turn, maximises its own expected result for the round, assuming every later player
does the same, with exact dice probabilities. The result of a player is "chips given away minus chips
received" in chip rulesets (positive = good; the loser *receives* chips, which is bad) and "minus
lives lost" in lives rulesets. Stack caps (a payer holding fewer chips than it owes) are ignored. Ties
between actions are broken deterministically (stop first, then the lowest mask; see
:data:`zanzibar_env.agents.exact.turn.TIE_EPS`), so the policy is a function of the view.

Method
------
The seats still to roll are positions ``q = 0..n-1`` (``n`` = active players). What earlier players did
matters to later ones only through a *public state* ``(lo, k, x, L)``: the rank of the lowest earlier
hand ``lo`` (``num_ranks`` = none yet), how many share it ``k``, ``x`` = the class of the highest hand
so far (``highest_hand`` payments: its category; ``lives_by_highest_hand``: its run of ranks costing
the same lives; ``no_top`` = none yet) or the sum of earlier own-hand payments (``own_hand``; 0 for
``one_life``), and the roll limit ``L``. ``penalty`` rounds are solved as lives rounds where nobody is
out; under ``final_hand: best`` each turn is solved over (dice, best rank so far) by
:mod:`zanzibar_env.agents.exact.turn`. For each position the reachable states are enumerated forward; then,
backward from the settlement, three value tables summarise the round's future for any *earlier*
("tracked") player: ``wlow[s]`` if it is among the lowest, else ``wa[s] + wb[s] * own_payment``.
Player ``q``'s value of ending its turn with hand ``m`` is read from the tables of ``q + 1`` at the
successor state; its turn is solved by backward induction over rolls (:mod:`zanzibar_env.agents.exact.turn`),
vectorised over states; the distribution of its final hand then gives the tables of ``q``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from zanzibar_env.agents.exact.turn import (
    NUM_MULTISETS,
    TurnProblem,
    backward,
    backward_best,
    best_of,
    forward,
    forward_best,
    representatives,
    turn_value,
    turn_value_best,
)
from zanzibar_env.core.kernel import chips_of_category, legal_mask, transition_probs
from zanzibar_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset
from zanzibar_env.core.settlement import tie_outcomes

#: Bump when the tables' meaning or layout changes (invalidates disk caches).
SOLVER_VERSION = 2
NO_CATEGORY = 4  # x when no earlier hand exists (highest_hand): worse than every category index 0..3
#: Solver kind of each ruleset payment.
_KINDS = {
    "highest_hand": "highest_hand",
    "own_hand": "own_hand",
    "one_life": "lives",
    "lives_by_highest_hand": "lives_top",
}
_BY_TOP = ("highest_hand", "lives_top")  # kinds whose settlement reads the class of the round's top hand


def top_classes(ruleset: Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """``(cls_of_rank, lives)`` under ``lives_by_highest_hand``: ranks split into runs costing the same
    lives, numbered from the top hand down (class 0 holds the Zanzibar), and the lives of each run."""
    per_rank = ruleset.lives_by_rank
    cls_of_rank = np.zeros(len(per_rank), np.int64)
    lives: list[int] = []
    for rank in range(len(per_rank) - 1, -1, -1):
        if not lives or per_rank[rank] != lives[-1]:
            lives.append(per_rank[rank])
        cls_of_rank[rank] = len(lives) - 1
    return cls_of_rank, np.array(lives, np.int64)


@dataclass(frozen=True, eq=False)
class RoundSpec:
    """What the solver needs to know about a ruleset at a table of ``n`` active players."""

    n: int
    kind: str  # "highest_hand", "own_hand", "lives" (one_life) or "lives_top" (lives_by_highest_hand)
    ruleset: Ruleset
    instant: str  # "off", "no_loss", "worst_so_far_loses"
    max_rolls: int
    holds_allowed: bool
    first_sets_limit: bool
    lives_lost: int
    num_ranks: int
    rank_of_m: np.ndarray  # int[56]
    cat_of_m: np.ndarray  # int[56], index into the table's categories (0 = zanzibar, the best)
    cat_of_rank: np.ndarray  # int[num_ranks]
    pay_cat: np.ndarray  # int[4], chips paid by a hand of each category
    zanz_m: int  # multiset index of the top hand
    xs: int  # number of values of x
    best: bool = False  # final_hand "best": a turn's hand is its best throw
    cls_of_m: np.ndarray | None = None  # int[56], class of each multiset as the top hand (0 = best)
    pay_cls: np.ndarray | None = None  # chips (highest_hand) or lives (lives_top) by the top hand's class
    no_top: int = NO_CATEGORY  # x before any hand (highest_hand, lives_top): worse than every class

    @classmethod
    def of(cls, ruleset: Ruleset, n: int) -> RoundSpec:
        """The spec of ``ruleset`` with ``n`` active players (``ValueError`` on a bad ``n`` or unsupported
        rules)."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ValueError(f"num_players must be an integer {MIN_PLAYERS}-{MAX_PLAYERS}, got {n!r}")
        kind = _KINDS[ruleset.payment]
        t = ruleset.table
        cat_of_rank = np.zeros(t.num_ranks, np.int64)
        cat_of_rank[t.rank_of_multiset] = t.category_of_multiset
        pay = np.asarray(chips_of_category(ruleset))  # Ruleset.payment_of, as every engine reads it
        cls_of_rank, pay_cls = top_classes(ruleset) if kind == "lives_top" else (cat_of_rank, pay)
        no_top = len(pay_cls)
        xs = no_top + 1 if kind in _BY_TOP else int(pay.max()) * n + 1 if kind == "own_hand" else 1
        return cls(
            n=int(n),
            kind=kind,
            ruleset=ruleset,
            instant=ruleset.instant_zanzibar,
            max_rolls=ruleset.max_rolls,
            holds_allowed=ruleset.holds_allowed,
            first_sets_limit=ruleset.first_roller_sets_limit,
            lives_lost=ruleset.lives_lost,
            num_ranks=t.num_ranks,
            rank_of_m=np.asarray(t.rank_of_multiset),
            cat_of_m=np.asarray(t.category_of_multiset),
            cat_of_rank=cat_of_rank,
            pay_cat=pay,
            zanz_m=int(np.flatnonzero(t.category_of_multiset == 0)[0]),
            xs=xs,
            best=ruleset.final_hand == "best",
            cls_of_m=cls_of_rank[t.rank_of_multiset],
            pay_cls=pay_cls,
            no_top=no_top,
        )

    @property
    def instant_m(self) -> int | None:
        return None if self.instant == "off" else self.zanz_m

    def encode(self, lo: np.ndarray, k: np.ndarray, x: np.ndarray, lim: np.ndarray) -> np.ndarray:
        """Integer key of public states (sortable; one per state)."""
        return ((np.asarray(lo) * (MAX_PLAYERS + 1) + k) * self.xs + x) * 8 + lim

    def decode(self, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(lo, k, x, L)`` of state keys."""
        rest, lim = np.divmod(key, 8)
        rest, x = np.divmod(rest, self.xs)
        lo, k = np.divmod(rest, MAX_PLAYERS + 1)
        return lo, k, x, lim

    def top_class(self, rank: np.ndarray) -> np.ndarray:
        """``x`` of a highest hand of rank ``rank`` (``-1``: no hand yet, ``x = no_top``)."""
        assert self.cls_of_m is not None
        cls_of_rank = np.zeros(self.num_ranks, np.int64)
        cls_of_rank[self.rank_of_m] = self.cls_of_m
        return np.where(np.asarray(rank) < 0, self.no_top, cls_of_rank[np.maximum(rank, 0)])

    def start_key(self) -> np.ndarray:
        """The key of the state before the first player (no earlier hands, limit ``max_rolls``)."""
        x0 = self.no_top if self.kind in _BY_TOP else 0
        return self.encode(
            np.array([self.num_ranks]), np.array([0]), np.array([x0]), np.array([self.max_rolls])
        )


def successor_keys(spec: RoundSpec, q: int, key: np.ndarray) -> np.ndarray:
    """``int[S, Rt, 56]``: key after player ``q`` ends its turn with multiset ``m`` after roll ``r``
    (``-1`` for an instant Zanzibar). ``Rt = max_rolls`` for the first player when it sets the limit,
    else 1."""
    lo, k, x, lim = (a[:, None, None] for a in spec.decode(key))
    rt = spec.max_rolls if q == 0 and spec.first_sets_limit else 1
    r = np.arange(1, rt + 1)[None, :, None]
    rank, cat = spec.rank_of_m[None, None, :], spec.cat_of_m[None, None, :]
    k2 = np.where(rank < lo, 1, np.where(rank == lo, k + 1, k))
    if spec.kind in _BY_TOP:
        assert spec.cls_of_m is not None
        x2 = np.minimum(x, spec.cls_of_m[None, None, :])
    elif spec.kind == "own_hand":
        x2 = x + spec.pay_cat[cat]
    else:
        x2 = x + 0 * cat
    lim2 = r if rt > 1 else lim
    out = spec.encode(np.minimum(lo, rank), k2, x2, lim2 + 0 * rank)
    if spec.instant_m is not None:
        out[:, :, spec.instant_m] = -1
    return np.broadcast_to(out, (len(key), rt, NUM_MULTISETS)).copy()


def lookup(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Row of each wanted key in the sorted ``keys`` (``-1`` where wanted is ``-1``; ``ValueError`` if
    a key is absent)."""
    wanted = np.asarray(wanted)
    idx = np.searchsorted(keys, wanted).clip(0, max(len(keys) - 1, 0))
    ok = (keys[idx] == wanted) | (wanted < 0)
    if not ok.all():
        raise ValueError(
            f"unreachable public state(s) {np.unique(wanted[~ok])[:5].tolist()} for this ruleset and table"
        )
    return np.where(wanted < 0, -1, idx)


def settle(spec: RoundSpec, key: np.ndarray, top: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(wlow, wa, wb)`` at the end of the round in state ``key`` for a tracked player: ``wlow`` if it holds
    the lowest hand, else ``wa + wb * own_payment``. ``top``: the round ended by an instant Zanzibar under
    ``worst_so_far_loses`` (``x`` is then the Zanzibar's category).

    The ``k`` seats tied for lowest settle as ``settlement.tie_outcomes`` says: ``ways`` equally likely
    outcomes of ``m`` losers each, the tracked tied seat the loser in one; a loser receives from every
    non-loser its payment (prices from ``kernel.chips_of_category``), or loses its lives."""
    lo, k, x, _ = spec.decode(key)
    n, kf = spec.n, k.astype(np.float64)
    m, ways = tie_outcomes(spec.ruleset, kf)
    zero = np.zeros(len(key))
    if spec.kind in ("lives", "lives_top"):  # each loser loses the lives of the top hand's class (x)
        assert spec.pay_cls is not None
        lives = (
            spec.pay_cls[0 if top else np.minimum(x, spec.no_top - 1)] if spec.kind == "lives_top" else None
        )
        lost = float(spec.lives_lost) if lives is None else lives.astype(np.float64)
        return -lost * (1.0 / ways), zero, zero
    if spec.kind == "highest_hand":  # every payer pays the top hand's price
        pay = spec.pay_cat[0 if top else x].astype(np.float64) + zero
        return (-(n - m) * pay + (ways - 1) * m * pay) / ways, m * pay, zero
    plo = spec.pay_cat[spec.cat_of_rank[lo]].astype(np.float64)  # every payer pays its own hand's price
    total = x.astype(np.float64)
    return (-(total - m * plo) + (ways - 1) * m * plo) / ways, zero, m + zero


def instant_tracked(spec: RoundSpec, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tracked-player values when the player to move in state ``key`` rolls an instant Zanzibar."""
    if spec.instant == "worst_so_far_loses":
        return settle(spec, key, top=True)
    z = np.zeros(len(key))
    return z, z, z


def instant_self(spec: RoundSpec, key: np.ndarray) -> np.ndarray:
    """Value to the player to move in state ``key`` of rolling an instant Zanzibar itself."""
    _, k, _, _ = spec.decode(key)
    if spec.instant != "worst_so_far_loses" or spec.kind != "highest_hand":
        return np.zeros(len(key))
    losers, _ = tie_outcomes(spec.ruleset, k.astype(np.float64))
    return np.where(k > 0, losers * spec.pay_cat[0], 0.0)


@dataclass
class Level:
    """Tables of one position ``q``: its states and, for ``q >= 1``, the tracked-player values."""

    keys: np.ndarray  # sorted state keys
    wlow: np.ndarray = field(default_factory=lambda: np.zeros(0))
    wa: np.ndarray = field(default_factory=lambda: np.zeros(0))
    wb: np.ndarray = field(default_factory=lambda: np.zeros(0))
    policy: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), np.int8))  # [S, max_rolls-1, 56]
    value: np.ndarray = field(default_factory=lambda: np.zeros(0))  # player q's expected result per state
    nxt: np.ndarray | None = None  # [S, Rt, 56] row of the successor state in level q+1 (-1: instant)
    dist: np.ndarray | None = None  # [S, max_rolls, 56] final-hand distribution of player q


def enumerate_levels(spec: RoundSpec) -> list[Level]:
    """Reachable public states before each position ``q = 0..n`` (``n``: after the last player)."""
    levels = [Level(keys=spec.start_key())]
    for q in range(spec.n):
        succ = successor_keys(spec, q, levels[q].keys)
        uniq, inv = np.unique(succ[succ >= 0], return_inverse=True)
        nxt = np.full(succ.shape, -1, np.int64)
        nxt[succ >= 0] = inv
        levels[q].nxt = nxt
        levels.append(Level(keys=uniq))
    return levels


def position_turns(spec: RoundSpec, q: int, key: np.ndarray, nxt: np.ndarray, after: Level) -> TurnProblem:
    """Player ``q``'s turns in states ``key``; ``nxt`` = successor rows in ``after`` (level ``q + 1``)."""
    lo = spec.decode(key)[0][:, None, None]
    j = np.maximum(nxt, 0)
    own = after.wa[j] + after.wb[j] * spec.pay_cat[spec.cat_of_m][None, None, :]
    stop = np.where(spec.rank_of_m[None, None, :] <= lo, after.wlow[j], own)
    lim = spec.decode(key)[3] if q > 0 else np.full(len(key), spec.max_rolls)
    return TurnProblem(stop, lim, spec.max_rolls, spec.holds_allowed, spec.instant_m, instant_self(spec, key))


def tracked_tables(spec: RoundSpec, lv: Level, dist: np.ndarray, after: Level) -> None:
    """Fill ``lv.wlow/wa/wb`` (``q >= 1``) from player ``q``'s final-hand distribution ``dist[s, m]``."""
    assert lv.nxt is not None
    nxt = lv.nxt[:, 0, :]
    valid, j = nxt >= 0, np.maximum(nxt, 0)
    lo = spec.decode(lv.keys)[0]
    plo = spec.pay_cat[spec.cat_of_rank[np.minimum(lo, spec.num_ranks - 1)]][:, None]
    lower = spec.rank_of_m[None, :] < lo[:, None]
    iw, ia, ib = instant_tracked(spec, lv.keys)
    vlow = np.where(valid, np.where(lower, after.wa[j] + after.wb[j] * plo, after.wlow[j]), iw[:, None])
    va = np.where(valid, after.wa[j], ia[:, None])
    vb = np.where(valid, after.wb[j], ib[:, None])
    lv.wlow, lv.wa, lv.wb = (dist * vlow).sum(1), (dist * va).sum(1), (dist * vb).sum(1)


def solve(spec: RoundSpec, fixed: dict[int, np.ndarray] | None = None) -> list[Level]:
    """Solve the round: every position maximises its own value, except positions in ``fixed``
    (``q -> float[S_q, max_rolls - 1, 56, 8]`` action probabilities), which play that policy."""
    fixed = fixed or {}
    levels = enumerate_levels(spec)
    last = levels[spec.n]
    last.wlow, last.wa, last.wb = settle(spec, last.keys)
    for q in range(spec.n - 1, -1, -1):
        lv = levels[q]
        assert lv.nxt is not None
        tp = position_turns(spec, q, lv.keys, lv.nxt, levels[q + 1])
        lv.value, lv.policy, lv.dist = solve_turns(spec, tp, fixed.get(q))
        if q > 0:
            tracked_tables(spec, lv, lv.dist.sum(1), levels[q + 1])
    return levels


def solve_turns(
    spec: RoundSpec, tp: TurnProblem, probs: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(value, policy, dist)`` of the turns ``tp``: solved, or evaluated under ``probs`` (see
    :func:`zanzibar_env.agents.exact.turn.backward`). Under ``final_hand: best`` the policy has an axis for the best
    rank so far: ``[S, max_rolls - 1, num_ranks, 56]`` instead of ``[S, max_rolls - 1, 56]``."""
    if spec.best:
        us, policy = backward_best(tp, spec.rank_of_m, probs)
        return turn_value_best(us), policy, forward_best(tp, spec.rank_of_m, policy, probs)
    us, policy = backward(tp, probs)
    return turn_value(us), policy, forward(tp, policy, probs)


def seat_values(spec: RoundSpec, levels: list[Level]) -> np.ndarray:
    """``float[n]``: expected round result of each position (0 = rolls first) under the solved policies.

    Positions after an instant Zanzibar do not roll; under ``worst_so_far_loses`` they still pay the
    loser(s) for the Zanzibar, which is added here (it changes nobody's decisions).
    """
    prob: np.ndarray = np.ones(1)
    out = np.zeros(spec.n)
    for q in range(spec.n):
        lv = levels[q]
        assert lv.nxt is not None and lv.dist is not None
        out[q] += prob @ lv.value
        if spec.instant_m is not None:
            ended = prob @ (lv.dist[:, :, spec.instant_m].sum(1) * instant_self(spec, lv.keys))
            out[q + 1 :] += ended
        d = lv.dist if lv.nxt.shape[1] > 1 else lv.dist.sum(1, keepdims=True)
        w = prob[:, None, None] * d
        ok = lv.nxt >= 0
        prob = np.bincount(lv.nxt[ok], weights=w[ok], minlength=len(levels[q + 1].keys))
    return out


def action_values(
    spec: RoundSpec, levels: list[Level], q: int, key: int, r: int, m: int, best: int = -1
) -> np.ndarray:
    """``float[8]``: player ``q``'s expected round result of each action after roll ``r`` with multiset ``m``
    in state ``key`` (``nan`` for illegal actions), recomputed from the tables of position ``q + 1``.
    ``best``: the rank of the best throw so far this turn (read under ``final_hand: best`` only)."""
    keys = np.array([key], np.int64)
    nxt = lookup(levels[q + 1].keys, successor_keys(spec, q, keys))
    tp = position_turns(spec, q, keys, nxt, levels[q + 1])
    if not 1 <= r < int(tp.limit[0]):
        raise ValueError(f"no decision after roll {r} with a limit of {int(tp.limit[0])} rolls")
    p, _ = transition_probs()
    if spec.best:
        b = int(best_of(spec.rank_of_m)[max(best, 0), m])
        us, _ = backward_best(tp, spec.rank_of_m)
        qv = p[m] @ us[r + 1][0, b]
        qv[7] = tp.stop_at(r)[0, representatives(spec.rank_of_m)[b]]
    else:
        us, _ = backward(tp)
        qv = p[m] @ us[r + 1][0]
        qv[7] = tp.stop_at(r)[0, m]
    if spec.instant_m == m:
        qv[:] = np.nan
    qv[~legal_mask(spec.holds_allowed)] = np.nan
    return qv
