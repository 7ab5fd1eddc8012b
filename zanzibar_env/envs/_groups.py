"""One batched vector env whose rows are split into groups, each group playing its own opponents.

Training splits its envs into opponent groups (fixed bots, self-play checkpoints, exploiters). One
:class:`~zanzibar_env.envs.vector.ZanzibarVectorEnv` per group runs the numpy engine once per group
and step; on small groups (32 rows) its per-call cost dominates, so :class:`GroupedVectorEnv` runs
every group in one core and only the opponents' decisions are dispatched per group (and seat).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _envutil as U
from .vector import ZanzibarVectorEnv


class GroupedVectorEnv(ZanzibarVectorEnv):
    """``sum(sizes)`` envs; rows ``[sum(sizes[:g]), sum(sizes[:g + 1]))`` play ``groups[g]``.

    Each ``groups[g]`` is an opponents spec as :class:`ZanzibarVectorEnv` takes it (one spec for every
    other seat, or one per other seat); groups holding the very same spec object share its agents. The
    other keyword arguments go to :class:`ZanzibarVectorEnv`.
    ``reset(seed=...)`` reseeds every distinct opponent of every group, in group order.
    """

    def __init__(self, sizes: Sequence[int], groups: Sequence[Any], **kwargs: Any) -> None:
        if len(sizes) != len(groups) or not groups or any(int(s) < 1 for s in sizes):
            raise ValueError(f"need one positive size per opponents group, got sizes {list(sizes)!r}")
        super().__init__(int(sum(sizes)), opponents=groups[0], **kwargs)
        per_group = [self.opponents]
        for g, spec in enumerate(groups[1:], 1):  # a spec object met before plays with the same agents
            same = [h for h in range(g) if groups[h] is spec]
            per_group.append(per_group[same[0]] if same else U.make_opponents(spec, self.n, self.rules))
        self._agents: list[Any] = []  # distinct agents, in group and seat order
        index = np.zeros((len(groups), self.n - 1), np.int64)
        for g, seats in enumerate(per_group):
            for k, agent in enumerate(seats):
                same = [i for i, a in enumerate(self._agents) if a is agent]
                if not same:
                    self._agents.append(agent)
                index[g, k] = same[0] if same else len(self._agents) - 1
        self._agent_of = index  # [group, seat offset after the learner - 1] -> index in _agents
        self._group = np.repeat(np.arange(len(groups)), [int(s) for s in sizes])  # group of each row
        self.opponents = self._agents  # what reset() reseeds (each distinct agent once)

    def _opponent_actions(self, r: np.ndarray) -> np.ndarray:
        act = np.zeros(r.size, np.int64)
        if not r.size:
            return act
        who = self._agent_of[self._group[r], (self.cur[r] - self.seat[r]) % self.n - 1]
        if len(self._agents) == 1 or (who == who[0]).all():
            return self._agent_act(self._agents[int(who[0])], r)
        for i, agent in enumerate(self._agents):  # a handful of agents: no np.unique
            m = who == i
            if m.any():
                act[m] = self._agent_act(agent, r[m])
        return act
