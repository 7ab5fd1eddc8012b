"""The training progress bar: environment steps out of the steps the run will really take.

SB3's own bar (``learn(progress_bar=True)``) counts ``num_envs`` steps per call against the
``total_timesteps`` asked for, but PPO only stops at the end of a rollout (``n_steps * num_envs``
steps), so a short run reads ``16,384/3,000``. This bar's total is the steps the rollouts will take
(the request rounded up to whole rollouts), its unit is the step, and its rate and time left are the
average since the start (``smoothing=0``: measured time, not the last burst).
"""

from __future__ import annotations

import math
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback


def steps_to_run(requested: int, rollout: int) -> int:
    """The environment steps PPO takes to reach ``requested`` more steps: whole rollouts of ``rollout``."""
    if requested <= 0:
        return 0
    return math.ceil(requested / rollout) * rollout


class StepsProgressBar(BaseCallback):
    """A tqdm bar of environment steps (learner decisions) over the steps the rollouts will take."""

    def __init__(self, requested: int) -> None:
        super().__init__()
        self.requested = requested
        self.bar: Any = None

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        rollout = int(self.model.n_steps) * int(self.training_env.num_envs)  # type: ignore[attr-defined]  # on-policy SB3 models
        total = steps_to_run(self.requested, rollout)
        self.bar = tqdm(total=total, unit="step", unit_scale=True, smoothing=0, desc="training")

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
