"""Game-optimal play for 3 players (chip rulesets paying by the highest hand, roll-off ties): a study.

Each player maximises its own probability of winning the game (a shared win, several players reaching 0
chips in the same round, is split equally), assuming the others do the same: a subgame-perfect
equilibrium found by value iteration over the stack states ``(x, y, z)`` (first, second, third roller;
the total is conserved), each round solved by backward induction over the three turns and their rolls
with the next states' win-probability vectors as payoffs. Indifferences are broken as in
:mod:`zanzibar_env.agents.exact.turn`: an action within ``TIE_EPS`` of the best, stop first, then the lowest mask;
the chosen action fixes the other players' values too. A round ends as the engine settles it
(:mod:`zanzibar_env.core.settlement`): the lowest hand receives ``min(payment of the highest hand's
category, payer's chips)`` from each other player; a tie for lowest is a roll-off (each tied player
loses with equal probability); the highest hand (the earliest among equal ones) rolls first next round.

The cost grows with the number of states (``(T - 1)(T - 2) / 2`` for a total of ``T`` chips) times the
``R**2 * max_rolls`` public states of the third roller, times the sweeps; ``python -m
benchmarks.game_solver3_speed`` measures it (see the README for what fits in 10 minutes).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from zanzibar_env.agents.exact.turn import NUM_MULTISETS, choose
from zanzibar_env.core.hands import FACES, MULTISET_INDEX, MULTISETS
from zanzibar_env.core.kernel import chips_of_category, legal_mask, transition_probs
from zanzibar_env.core.rules import Ruleset
from zanzibar_env.core.settlement import chip_amounts, game_winners, pay_chips

TOL = 1e-12


def _kept_law() -> tuple[np.ndarray, np.ndarray]:
    """``(K, kept_of)``: ``K[k, m']`` = law of the dice after re-throwing all but kept sub-multiset ``k``;
    ``kept_of[m, a]`` = index ``k`` that mask ``a < 7`` keeps of multiset ``m``."""
    kept: dict[tuple[int, ...], int] = {}
    kept_of = np.zeros((NUM_MULTISETS, 7), np.int64)
    for m, dice in enumerate(MULTISETS):
        for a in range(7):
            kept_of[m, a] = kept.setdefault(tuple(d for i, d in enumerate(dice) if a >> i & 1), len(kept))
    law = np.zeros((len(kept), NUM_MULTISETS))
    for k, held in enumerate(kept):
        n = 3 - len(held)
        for new in itertools.product(FACES, repeat=n):
            law[k, MULTISET_INDEX[tuple(sorted(held + new))]] += 6.0**-n
    return law, kept_of


@dataclass
class Game3:
    """States, outcome tables and the solution of a 3-player game of ``total`` chips."""

    ruleset: Ruleset
    total: int
    states: np.ndarray  # int[S, 3] stacks of (first, second, third)
    outcome: np.ndarray  # int[R, R, R] outcome class of the three final ranks
    value: np.ndarray  # float[S, 3] win probabilities (first, second, third)
    sweeps: int = 0


def make_game3(ruleset: Ruleset, total: int) -> Game3:
    """The states of a 3-player game with ``total`` chips (``ValueError`` on unsupported rules)."""
    if ruleset.stake != "chips" or ruleset.payment != "highest_hand" or ruleset.tie_rule != "rolloff":
        raise ValueError("the 3-player game solver needs chips, payment highest_hand and roll-off ties")
    if ruleset.instant_zanzibar != "off" or not ruleset.first_roller_sets_limit:
        raise ValueError("the 3-player game solver needs instant_zanzibar off and the first roller's limit")
    if total < 3:
        raise ValueError(f"3 players need at least 3 chips in total, got {total}")
    states = np.array([(x, y, total - x - y) for x in range(1, total) for y in range(1, total - x)])
    r = ruleset.table.num_ranks
    ra, rb, rc = np.meshgrid(np.arange(r), np.arange(r), np.arange(r), indexing="ij")
    ranks = np.stack([ra, rb, rc], -1)
    lo, hi = ranks.min(-1, keepdims=True), ranks.max(-1)
    low_mask = ((ranks == lo) * np.array([1, 2, 4])).sum(-1)  # 1..7: who shares the lowest hand
    first_hi = np.argmax(ranks == hi[..., None], axis=-1)  # earliest holder of the highest hand
    cat = _cat_of_rank(ruleset)[hi]
    outcome = (low_mask * 4 + cat) * 3 + first_hi
    return Game3(ruleset, total, states, outcome, np.full((len(states), 3), 1 / 3))


def _cat_of_rank(ruleset: Ruleset) -> np.ndarray:
    t = ruleset.table
    out = np.zeros(t.num_ranks, np.int64)
    out[t.rank_of_multiset] = t.category_of_multiset
    return out


def outcome_values(game: Game3, value: np.ndarray | None = None) -> np.ndarray:
    """``float[S, 8 * 4 * 3, 3]``: value vector of each outcome class (loser set, category, next starter)
    when the states are worth ``value`` (default ``game.value``): the stacks after the round and the
    game's end from :mod:`zanzibar_env.core.settlement`; a roll-off's losers are equally likely."""
    rules, st = game.ruleset, game.states
    value = game.value if value is None else value
    index = {tuple(s): i for i, s in enumerate(st.tolist())}
    before, chips = list(st.T), chips_of_category(rules)
    by_loser = np.zeros((len(st), 3, 4, 3, 3))  # [S, loser, category, starter, player]
    for loser, c in itertools.product(range(3), range(4)):
        losers = [p == loser for p in range(3)]
        after = np.stack(pay_chips(before, losers, chip_amounts(rules, chips, [c] * 3, c)), 1)
        won, ended = game_winners(rules, before, list(after.T), [True] * 3, 1)
        over = np.broadcast_to(ended, (len(st),))  # (a row array; a Python bool where no seat ends it)
        shares = np.stack(won, 1)
        for i, h in itertools.product(range(len(st)), range(3)):
            if over[i]:
                by_loser[i, loser, c, h] = shares[i] / shares[i].sum()
            else:
                by_loser[i, loser, c, h] = np.roll(value[index[tuple(np.roll(after[i], -h).tolist())]], h)
    out = np.zeros((len(st), 8, 4, 3, 3))
    for mask in range(1, 8):
        losers_of = [p for p in range(3) if mask >> p & 1]
        out[:, mask] = by_loser[:, losers_of].mean(1)
    return out.reshape(len(st), 96, 3)


def _turn(
    stop: np.ndarray, limits: np.ndarray, me: int, holds: bool, fixed: np.ndarray | None = None
) -> np.ndarray:
    """Value vectors ``float[N, 3]`` of turns (rows) before the first roll: ``stop[N, Rt, 56, 3]`` by roll
    (``Rt`` 1 or max_rolls), ``limits[N]``; player ``me`` maximises its component, or plays the actions
    ``fixed[N, max_rolls - 1, 56]`` (after roll ``r``: index ``r - 1``) when given."""
    law, kept_of = _kept_law_cached()
    _, p3 = transition_probs()
    rmax = int(limits.max())
    legal = legal_mask(holds)
    u = stop[:, min(rmax, stop.shape[1]) - 1].copy()
    for r in range(rmax - 1, 0, -1):
        sr = stop[:, min(r, stop.shape[1]) - 1]
        rows = np.flatnonzero(limits > r)
        n = len(rows)
        flat = u[rows].transpose(1, 0, 2).reshape(NUM_MULTISETS, n * 3)
        ek = (law @ flat).reshape(len(law), n, 3).transpose(1, 0, 2)  # [n, kept, 3]: value after a hold
        q = np.concatenate([ek[:, kept_of, me], sr[rows, :, me, None]], axis=2)  # [n, 56, 8], 7 = stop
        act = choose(q, legal) if fixed is None else fixed[rows, r - 1].astype(np.int64)
        held = ek[np.arange(n)[:, None], kept_of[np.arange(NUM_MULTISETS), np.minimum(act, 6)]]
        new = sr.copy()
        new[rows] = np.where((act == 7)[..., None], sr[rows], held)
        u = new
    return (p3 @ u.transpose(1, 0, 2).reshape(NUM_MULTISETS, -1)).reshape(-1, 3)


_KEPT: tuple[np.ndarray, np.ndarray] | None = None


def _kept_law_cached() -> tuple[np.ndarray, np.ndarray]:
    global _KEPT
    if _KEPT is None:
        _KEPT = _kept_law()
    return _KEPT


def round_values(
    rules: Ruleset, end: np.ndarray, me: tuple[int, int, int], fixed: tuple[np.ndarray | None, ...]
) -> np.ndarray:
    """``float[3]``: the value vector of a round before the first roll, solved backwards over its three
    turns: ``end[R, R, R, 3]`` is the value vector by the three final ranks; position ``q``'s player
    maximises component ``me[q]``, or plays the actions ``fixed[q]`` (rows as the turns are ordered here:
    one; by (first's rank, limit); by (first's rank, second's rank, limit))."""
    rank_of_m = np.asarray(rules.table.rank_of_multiset)
    r, rmax, holds = rules.table.num_ranks, rules.max_rolls, rules.holds_allowed
    lims = np.arange(1, rmax + 1)
    stop_c = np.broadcast_to(end[:, :, None, rank_of_m][:, :, :, None], (r, r, rmax, 1, NUM_MULTISETS, 3))
    vc = _turn(stop_c.reshape(-1, 1, NUM_MULTISETS, 3), np.tile(lims, r * r), me[2], holds, fixed[2])
    vc = vc.reshape(r, r, rmax, 3)  # by (rA, rB, limit)
    stop_b = np.moveaxis(vc[:, rank_of_m], 1, 2)[:, :, None]  # [rA, limit, 1, 56, 3]
    vb = _turn(stop_b.reshape(-1, 1, NUM_MULTISETS, 3), np.tile(lims, r), me[1], holds, fixed[1])
    stop_a = np.moveaxis(vb.reshape(r, rmax, 3)[rank_of_m], 1, 0)[None]  # [1, limit, 56, 3]
    return _turn(stop_a, np.array([rmax]), me[0], holds, fixed[0])[0]


def bellman_update(game: Game3) -> np.ndarray:
    """One Bellman update: every state's round solved with the current values; returns the new values."""
    ov = outcome_values(game)
    out = np.zeros((len(game.states), 3))
    for i in range(len(game.states)):
        out[i] = round_values(game.ruleset, ov[i][game.outcome], (0, 1, 2), (None, None, None))
    return out


def solve_game3(ruleset: Ruleset, total: int, max_sweeps: int = 10_000) -> Game3:
    """Value iteration to ``TOL`` (``RuntimeError`` if ``max_sweeps`` are not enough)."""
    game = make_game3(ruleset, total)
    for k in range(1, max_sweeps + 1):
        new = bellman_update(game)
        change = float(np.abs(new - game.value).max())
        game.value, game.sweeps = new, k
        if change < TOL:
            return game
    raise RuntimeError(f"value iteration did not reach {TOL} in {max_sweeps} sweeps")
