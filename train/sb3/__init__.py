"""The SB3 training loop's parts (``python -m train.ppo`` puts them together; torch and SB3 are needed).

- :mod:`~zanzibar_env.train.sb3.callbacks`: periodic evaluation, self-play pool, exploiter, schedules;
- :mod:`~zanzibar_env.train.sb3.opponents`: fixed bots, the self-play checkpoint pool, exact exploiters;
- :mod:`~zanzibar_env.train.sb3.faults`: Ctrl-C / SIGTERM stop cleanly, atomic checkpoints, the run lock;
- :mod:`~zanzibar_env.train.sb3.features`: the policy's features extractor (one-hot codes);
- :mod:`~zanzibar_env.train.sb3.expected_reward`: a round's reward as its exact expected result;
- :mod:`~zanzibar_env.train.sb3.game_learn`: the full game's exploiter and imitation before PPO.
"""

from __future__ import annotations

from zanzibar_env.train.sb3.callbacks import (
    EntropyScheduleCallback,
    EvalCallback,
    ExploiterCallback,
    SelfPlayCallback,
    WeightAverageCallback,
)
from zanzibar_env.train.sb3.expected_reward import ExpectedRoundReward
from zanzibar_env.train.sb3.faults import SignalGuard, StopOnSignal, lock_run_dir, save_model
from zanzibar_env.train.sb3.features import ZanzibarFeatures
from zanzibar_env.train.sb3.game_learn import exact_decisions, pretrain, sampled_games
from zanzibar_env.train.sb3.opponents import Opponents, build_opponents

__all__ = [
    "EntropyScheduleCallback",
    "EvalCallback",
    "ExpectedRoundReward",
    "ExploiterCallback",
    "Opponents",
    "SelfPlayCallback",
    "SignalGuard",
    "StopOnSignal",
    "WeightAverageCallback",
    "ZanzibarFeatures",
    "build_opponents",
    "exact_decisions",
    "lock_run_dir",
    "pretrain",
    "sampled_games",
    "save_model",
]
