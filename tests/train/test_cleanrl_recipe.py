"""The CleanRL recipe of docs/training.md runs on Gymnasium 1.x and logs every episode's return."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "training.md"


def test_the_recipe_logs_the_returns(capsys: pytest.CaptureFixture[str]) -> None:
    (code,) = re.findall(r"<!-- cleanrl-recipe -->\n```python\n(.*?)```", DOC.read_text(), flags=re.S)
    scope: dict[str, object] = {"__name__": "__recipe__"}
    exec(compile(code, str(DOC), "exec"), scope)
    returns = scope["episodic_returns"]
    assert isinstance(returns, list) and len(returns) > 20
    assert set(np.unique(returns)) <= {-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0}  # whole chips
    assert capsys.readouterr().out.count("episodic_return=") == len(returns)


def test_without_same_step_autoreset_the_step_after_an_end_is_a_reset() -> None:
    """Why change 1: under NEXT_STEP the step after an end returns reward 0 and ignores its action."""
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("ZanzibarRound-v1", opponents="greedy")])
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    envs.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, _ = envs.step(np.array([7]))
        done = bool(term[0] or trunc[0])
    _, reward, term, trunc, _ = envs.step(np.array([7]))
    assert reward[0] == 0.0 and not term[0] and not trunc[0]
