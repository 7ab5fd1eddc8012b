"""The grouped vector env (one batched core, each row group playing its own opponents) and seats per env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.envs._groups import GroupedVectorEnv
from zanzibar_env.envs.vector import ZanzibarVectorEnv


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


def test_seat_per_env_fixes_some_and_draws_the_others() -> None:
    """``seat=[...]``: fixed seats stay fixed; a ``"random"`` env draws its seat from its own stream, as
    it would in an env where every seat is drawn."""
    seats: list[int | str] = ["random", 1, "random", 0, 1, "random"]
    env = ZanzibarVectorEnv(6, opponents="optimal", episode="round", seat=seats)
    alike = ZanzibarVectorEnv(6, opponents="optimal", episode="round")
    _, info = env.reset(seed=3)
    _, want = alike.reset(seed=[3, 9, 5, 9, 9, 8])  # envs 0 and 2 share their seeds with `env`
    drawn: list[list[int]] = []
    for _ in range(30):
        assert info["seat"][[1, 3, 4]].tolist() == [1, 0, 1]
        assert info["seat"][[0, 2]].tolist() == want["seat"][[0, 2]].tolist()
        drawn.append(info["seat"][[0, 2, 5]].tolist())
        _, _, _, _, info = env.step(np.full(6, 7))
        _, _, _, _, want = alike.step(np.full(6, 7))
    assert {0, 1} == {s for row in drawn for s in row}
    with pytest.raises(ValueError, match="2 values for 3 envs"):
        ZanzibarVectorEnv(3, seat=[0, 1])
    with pytest.raises(ValueError, match="seat must be 'random' or an integer"):
        ZanzibarVectorEnv(2, seat=[0, 2])


def test_no_decision_ever_raises_in_the_vector_env() -> None:
    # the learner rolls second behind a bot that stops at once: roll limit 1, never a decision
    env = GroupedVectorEnv([2, 2], [Fixed(7), Fixed(0)], episode="round", seat=1, skip_no_decision=True)
    with pytest.raises(RuntimeError, match="no decision in"):
        env.reset(seed=0)


def test_sb3_seat_parts_play_as_separate_vector_envs() -> None:
    """``make_sb3_env(seat=[...])`` runs each part of equal seats in one vector env, seeded and grouped
    exactly as one vector env per part concatenated (the layout training used before)."""
    pytest.importorskip("stable_baselines3")
    from zanzibar_env.envs.sb3 import SB3VecEnv, make_sb3_env

    groups: list[Any] = ["optimal", "optimal", "random", "greedy"]
    kw: dict[str, Any] = dict(groups=groups, seed=0, skip_no_decision=True)
    one = make_sb3_env("ZanzibarRound-v1", 20, seat=["random"] * 12 + [1] * 8, **kw)
    parts = [make_sb3_env("ZanzibarRound-v1", 12, **kw), make_sb3_env("ZanzibarRound-v1", 8, seat=1, **kw)]
    two = SB3VecEnv([p.venv for p in parts])
    assert len(one.venvs) == 1 and len(one.venv._agents) == 3  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    for env in (one, two):
        env.seed(5)
    obs = [one.reset(), two.reset()]
    for _ in range(40):
        np.testing.assert_array_equal(obs[0], obs[1])
        masks = one.action_masks()
        np.testing.assert_array_equal(masks, two.action_masks())
        act = np.argmax(rng.random(masks.shape) * masks, 1)
        out = [env.step(act) for env in (one, two)]
        for a, b in zip(out[0][:3], out[1][:3], strict=True):
            np.testing.assert_array_equal(a, b)
        assert [sorted(i) for i in out[0][3]] == [sorted(i) for i in out[1][3]]
        obs = [out[0][0], out[1][0]]
