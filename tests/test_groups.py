"""The grouped vector env: one batched core, each row group playing its own opponents."""

from __future__ import annotations

import numpy as np
import pytest

from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.envs._groups import GroupedVectorEnv


class Fixed(BaseAgent):
    """Always the same hold mask (7: stop at once; 0: re-throw everything)."""

    def __init__(self, action: int) -> None:
        self.action = action
        self.seeds: list[int | None] = []

    def act(self, view: View) -> int:
        return self.action

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return np.full(len(batch), self.action, np.int64)

    def seed(self, seed: int | None = None) -> None:
        self.seeds.append(seed)


def test_each_row_group_plays_its_own_opponent() -> None:
    # the learner rolls second: behind an opponent that stops at once it has no decision (limit 1),
    # behind one that re-throws to the limit it decides with roll limit 3
    stop, rethrow = Fixed(7), Fixed(0)
    env = GroupedVectorEnv([3, 5], [stop, rethrow], episode="round", seat=1, seed=0)
    _, info = env.reset(seed=1)
    assert info["no_decision"].tolist() == [True] * 3 + [False] * 5
    assert stop.seeds and rethrow.seeds  # every distinct opponent reseeded
    for _ in range(20):
        _, _, _, _, info = env.step(np.full(8, 7))
        assert info["no_decision"].tolist() == [True] * 3 + [False] * 5


def test_per_seat_opponents_inside_a_group() -> None:
    stop, rethrow = Fixed(7), Fixed(0)
    env = GroupedVectorEnv([2, 2], [[stop, rethrow], rethrow], num_players=3, episode="round", seat=2)
    _, info = env.reset(seed=0)
    # the learner (seat 2) rolls last; seat 0, first after it clockwise, rolls first and sets the limit:
    # `stop` in group 0 (limit 1: no decision), `rethrow` in group 1 (limit 3)
    assert info["no_decision"].tolist() == [True, True, False, False]


def test_sizes_must_match_groups() -> None:
    with pytest.raises(ValueError, match="one positive size per opponents group"):
        GroupedVectorEnv([3], [Fixed(7), Fixed(0)])
    with pytest.raises(ValueError, match="one positive size per opponents group"):
        GroupedVectorEnv([0, 2], [Fixed(7), Fixed(0)])
