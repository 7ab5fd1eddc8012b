"""An agent that plays a saved Stable-Baselines3 model (``ppo:PATH`` in the registry).

The model is a ``model.zip`` saved by sb3_contrib's ``MaskablePPO`` (preferred) or SB3's ``PPO``,
trained on the observation of :mod:`zanzibar_env.core.observation` (``float32[33]``) with 8 discrete
actions (hold masks). It acts greedily (``deterministic=True``). A maskable model is given the legal
actions (all 8, or re-throw all / stop without holds); a plain PPO model is not, and an illegal
choice is replaced by 0 (re-throw all). The agent pickles as its path and reloads the model lazily.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.core.engine import NUM_ACTIONS, View
from zanzibar_env.core.kernel import legal_mask
from zanzibar_env.core.observation import OBS_SIZE, ViewBatch, encode, encode_batch
from zanzibar_env.core.rules import Ruleset

from .base import BaseAgent


def action_mask(ruleset: Ruleset) -> np.ndarray:
    """``bool[8]``: which hold masks are legal under ``ruleset`` (the kernel's :func:`legal_mask`)."""
    return legal_mask(ruleset.holds_allowed)


def load_model(path: Path) -> tuple[Any, bool]:
    """Load an SB3 model from ``path``; returns ``(model, maskable)``. Raises ``ValueError`` on failure."""
    if not path.is_file():
        raise ValueError(f"no SB3 model file at {str(path)!r}")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3 import PPO

    errors = []
    for cls in (MaskablePPO, PPO):
        try:
            model = cls.load(str(path), device="cpu")
            break
        except Exception as e:  # SB3 raises many kinds of errors on a bad file
            errors.append(f"{cls.__name__}: {type(e).__name__}: {e}")
    else:
        raise ValueError(f"cannot load an SB3 model from {str(path)!r} ({'; '.join(errors)})")
    shape = getattr(model.observation_space, "shape", None)
    if shape != (OBS_SIZE,) or getattr(model.action_space, "n", None) != NUM_ACTIONS:
        raise ValueError(
            f"model {str(path)!r} has observation shape {shape} and action space {model.action_space}; "
            f"a Zanzibar agent needs ({OBS_SIZE},) and Discrete({NUM_ACTIONS})"
        )
    return model, isinstance(model.policy, MaskableActorCriticPolicy)


class PPOAgent(BaseAgent):
    """Plays a saved SB3 ``MaskablePPO``/``PPO`` model greedily; ``ValueError`` if it cannot be loaded."""

    def __init__(self, path: str | Path, seed: int | None = None) -> None:
        self.path = Path(path)
        self.name = f"ppo:{path}"
        self._model: Any = None
        self._maskable = False
        self._load()  # fail now, before any game, if the file is missing or bad

    def _load(self) -> Any:
        if self._model is None:
            self._model, self._maskable = load_model(self.path)
        return self._model

    def _predict(self, obs: np.ndarray, ruleset: Ruleset) -> np.ndarray:
        model = self._load()
        legal = action_mask(ruleset)
        if self._maskable:
            masks = np.tile(legal, (obs.shape[0], 1))
            actions, _ = model.predict(obs, deterministic=True, action_masks=masks)
        else:
            actions, _ = model.predict(obs, deterministic=True)
        actions = np.asarray(actions, np.int64).reshape(-1)
        return np.where(legal[actions], actions, 0)

    def act(self, view: View) -> int:
        return int(self._predict(encode(view)[None, :], view.ruleset)[0])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        if len(batch) == 0:
            return np.zeros(0, np.int64)
        return self._predict(encode_batch(batch), batch.ruleset)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_model"] = None  # reloaded from the path on first use
        return state
