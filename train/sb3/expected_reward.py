"""``expected_reward: true``: a round's reward is its exact expected result given the learner's own hand.

In a 2-player round the learner's result is decided by its final hand and by chance it does not
control: when it rolls first, the other player's whole turn (dice and an optimal policy); when it rolls
second, a roll-off if the hands tie. :class:`ExpectedRoundReward` replaces each finished round's
sampled reward by its expectation over that chance, read from the round solver's tables
(:func:`zanzibar_env.agents.exact.turn_end_values`): ``first[L - 1, h]`` when the learner rolled first and
ended with rank ``h`` after ``L`` rolls, ``second[L - 1, f, h]`` when it rolled second against the first
hand ``f``. The expected return of every policy is unchanged, so PPO optimises the same objective; only
the noise of the opponent's turn leaves the returns. It is exact when the player rolling second is
``optimal`` or any best response to the learner (the exploiter), which share values (see
:mod:`zanzibar_env.agents.exact.turn_end`); :func:`zanzibar_env.train.config.checks.check_config`
refuses configs with other opponents or tables.

How much noise it removes: ``python -m benchmarks.reward_noise`` (seed 0, 100,000 rounds per seat against
``optimal``): with optimal play rolling first, a standard deviation of 2.085 chips sampled and 1.469
expected (half the variance); rolling second 2.435 and 2.334 (roll-offs only). The means agree
(``tests/exact/test_expected_reward.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from zanzibar_env.agents.exact import TurnEndValues, turn_end_values
from zanzibar_env.envs.sb3 import SB3VecEnv


class ExpectedRoundReward(VecEnvWrapper):
    """An :class:`~zanzibar_env.envs.sb3.SB3VecEnv` of 2-player rounds whose finished rounds pay their
    expected result (module docstring). ``info["episode"]["r"]`` keeps the sampled return."""

    def __init__(self, venv: SB3VecEnv, values: TurnEndValues) -> None:
        super().__init__(venv)
        self.values = values
        self.inner = venv

    @classmethod
    def for_ruleset(cls, venv: SB3VecEnv, ruleset: Any) -> ExpectedRoundReward:
        return cls(venv, turn_end_values(ruleset))

    def reset(self) -> Any:
        return self.venv.reset()

    def step_wait(self) -> VecEnvStepReturn:
        obs, rew, done, infos = self.venv.step_wait()
        if done.any():
            ranks = self.inner.final_info("hand_ranks")
            if ranks is not None:
                e = np.flatnonzero(done)
                first, limit = self.inner.final_info("first_roller"), self.inner.final_info("roll_limit")
                assert first is not None and limit is not None
                x = self.values.expected(ranks[e, :2], first[e], limit[e])
                cut = np.array([infos[i].get("TimeLimit.truncated", False) for i in e.tolist()], bool)
                ok = ~np.isnan(x) & ~cut  # (a round that ended before the learner's turn keeps its reward)
                rew[e[ok]] = x[ok]
        return obs, rew, done, infos
