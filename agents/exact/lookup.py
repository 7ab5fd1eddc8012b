"""Acting by table look-up: the action a solved table holds for a view or a batch of views.

Round tables (:mod:`zanzibar_env.agents.exact.round`) are read at the view's public state (position in the
order of play, lowest earlier rank and its count, the class of the highest hand or the earlier payments,
the roll limit); :class:`Dense` flattens them so that a batch look-up is a few ``take`` calls. Game
tables (:mod:`zanzibar_env.agents.exact.game_iteration`) are read at both stacks, who rolls first, the
roll, the roll limit and the earlier hand's rank. The optimal bots (:mod:`zanzibar_env.agents.optimal`) and
the best responses (:mod:`zanzibar_env.agents.exact.best_response`) act through these functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.game_iteration import SolvedGame
from zanzibar_env.agents.exact.round import Level, RoundSpec
from zanzibar_env.agents.exact.turn import NUM_MULTISETS
from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.hands import MULTISET_INDEX
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.policy_table import PolicyTable
from zanzibar_env.core.rules import Ruleset

#: The view field read under ``final_hand: best`` (RULES.md §9): rank of the best throw so far.
BEST_FIELD = "turn_best_rank"


@dataclass
class Dense:
    """Every position's policy as flat arrays, so that a batch look-up is a few ``take`` calls.

    ``row[q * num_keys + key]`` is the row of public state ``key`` at position ``q`` counted over all
    positions (``-1``: the round never reaches it); ``policy`` holds the positions' ``Level.policy``
    one after the other, flattened, ``stride`` entries per row (``[roll - 1, (best rank,) multiset]``,
    ``per_roll`` entries per roll);
    ``x_of_rank[rank + 1]`` is the state's ``x`` for a highest hand of ``rank`` (``-1``: none yet).
    """

    num_keys: int
    row: np.ndarray
    policy: np.ndarray
    stride: int
    per_roll: int
    x_of_rank: np.ndarray


def dense_tables(spec: RoundSpec, levels: list[Level]) -> Dense:
    """The :class:`Dense` look-up of solved ``levels`` (positions ``0..spec.n - 1``)."""
    keys = [levels[q].keys for q in range(spec.n)]
    num_keys = max(int(k.max()) for k in keys) + 1
    row = np.full(spec.n * num_keys, -1, np.int64)
    start = 0
    for q, k in enumerate(keys):
        row[q * num_keys + k] = start + np.arange(k.size)
        start += k.size
    policy = np.concatenate([levels[q].policy.reshape(k.size, -1) for q, k in enumerate(keys)])
    no_top = np.array([spec.no_top if spec.kind in ("highest_hand", "lives_top") else 0])
    x_of_rank = np.concatenate([no_top, spec.top_class(np.arange(spec.num_ranks))])
    per_roll = int(np.prod(levels[0].policy.shape[2:]))
    return Dense(num_keys, row, policy.ravel(), policy.shape[1], per_roll, x_of_rank.astype(np.int64))


def batch_states(spec: RoundSpec, b: ViewBatch) -> tuple[np.ndarray, np.ndarray]:
    """``(q, key)`` per row: the acting position and its public state (see :mod:`zanzibar_env.agents.exact.round`)."""
    n_act = active_counts(b)
    q = n_act - 1 - b.players_after
    lo = np.where(b.lowest_rank < 0, spec.num_ranks, b.lowest_rank)
    if spec.kind in ("highest_hand", "lives_top"):
        x = spec.top_class(b.highest_rank)
    elif spec.kind == "own_hand":
        x = b.earlier_payments
    else:
        x = np.zeros_like(lo)
    return q, spec.encode(lo, b.lowest_count, x, b.roll_limit)


def view_state(spec: RoundSpec, view: View) -> tuple[int, int]:
    """``(q, key)`` of one view, as :func:`batch_states` computes for a batch."""
    n = sum(view.active) if view.ruleset.stake == "lives" else view.num_players
    lo = view.lowest.rank if view.lowest is not None else spec.num_ranks
    if spec.kind in ("highest_hand", "lives_top"):
        x = int(spec.top_class(np.array(view.highest.rank if view.highest is not None else -1)))
    else:
        x = view.earlier_payments if spec.kind == "own_hand" else 0
    return n - 1 - view.players_after, int(spec.encode(lo, view.lowest_count, x, view.roll_limit))  # type: ignore[arg-type]  # ints: as 0-d arrays


def turn_best(spec: RoundSpec, source: View | ViewBatch) -> Any:
    """The ``turn_best_rank`` of a view (int) or batch (``int[B]``) under ``final_hand: best``, else ``None``.

    Raises ``ValueError`` if the engine that built the view does not provide the field.
    """
    if not spec.best:
        return None
    value = getattr(source, BEST_FIELD, None)
    if value is None:
        raise ValueError(
            f"final_hand 'best' needs the view field {BEST_FIELD!r} (the rank of the best throw so far)"
        )
    return value


def policy_at(spec: RoundSpec, level: Level, row: Any, rolls_used: Any, m: Any, best: Any) -> Any:
    """The tabled action(s) at state row(s) ``row`` after roll ``rolls_used`` with multiset(s) ``m``; under
    ``final_hand: best`` also indexed by the best rank so far (at least the rank of ``m``)."""
    if not spec.best:
        return level.policy[row, rolls_used - 1, m]
    return level.policy[row, rolls_used - 1, np.maximum(best, spec.rank_of_m[m]), m]


def dense_actions(spec: RoundSpec, d: Dense, batch: ViewBatch, n: int, sel: np.ndarray | None) -> np.ndarray:
    """Tabled actions ``int64`` of rows ``sel`` (``None``: all) of ``batch``, decisions at ``n`` active
    players, read from ``d`` (``ValueError`` for a position or public state the round cannot reach)."""

    def rows(a: Any) -> np.ndarray:
        return np.asarray(a) if sel is None else np.asarray(a)[sel]

    q = n - 1 - rows(batch.players_after)
    if q.min() < 0:
        raise ValueError(f"players_after out of range for {n} active players")
    lo = rows(batch.lowest_rank)
    lo = np.where(lo < 0, spec.num_ranks, lo)
    x: Any = 0  # lives: x is always 0
    if spec.kind in ("highest_hand", "lives_top"):
        x = d.x_of_rank.take(rows(batch.highest_rank) + 1)
    elif spec.kind == "own_hand":
        x = rows(batch.earlier_payments)
    key = spec.encode(lo, rows(batch.lowest_count), x, rows(batch.roll_limit))
    if key.min() < 0 or key.max() >= d.num_keys:
        row = np.where((key < 0) | (key >= d.num_keys), -1, 0)
    else:  # q is in 0..n-1: a valid index
        row = d.row.take(q * d.num_keys + key)
    if row.min() < 0:
        states = np.unique(key[row < 0])[:5].tolist()
        raise ValueError(f"unreachable public state(s) {states} for this ruleset and table")
    m = rows(batch.dice_index)
    at = row * d.stride + (rows(batch.rolls_used) - 1) * d.per_roll + m
    if spec.best:
        at += np.maximum(rows(turn_best(spec, batch)), spec.rank_of_m[m]) * NUM_MULTISETS
    return d.policy.take(at).astype(np.int64)


def active_counts(b: ViewBatch) -> np.ndarray:
    """``int64[B]``: the players still in each row's round (lives: those with lives; else all)."""
    if b.ruleset.stake == "lives":
        return np.asarray(b.active.sum(axis=1), np.int64)
    return np.asarray(b.num_players, np.int64)


