"""The uniform random baseline: a legal hold mask uniformly at random."""

from __future__ import annotations

import numpy as np

from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.observation import ViewBatch

from .base import BaseAgent


class RandomAgent(BaseAgent):
    """Picks uniformly among the legal actions (all 8 masks, or re-throw/stop without holds)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._masks: list[int] = []  # buffered draws of rng.integers(8): the same sequence, faster

    def act(self, view: View) -> int:
        if view.ruleset.holds_allowed:
            if not self._masks:
                self._masks = self.rng.integers(8, size=256).tolist()[::-1]
            return self._masks.pop()
        return STOP if self.rng.random() < 0.5 else 0

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        if batch.ruleset.holds_allowed:
            return self.rng.integers(8, size=len(batch))
        return np.where(self.rng.random(len(batch)) < 0.5, STOP, 0)
