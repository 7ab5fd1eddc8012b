"""Hand-written baselines that play as different kinds of people would.

* :class:`GreedyAgent` ("greedy") - a player who only looks at their own dice, one roll ahead.
* :class:`ThresholdAgent` ("threshold") - a player who stops as soon as the hand "looks good enough".
* :class:`EscapeAgent` ("escape") - a careful player who knows the hand to beat and the rolls left.

Each policy is a table built once per ruleset from the shared hand table (exact dice probabilities,
no simulation) and indexed by a few integer features of the view. :meth:`act` computes the features
of one :class:`~zanzibar_env.View`, :meth:`act_batch` of a whole
:class:`~zanzibar_env.core.observation.ViewBatch` with numpy, and both read the same table, so they give
identical actions. Without holds (``holds_allowed: false``) only 0 (re-throw all) and 7 (stop) are
ever chosen. The agents are deterministic and picklable.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.hands import MULTISET_INDEX, MULTISETS, HandTable
from zanzibar_env.core.kernel import legal_mask, transition_probs
from zanzibar_env.core.made_for import ruleset_claim
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.policy_table import PolicyTable
from zanzibar_env.core.rules import Ruleset
from zanzibar_env.core.settlement import tie_outcomes

_N = len(MULTISETS)  # 56 multisets of three sorted dice
_TIE_TOL = 1e-12


@lru_cache(maxsize=1)
def transitions() -> np.ndarray:
    """``T[mask, i, j]``: probability that holding ``mask`` of sorted dice ``MULTISETS[i]`` and re-throwing
    the rest gives ``MULTISETS[j]`` (the kernel's table, mask first; mask 7 is the identity)."""
    t = np.ascontiguousarray(transition_probs()[0].transpose(1, 0, 2))
    t.setflags(write=False)
    return t


def legal_masks(ruleset: Ruleset) -> np.ndarray:
    """The legal hold masks (kernel): all eight, or only re-throw all (0) and stop (7) without holds."""
    return np.flatnonzero(legal_mask(ruleset.holds_allowed))


def throw_quantile(table: HandTable) -> np.ndarray:
    """``q[i]``: share of the 216 equally likely throws that rank strictly below the hand ``MULTISETS[i]``."""
    ranks = table.rank_of_throw
    return np.array([(ranks < r).mean() for r in table.rank_of_multiset])


def _choose(values: np.ndarray, tiebreak: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Per column, the legal mask with the highest value; ties go to stop (7), then the higher
    ``tiebreak``, then the lower mask. ``values``/``tiebreak`` are ``[8, ...]``."""
    v = values[masks]
    best = v.max(axis=0)
    tied = v >= best - _TIE_TOL
    key = np.where(
        tied, tiebreak[masks] + np.where(masks == STOP, 1e6, 0.0).reshape(-1, *[1] * (v.ndim - 1)), -np.inf
    )
    return masks[np.argmax(key, axis=0)].astype(np.int64)


def _expected_rank(table: HandTable) -> np.ndarray:
    """``E[mask, i]``: expected rank after holding ``mask`` of ``MULTISETS[i]`` and re-throwing once."""
    return transitions() @ table.rank_of_multiset.astype(np.float64)


def _dice_index(view: View) -> int:
    return MULTISET_INDEX[view.dice]


class _PrecomputedAgent(BaseAgent):
    """Shared plumbing: the actions per state as an array, built lazily per ruleset and cached by its options."""

    def __init__(self, seed: int | None = None) -> None:
        self._built: dict[str, np.ndarray] = {}
        self._last: tuple[Ruleset, np.ndarray] | None = None  # fast path: the same ruleset object again

    def _actions(self, ruleset: Ruleset) -> np.ndarray:
        if self._last is not None and self._last[0] is ruleset:
            return self._last[1]
        key = repr(sorted(ruleset.to_dict().items()))
        if key not in self._built:
            self._built[key] = self._build(ruleset)
        self._last = (ruleset, self._built[key])
        return self._last[1]

    def _build(self, ruleset: Ruleset) -> np.ndarray:
        raise NotImplementedError

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_built"], state["_last"] = {}, None  # rebuilt on demand after unpickling
        return state


class GreedyAgent(_PrecomputedAgent):
    """Greedy: looks only at its own dice and one roll ahead. It holds whatever dice make the expected
    rank of its next hand highest and re-throws the rest, so it keeps throwing until standing pat is
    better on average than any re-throw, whoever it has to beat and however many rolls are left."""

    name = "greedy"

    def _build(self, ruleset: Ruleset) -> np.ndarray:
        exp = _expected_rank(ruleset.table)
        return _choose(exp, np.zeros_like(exp), legal_masks(ruleset))  # [56]

    def act(self, view: View) -> int:
        return int(self._actions(view.ruleset)[_dice_index(view)])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return self._actions(batch.ruleset)[batch.dice_index]

    def policy_table(self, ruleset: Ruleset, num_players: int) -> PolicyTable:
        """The policy as arrays for array engines (the JAX env): the action by multiset."""
        return PolicyTable(
            kind="features",
            name=self.name,
            made_for=ruleset_claim(ruleset),
            actions=self._actions(ruleset).astype(np.int8),
            ms_stride=1,
        )


def _quantile(name: str, value: object) -> float:
    """``value`` as a float rank quantile in [0, 1], or ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a rank quantile in [0, 1], got {value!r}")
    return float(value)


class ThresholdAgent(_PrecomputedAgent):
    """Threshold: a satisficer. It stops as soon as its hand beats at least ``bar`` of all single throws
    (a rank quantile, default 0.7); otherwise it holds the dice that give the best chance of clearing
    the bar with the next throw (ties: higher expected rank)."""

    name = "threshold"

    def __init__(self, seed: int | None = None, bar: float = 0.7) -> None:
        super().__init__(seed)
        self.bar = _quantile("threshold bar", bar)

    def _build(self, ruleset: Ruleset) -> np.ndarray:
        table = ruleset.table
        clears = (throw_quantile(table) >= self.bar).astype(np.float64)  # [56]
        p_clear = transitions() @ clears  # [8, 56]; mask 7 gives clears itself
        return _choose(p_clear, _expected_rank(table), legal_masks(ruleset))

    def act(self, view: View) -> int:
        return int(self._actions(view.ruleset)[_dice_index(view)])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return self._actions(batch.ruleset)[batch.dice_index]

    def policy_table(self, ruleset: Ruleset, num_players: int) -> PolicyTable:
        """The policy as arrays for array engines (the JAX env): the action by multiset."""
        return PolicyTable(
            kind="features",
            name=self.name,
            made_for=ruleset_claim(ruleset),
            actions=self._actions(ruleset).astype(np.int8),
            ms_stride=1,
        )

    def __repr__(self) -> str:
        return f"ThresholdAgent(bar={self.bar})"


class EscapeAgent(_PrecomputedAgent):
    """Escape: knows the lowest hand so far (the one it must beat not to lose the round) and the rolls
    it has left, and holds the dice that maximise its exact chance of finishing above that hand
    (a tie counts 1/2 under roll-offs, 0 when all tied players lose). It stops as soon as standing pat
    is as safe as any re-throw (always, once it is above the lowest hand). Rolling first, with no
    hand to beat, it plays the same way towards a hand beating ``first_bar`` of all single throws."""

    name = "escape"

    def __init__(self, seed: int | None = None, first_bar: float = 0.7) -> None:
        super().__init__(seed)
        self.first_bar = _quantile("escape first_bar", first_bar)

    def _build(self, ruleset: Ruleset) -> np.ndarray:
        """``table[target, rolls_left, i]`` with target 0 = rolling first, else lowest rank + 1."""
        table = ruleset.table
        ranks = table.rank_of_multiset
        _, ways = tie_outcomes(ruleset, 2)
        tie = (ways - 1) / ways  # a two-way tie for lowest escapes in all ways but one
        first = (throw_quantile(table) >= self.first_bar).astype(np.float64)
        beat = [(ranks > t) + tie * (ranks == t) for t in range(table.num_ranks)]
        final = np.stack([first, *beat]).astype(np.float64).T  # [56, targets]: success if stopping now
        trans, exp, masks = transitions(), _expected_rank(table), legal_masks(ruleset)
        out = np.full((table.num_ranks + 1, ruleset.max_rolls + 1, _N), STOP, np.int64)
        value = final  # chance of success with 0 re-throws left
        for k in range(1, ruleset.max_rolls + 1):
            q = np.einsum("mij,jt->mit", trans, value)  # [8, 56, targets]; mask 7 = stop now
            q[STOP] = final
            out[:, k, :] = _choose(q, np.broadcast_to(exp[:, :, None], q.shape), masks).T
            value = q[masks].max(axis=0)
        return out

    def act(self, view: View) -> int:
        target = 0 if view.lowest is None else view.lowest.rank + 1
        left = min(max(view.roll_limit - view.rolls_used, 0), view.ruleset.max_rolls)
        return int(self._actions(view.ruleset)[target, left, _dice_index(view)])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        left = np.clip(batch.roll_limit - batch.rolls_used, 0, batch.ruleset.max_rolls)
        return self._actions(batch.ruleset)[batch.lowest_rank + 1, left, batch.dice_index]

    def policy_table(self, ruleset: Ruleset, num_players: int) -> PolicyTable:
        """The policy as arrays for array engines (the JAX env): by lowest rank + 1, rolls left, multiset."""
        t = self._actions(ruleset)
        return PolicyTable(
            kind="features",
            name=self.name,
            made_for=ruleset_claim(ruleset),
            actions=t.reshape(-1).astype(np.int8),
            lo_stride=t.shape[1] * t.shape[2],
            left_stride=t.shape[2],
            ms_stride=1,
        )

    def __repr__(self) -> str:
        return f"EscapeAgent(first_bar={self.first_bar})"