# ---- 2-player game tables ----------------------------------------------------------------------------
#: The game tables covering stacks ``(first, second)`` of a ruleset (``ValueError`` outside them).
GameTables = Callable[[Ruleset, int, int], SolvedGame]


def game_action(tables: GameTables, view: View) -> int:
    """The tabled game action for one view (``ValueError`` for a view that is not a 2-player decision)."""
    if view.num_players != 2:
        raise ValueError(f"game tables hold 2-player games only, got {view.num_players} players")
    if not 1 <= view.rolls_used < view.roll_limit:
        raise ValueError(f"not a decision: roll {view.rolls_used} of {view.roll_limit}")
    own, other = view.stacks
    first, second = (own, other) if view.is_first else (other, own)
    t = tables(view.ruleset, first, second)
    row = t.pairs.row(first, second)
    m = MULTISET_INDEX[view.dice]
    if view.is_first:
        return int(t.policy_a[row, view.rolls_used - 1, m])
    if view.lowest is None:
        raise ValueError("the second roller's view has no earlier hand")
    lim = view.roll_limit - 1 if t.spec.sets_limit else 0
    return int(t.policy_b[row, view.lowest.rank, lim, view.rolls_used - 1, m])


def game_actions(tables: GameTables, batch: ViewBatch) -> np.ndarray:
    """Tabled game actions ``int64[B]``; rows that are not decisions (finished rows of a vector env) get
    ``STOP``."""
    out = np.full(len(batch), STOP, np.int64)
    live = (batch.players_after >= 0) & (batch.rolls_used >= 1) & (batch.rolls_used < batch.roll_limit)
    if (batch.num_players[live] != 2).any():
        raise ValueError("game tables hold 2-player games only")
    first = batch.is_first.astype(bool)
    own, other = batch.stacks[:, 0], batch.stacks[:, 1]
    fx, fy = np.where(first, own, other), np.where(first, other, own)
    group = fx + fy if batch.ruleset.stake == "chips" else np.maximum(fx, fy)
    for g in np.unique(group[live]):
        sel = np.flatnonzero(live & (group == g))
        t = tables(batch.ruleset, int(fx[sel[0]]), int(fy[sel[0]]))
        row, r, m = t.pairs.find(fx[sel], fy[sel]), batch.rolls_used[sel] - 1, batch.dice_index[sel]
        lim = batch.roll_limit[sel] - 1 if t.spec.sets_limit else np.zeros(len(sel), np.int64)
        rank = np.maximum(batch.lowest_rank[sel], 0)
        a = t.policy_a[row, r, m]
        b = t.policy_b[row, rank, lim, r, m]
        out[sel] = np.where(first[sel], a, b)
    return out


