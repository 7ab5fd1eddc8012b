"""Agents over Stable-Baselines3 models: a saved zip (``ppo:PATH`` in the registry) or a live model.

This is the project's one SB3 model loader and agent. :func:`load_model` reads a ``model.zip`` with
:func:`zanzibar_env.agents.sb3_model.load_sb3`, which never unpickles (a file that would need it is refused), and
checks it fits Zanzibar: the observation of :mod:`zanzibar_env.core.observation` (``float32[33]``) and
8 discrete actions (hold masks). Supported algorithms: ``MaskablePPO``, ``PPO``, ``A2C``, ``DQN``.

:class:`ModelAgent` plays any such model greedily (``deterministic=True``), including a live model
during training. A maskable model is given the legal actions (all 8, or re-throw all / stop without
holds); other models are not, and an illegal choice is replaced by 0 (re-throw all).
:class:`PPOAgent` is a :class:`ModelAgent` over a file: it pickles as its path and reloads lazily.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.agents.sb3_greedy import greedy_actions
from zanzibar_env.agents.sb3_model import load_sb3, model_made_for
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import NUM_ACTIONS, View
from zanzibar_env.core.kernel import legal_mask
from zanzibar_env.core.observation import OBS_SIZE, ViewBatch, encode, encode_batch
from zanzibar_env.core.rules import Ruleset
from zanzibar_env.core.safe_io import is_file


def action_mask(ruleset: Ruleset) -> np.ndarray:
    """``bool[8]``: which hold masks are legal under ``ruleset`` (the kernel's :func:`legal_mask`)."""
    return legal_mask(ruleset.holds_allowed)


def check_model(model: Any, source: str) -> Any:
    """``model`` if its spaces fit Zanzibar (``Box((33,))`` in, ``Discrete(8)`` out), else ``ValueError``."""
    shape = getattr(model.observation_space, "shape", None)
    if shape != (OBS_SIZE,) or getattr(model.action_space, "n", None) != NUM_ACTIONS:
        raise ValueError(
            f"model {source!r} has observation shape {shape} and action space {model.action_space}; "
            f"a Zanzibar agent needs ({OBS_SIZE},) and Discrete({NUM_ACTIONS})"
        )
    return model


def load_model(path: str | Path, *, trusted: bool = False) -> Any:
    """A Zanzibar model from an SB3 zip (see the module docstring); ``ValueError`` on any failure.

    ``trusted=True`` lets SB3 unpickle a file the safe reader refuses: only for files you made.
    """
    return check_model(load_sb3(path, trusted=trusted), str(path))


def is_maskable(model: Any) -> bool:
    """Whether ``model`` (a :class:`~zanzibar_env.agents.sb3_model.LoadedModel` or a live SB3 model) takes masks."""
    if hasattr(model, "maskable"):
        return bool(model.maskable)
    return type(getattr(model, "policy", None)).__name__ == "MaskableActorCriticPolicy"


def predict(model: Any, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Greedy actions ``int64[B]`` of ``model`` for observations ``obs`` and legal masks ``bool[8]`` or
    ``bool[B, 8]`` (an illegal choice of a model without masks becomes 0, re-throw all).

    Actor-critic MLP policies are run directly (:func:`zanzibar_env.agents.sb3_greedy.greedy_actions`: in
    numpy, the same actions as ``model.predict`` without its per-call overhead); others through
    ``model.predict``."""
    masks = np.asarray(legal, bool)
    if masks.ndim != 1:  # (one mask for every row is passed on as it is)
        masks = np.broadcast_to(masks, (obs.shape[0], NUM_ACTIONS))
    maskable = is_maskable(model)
    actions = (
        greedy_actions(model.policy, obs, masks if maskable else None) if hasattr(model, "policy") else None
    )
    if actions is None:  # a policy the direct pass does not know: SB3's own predict
        if maskable:  # (a writable copy: torch warns on read-only arrays such as a broadcast view)
            given = np.broadcast_to(masks, (obs.shape[0], NUM_ACTIONS)).copy()
            actions, _ = model.predict(obs, deterministic=True, action_masks=given)
        else:
            actions, _ = model.predict(obs, deterministic=True)
    actions = np.asarray(actions, np.int64).reshape(-1)
    ok = masks.take(actions) if masks.ndim == 1 else masks[np.arange(len(actions)), actions]
    return np.where(ok, actions, 0)


class ModelAgent(BaseAgent):
    """Plays an in-memory SB3 model greedily (a loaded zip or a live model during training)."""

    def __init__(self, model: Any, name: str = "ppo", path: str | Path | None = None) -> None:
        self.model = model
        self.name = name
        self.made_for = model_made_for(model, path)

    def _model(self) -> Any:
        return self.model

    def act(self, view: View) -> int:
        return int(predict(self._model(), encode(view)[None, :], action_mask(view.ruleset))[0])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        if len(batch) == 0:
            return np.zeros(0, np.int64)
        return predict(self._model(), encode_batch(batch), action_mask(batch.ruleset))

    def policy_probs_batch(self, batch: ViewBatch) -> np.ndarray:
        """``float64[B, 8]``: the policy's own action probabilities on every row, illegal masks at 0 (a
        diagnostic: the agent plays the most likely action, see ``zanzibar_env.train.exact_eval --mistakes``)."""
        import torch as th  # (only a live or loaded SB3 policy gets here)

        model, legal = self._model(), action_mask(batch.ruleset)
        obs = th.as_tensor(encode_batch(batch))
        with th.no_grad():
            if is_maskable(model):
                masks = np.broadcast_to(legal, (len(batch), NUM_ACTIONS)).copy()
                dist = model.policy.get_distribution(obs, action_masks=masks)
            else:
                dist = model.policy.get_distribution(obs)
            probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
        probs[:, ~legal] = 0.0
        return probs / probs.sum(1, keepdims=True)


def _shipped(path: str | Path) -> Path:
    """``path``, or the shipped model file when ``path`` is a baseline's name and no such file exists."""
    from zanzibar_env.models import MODEL_DIR

    name = str(path)
    shipped = MODEL_DIR / f"{name}.zip"
    if name.isidentifier() and not is_file(path) and is_file(shipped):  # is_file: never raises on a long name
        return shipped
    return Path(path)


class PPOAgent(ModelAgent):
    """Plays a saved SB3 model file greedily; ``ValueError`` at once if it cannot be loaded.

    ``path`` may also name a shipped baseline (``"ppo_classic_2p"``, :mod:`zanzibar_env.agents.pretrained`)
    when no file of that name exists.
    """

    def __init__(self, path: str | Path, seed: int | None = None) -> None:
        self.path = _shipped(path)
        super().__init__(
            load_model(self.path), name=f"ppo:{path}", path=self.path
        )  # fail now, before any game

    def _model(self) -> Any:
        if self.model is None:
            self.model = load_model(self.path)
        return self.model

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["model"] = None  # reloaded from the path on first use
        return state
