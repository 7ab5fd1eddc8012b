"""A policy learned with RLlib, played from its exported weights: ``rllib:PATH`` in the registry.

``python -m train.rllib`` (in the RLlib venv, see :mod:`zanzibar_env.train.rllib.ppo`) ends by exporting the
shared policy's actor network as plain arrays: ``policy.npz`` (``W0, b0, W1, b1, ...``: the actor
encoder's layers then the logits head) and ``policy.json`` (the activation, the observation type, the
ruleset and the layer count). This agent reads those two files with numpy alone, so tournaments and
exact evaluation score an RLlib policy without RLlib, in any venv; nothing is unpickled
(``allow_pickle=False``). ``PATH`` is the run directory or its ``policy.npz``.

It plays greedily: the logits of the legal actions (the kernel's mask for the ruleset, as the
PettingZoo env gives the policy during training), highest first. The observation is the envs' encoding
from the acting seat (``zanzibar_env.core.observation``), one-hot coded when the policy was trained
with ``obs_type: onehot``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.core.engine import View
from zanzibar_env.core.kernel import legal_mask
from zanzibar_env.core.observation import ViewBatch, encode, encode_batch
from zanzibar_env.core.onehot import onehot, ruleset_dims
from zanzibar_env.core.rules import Ruleset

from zanzibar_env.agents.base import BaseAgent

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


def policy_files(path: str | Path) -> tuple[Path, Path]:
    """``(policy.npz, policy.json)`` of a run directory or of a ``policy.npz`` path."""
    p = Path(path)
    npz = p / "policy.npz" if p.is_dir() else p
    meta = npz.with_suffix(".json")
    if not npz.is_file() or not meta.is_file():
        raise ValueError(
            f"rllib:{path}: expected policy.npz and policy.json (written by python -m train.rllib)"
        )
    return npz, meta


def load_policy(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """The layers ``[(W, b), ...]`` and the metadata of an exported policy; ``ValueError`` if malformed."""
    npz, meta_path = policy_files(path)
    try:
        meta = json.loads(meta_path.read_text())
        with np.load(npz, allow_pickle=False) as data:
            layers = [(data[f"W{i}"], data[f"b{i}"]) for i in range(int(meta["layers"]))]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"rllib:{path}: cannot read the exported policy ({e})") from None
    if meta.get("activation") not in ACTIVATIONS:
        raise ValueError(f"rllib:{path}: unknown activation {meta.get('activation')!r}")
    for (w, b), (w_next, _) in zip(layers, [*layers[1:], (None, None)], strict=True):
        if w.ndim != 2 or b.shape != (w.shape[0],) or (w_next is not None and w_next.shape[1] != w.shape[0]):
            raise ValueError(f"rllib:{path}: layer shapes do not chain ({w.shape}, {b.shape})")
    return layers, meta


class RLlibAgent(BaseAgent):
    """Plays an exported RLlib policy greedily (see the module docstring)."""

    def __init__(self, path: str | Path, seed: int | None = None) -> None:
        self.path = str(path)
        self.name = f"rllib:{path}"
        self.layers, self.meta = load_policy(path)  # fail now, before any game

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits ``[B, 8]`` for observations ``[B, obs_size]`` (the exported actor network)."""
        act = ACTIVATIONS[self.meta["activation"]]
        h = obs.astype(np.float64)
        for i, (w, b) in enumerate(self.layers):
            h = h @ w.T.astype(np.float64) + b
            if i < len(self.layers) - 1:
                h = act(h)
        return h

    def _obs(self, flat: np.ndarray, ruleset: Ruleset) -> np.ndarray:
        return onehot(flat, *ruleset_dims(ruleset)) if self.meta.get("obs_type") == "onehot" else flat

    def _greedy(self, flat: np.ndarray, ruleset: Ruleset) -> np.ndarray:
        logits = self.logits(np.atleast_2d(self._obs(flat, ruleset)))
        return np.where(legal_mask(ruleset.holds_allowed), logits, -np.inf).argmax(axis=1)

    def act(self, view: View) -> int:
        return int(self._greedy(encode(view), view.ruleset)[0])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        if len(batch) == 0:
            return np.zeros(0, np.int64)
        return self._greedy(encode_batch(batch), batch.ruleset).astype(np.int64)