# ---- the round policy as arrays (array engines: the JAX env) ---------------------------------------
def dense_policy_table(name: str, by_count: dict[int, tuple[RoundSpec, Dense]]) -> PolicyTable:
    """The round policies solved for each number of active players (``{a: (spec, dense)}``) joined into
    one :class:`~zanzibar_env.core.policy_table.PolicyTable` of kind ``"dense"`` (see its docstring)."""
    specs = list(by_count.values())
    spec0, d0 = specs[0]
    row_start, num_keys, xs, policy_start = (np.zeros(9, np.int64) for _ in range(4))
    rows, policies = [], []
    at_row = at_policy = 0
    for a, (spec, d) in sorted(by_count.items()):
        if (d.stride, d.per_roll, spec.best, spec.kind) != (d0.stride, d0.per_roll, spec0.best, spec0.kind):
            raise ValueError("the tables of one ruleset differ in layout across table sizes")
        rows.append(d.row)
        policies.append(d.policy)
        row_start[a], num_keys[a], xs[a], policy_start[a] = at_row, d.num_keys, spec.xs, at_policy
        at_row += d.row.size
        at_policy += d.policy.size // d.stride
    x_kind = (
        "top"
        if spec0.kind in ("highest_hand", "lives_top")
        else "own"
        if spec0.kind == "own_hand"
        else "none"
    )
    return PolicyTable(
        kind="dense", name=name, rows=np.concatenate(rows).astype(np.int32), row_start=row_start,
        num_keys=num_keys, xs=xs, policy_start=policy_start, policy=np.concatenate(policies).astype(np.int8),
        x_of_rank=d0.x_of_rank, x_kind=x_kind, stride=d0.stride, per_roll=d0.per_roll, best=bool(spec0.best),
        num_ranks=spec0.num_ranks,
    )  # fmt: skip  # packed: one field a line is 10 lines more
