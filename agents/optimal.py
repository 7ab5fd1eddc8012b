"""The exactly round-optimal player: acts by looking up tables solved once per ruleset and table size.

Objective (see :mod:`zanzibar_env.agents.solver`): each player, in turn, maximises its own expected result for the
round (chips given away minus chips received, positive = good; in lives rulesets minus lives lost),
assuming every later player does the same (a subgame-perfect equilibrium), with exact dice
probabilities. Stack caps are ignored. Ties go to stopping, then to the lowest hold mask. Under
``final_hand: best`` (RULES.md §9) the bot also reads ``view.turn_best_rank`` (``ViewBatch.turn_best_rank``
in batches), the rank of the best throw so far this turn, and raises ``ValueError`` without it.

Tables are solved lazily on first use for each (ruleset options, number of active players), kept in
memory for the process and cached on disk in ``$ZANZIBAR_CACHE_DIR`` (default ``~/.cache/zanzibar_env``)
as ``optimal-<hash>.npz``, the hash covering the options that change play, the table size and
:data:`zanzibar_env.agents.solver.SOLVER_VERSION`. Each file carries its format and solver version, its hash and a
SHA-256 checksum of its arrays; a file that does not match is solved again and rewritten. Cache files
are read with ``allow_pickle=False``: a planted pickle is refused, never run.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.hands import MULTISET_INDEX
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import Ruleset

from zanzibar_env.agents.base import BaseAgent
from zanzibar_env.agents.solver_turn import NUM_MULTISETS
from zanzibar_env.agents.solver import (
    SOLVER_VERSION,
    Level,
    RoundSpec,
    action_values,
    load_levels,
    save_levels,
    solve,
)

#: Ruleset options that change optimal play (name, description, stacks and round caps do not).
PLAY_OPTIONS = (
    "hand_ranking",
    "one_points",
    "six_points",
    "stake",
    "max_rolls",
    "holds_allowed",
    "first_roller_sets_limit",
    "tie_rule",
    "payment",
    "payments",
    "lives_lost",
    "lives_table",
    "instant_zanzibar",
    "final_hand",
)
#: The view field the bot reads under ``final_hand: best`` (RULES.md §9): rank of the best throw so far.
BEST_FIELD = "turn_best_rank"


def default_cache_dir() -> Path:
    """``$ZANZIBAR_CACHE_DIR`` if set, else ``~/.cache/zanzibar_env``."""
    env = os.environ.get("ZANZIBAR_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "zanzibar_env"


def table_key(ruleset: Ruleset, n: int) -> str:
    """Hash naming the solved tables of ``ruleset`` at a table of ``n`` active players."""
    opts = {k: getattr(ruleset, k) for k in PLAY_OPTIONS}
    blob = json.dumps({"options": opts, "n": n, "version": SOLVER_VERSION}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


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


@dataclass
class Solved:
    """The solved tables of one ruleset and table size."""

    spec: RoundSpec
    levels: list[Level]
    _dense: Dense | None = None

    @property
    def dense(self) -> Dense:
        """The :class:`Dense` look-up of these tables (built on first use)."""
        if self._dense is None:
            self._dense = dense_tables(self.spec, self.levels)
        return self._dense


_MEMORY: dict[str, Solved] = {}  # process-wide: every agent shares solved tables


def solved_tables(ruleset: Ruleset, n: int, cache_dir: Path | None = None, use_disk: bool = True) -> Solved:
    """The tables for ``ruleset`` and ``n`` active players: from memory, from disk, or solved (then saved)."""
    key = table_key(ruleset, n)
    if key in _MEMORY:
        return _MEMORY[key]
    spec = RoundSpec.of(ruleset, n)
    path = (cache_dir or default_cache_dir()) / f"optimal-{key}.npz"
    levels: list[Level] | None = None
    if use_disk and path.exists():
        try:
            levels = load_levels(path, n, tag=key)
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
            levels = None  # a damaged, tampered or foreign cache file is re-solved and overwritten
    if levels is None:
        levels = solve(spec)
        if use_disk:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                save_levels(path, levels, tag=key)
            except OSError:
                pass  # a read-only cache only costs a re-solve next time
    _MEMORY[key] = Solved(spec, levels)
    return _MEMORY[key]


def batch_states(spec: RoundSpec, b: ViewBatch) -> tuple[np.ndarray, np.ndarray]:
    """``(q, key)`` per row: the acting position and its public state (see :mod:`zanzibar_env.agents.solver`)."""
    n_act = _active_counts(b)
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
    return n - 1 - view.players_after, int(spec.encode(lo, view.lowest_count, x, view.roll_limit))  # type: ignore[arg-type]


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


def _active_counts(b: ViewBatch) -> np.ndarray:
    if b.ruleset.stake == "lives":
        return np.asarray(b.active.sum(axis=1), np.int64)
    return np.asarray(b.num_players, np.int64)


class OptimalAgent(BaseAgent):
    """Plays the subgame-perfect round-optimal policy (see the module docstring) by table look-up.

    Args:
        seed: ignored (the policy is deterministic); accepted for the registry.
        cache_dir: where solved tables are cached (default :func:`default_cache_dir`).
        use_disk: read and write the disk cache (``False``: solve in memory only).
    """

    name = "optimal"

    def __init__(
        self, seed: int | None = None, cache_dir: str | Path | None = None, use_disk: bool = True
    ) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.use_disk = use_disk
        self._by_ruleset: dict[int, tuple[Ruleset, dict[int, Solved]]] = {}  # id(ruleset) -> tables per n

    def tables(self, ruleset: Ruleset, n: int) -> Solved:
        """Solved tables for ``ruleset`` with ``n`` active players (solving them on first use)."""
        return solved_tables(ruleset, n, self.cache_dir, self.use_disk)

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Optimal hold masks ``int64[B]`` by vectorised table look-up (:class:`Dense`).

        Rows that are not decisions (``players_after < 0`` or no roll left, as in finished rows of a
        vector env awaiting reset) get ``STOP``; a decision in a state the round cannot reach raises
        ``ValueError``.
        """
        n_act = _active_counts(batch)
        rolls = batch.rolls_used
        live = (batch.players_after >= 0) & (rolls >= 1) & (rolls < batch.roll_limit)
        if n_act.size and live.all() and (n_act == n_act[0]).all():  # the common case: one look-up
            n = int(n_act[0])
            t = self._cached(batch.ruleset, n)
            return dense_actions(t.spec, t.dense, batch, n, None)
        out = np.full(len(batch), STOP, np.int64)
        for n in np.unique(n_act[live]).tolist():
            sel = np.flatnonzero(live & (n_act == n))
            t = self._cached(batch.ruleset, n)
            out[sel] = dense_actions(t.spec, t.dense, batch, n, sel)
        return out

    def act(self, view: View) -> int:
        """Optimal hold mask for one view (a scalar fast path of :meth:`act_batch`)."""
        t = self._tables_for_view(view)
        q, key = view_state(t.spec, view)
        if not 0 <= q < t.spec.n or not 1 <= view.rolls_used < view.roll_limit:
            raise ValueError(
                f"not a decision of the round: position {q}, roll {view.rolls_used}/{view.roll_limit}"
            )
        keys = t.levels[q].keys
        row = int(np.searchsorted(keys, key))
        if row >= len(keys) or keys[row] != key:
            raise ValueError(f"unreachable public state {key} for this ruleset and table")
        m = MULTISET_INDEX[view.dice]
        return int(policy_at(t.spec, t.levels[q], row, view.rolls_used, m, turn_best(t.spec, view)))

    def _tables_for_view(self, view: View) -> Solved:
        n = sum(view.active) if view.ruleset.stake == "lives" else view.num_players
        return self._cached(view.ruleset, n)

    def _cached(self, ruleset: Ruleset, n: int) -> Solved:
        """:meth:`tables`, memoised per ruleset object (no re-hashing of the options on the hot path)."""
        entry = self._by_ruleset.get(id(ruleset))
        if entry is None or entry[0] is not ruleset:
            entry = self._by_ruleset[id(ruleset)] = (ruleset, {})
        if n not in entry[1]:
            entry[1][n] = self.tables(ruleset, n)
        return entry[1][n]

    def evaluate(self, view: View) -> dict[int, float]:
        """Expected round result (chips given minus received, or minus lives lost) of each legal action."""
        batch = ViewBatch.from_views([view])
        n = int(_active_counts(batch)[0])
        t = self.tables(view.ruleset, n)
        q, key = batch_states(t.spec, batch)
        m = int(batch.dice_index[0])
        best = turn_best(t.spec, view)
        qv = action_values(
            t.spec, t.levels, int(q[0]), int(key[0]), view.rolls_used, m, -1 if best is None else best
        )
        return {a: float(v) for a, v in enumerate(qv) if not np.isnan(v)}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_by_ruleset"] = {}  # tables live in the module-level cache, never in the pickle
        return state
