"""The exactly optimal bots: they act by looking up tables solved once per ruleset (and table size or stacks).

``optimal`` (:class:`OptimalAgent`) plays the round: each player, in turn, maximises its own expected
result for the round (chips given away minus chips received, positive = good; in lives rulesets minus
lives lost), assuming every later player does the same (a subgame-perfect equilibrium,
:mod:`zanzibar_env.agents.exact.round`), with exact dice probabilities. Stack caps are ignored. Ties go
to stopping, then to the lowest hold mask. Under ``final_hand: best`` (RULES.md §9) the bot also reads
``view.turn_best_rank`` (``ViewBatch.turn_best_rank`` in batches), the rank of the best throw so far this
turn, and raises ``ValueError`` without it.

``optimal_game`` (:class:`OptimalGameAgent`) plays the 2-player game: it maximises its probability of
winning the game (:mod:`zanzibar_env.agents.exact.game_iteration`).

Tables are solved lazily on first use, kept in memory for the process and cached on disk
(:mod:`zanzibar_env.agents.exact.cache`: ``$ZANZIBAR_CACHE_DIR``, default ``~/.cache/zanzibar_env``,
checksummed, read without unpickling).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.cache import Solved, solved_game, solved_tables
from zanzibar_env.agents.exact.game_iteration import SolvedGame, stacks_key
from zanzibar_env.agents.exact.lookup import (
    active_counts,
    batch_states,
    dense_actions,
    dense_policy_table,
    game_action,
    game_actions,
    policy_at,
    turn_best,
    view_state,
)
from zanzibar_env.agents.exact.round import action_values
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.hands import MULTISET_INDEX
from zanzibar_env.core.made_for import ruleset_claim
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.policy_table import PolicyTable
from zanzibar_env.core.rules import Ruleset


class OptimalAgent(BaseAgent):
    """Plays the subgame-perfect round-optimal policy (see the module docstring) by table look-up.

    Args:
        seed: ignored (the policy is deterministic); accepted for the registry.
        cache_dir: where solved tables are cached (default :func:`zanzibar_env.agents.exact.cache.default_cache_dir`).
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
        n_act = active_counts(batch)
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

    def policy_table(self, ruleset: Ruleset, num_players: int) -> PolicyTable:
        """The policy as arrays for array engines (the JAX env): the tables for ``num_players`` active
        players, and under ``stake: lives`` for every count from 2 up (players drop out)."""
        counts = range(2, num_players + 1) if ruleset.stake == "lives" else [num_players]
        by_count = {a: (t.spec, t.dense) for a in counts for t in [self._cached(ruleset, a)]}
        claim = {**ruleset_claim(ruleset), "num_players": list(counts)}
        return dataclasses.replace(dense_policy_table(self.name, by_count), made_for=claim)

    def act(self, view: View) -> int:
        """Optimal hold mask for one view (a scalar fast path of :meth:`act_batch`)."""
        t = self._solved_for_view(view)
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

    def _solved_for_view(self, view: View) -> Solved:
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
        n = int(active_counts(batch)[0])
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


class OptimalGameAgent(BaseAgent):
    """Plays the game-optimal policy of 2-player games (see the module docstring) by table look-up.

    The state is read from the view: both stacks (own first), who rolls first, the roll, the roll limit
    and the earlier hand's rank. Tables are solved on first use for the stack total (chips) or largest
    stack (lives) seen. Tables of more than 2 players raise ``ValueError`` (nothing exact fits there).

    Args:
        seed: ignored (the policy is deterministic); accepted for the registry.
        cache_dir: where solved tables are cached (default :func:`zanzibar_env.agents.exact.cache.default_cache_dir`).
        use_disk: read and write the disk cache (``False``: solve in memory only).
    """

    name = "optimal_game"
    table_sizes = (2,)

    def __init__(
        self, seed: int | None = None, cache_dir: str | Path | None = None, use_disk: bool = True
    ) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.use_disk = use_disk
        self._tables: dict[tuple[int, tuple[int, int]], tuple[Ruleset, SolvedGame]] = {}

    def tables(self, ruleset: Ruleset, first: int, second: int) -> SolvedGame:
        """The solved game covering stacks ``(first, second)`` (memoised per ruleset object)."""
        if (ruleset.stake == "chips" and min(first, second) < 1) or max(first, second) < 1:
            raise ValueError(f"stacks ({first}, {second}) are not a state of an unfinished game")
        key = (id(ruleset), stacks_key(ruleset, (max(first, 1), max(second, 1))))
        entry = self._tables.get(key)
        if entry is None or entry[0] is not ruleset:
            entry = self._tables[key] = (ruleset, solved_game(ruleset, key[1], self.cache_dir, self.use_disk))
        return entry[1]

    def act(self, view: View) -> int:
        """Game-optimal hold mask for one view."""
        return game_action(self.tables, view)

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Game-optimal hold masks ``int64[B]``; rows that are not decisions (finished rows of a vector env)
        get ``STOP``."""
        return game_actions(self.tables, batch)

    def win_probability(self, view: View) -> float:
        """Probability of winning the game from the stacks of ``view`` if this player rolls first or not,
        before the round starts (the value of the state, not of the decision)."""
        own, other = view.stacks
        first, second = (own, other) if view.is_first else (other, own)
        u = self.tables(view.ruleset, first, second).win_probability(first, second)
        return u if view.is_first else 1.0 - u

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_tables"] = {}  # tables live in the module-level cache, never in the pickle
        return state
