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

import math
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.kernel import legal_mask
from zanzibar_env.core.observation import OBS_SIZE, ViewBatch, encode, encode_batch
from zanzibar_env.core.onehot import onehot, onehot_size, ruleset_dims
from zanzibar_env.core.rules import Ruleset, load_ruleset
from zanzibar_env.core.safe_load import read_json

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
            f"rllib:{path}: expected policy.npz and policy.json (written by python -m zanzibar_env.train.rllib)"
        )
    return npz, meta


MAX_LAYERS = 16  #: most layers an export may have
MAX_WEIGHTS = 1 << 24  #: most numbers in one array (64 MiB as float32), checked from its header
MAX_TOTAL = 1 << 25  #: most numbers in all arrays together
NUM_ACTIONS = 8  #: the logits head's width (the hold masks)
OBS_TYPES = ("flat", "onehot")


def load_policy(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """The layers ``[(W, b), ...]`` (float64) and the metadata of an exported policy; ``ValueError``
    naming the file and the problem if it is malformed.

    Checked before any array is read: ``policy.json`` (:func:`zanzibar_env.core.safe_load.read_json`:
    size, depth and duplicate keys bounded) holds ``layers`` (an integer 1-:data:`MAX_LAYERS`), a known
    ``activation`` and ``obs_type`` and a ``ruleset`` name (default classic); ``policy.npz`` holds
    exactly the arrays ``W0, b0, ...`` of that many layers, each a real floating-point array whose
    header declares at most :data:`MAX_WEIGHTS` numbers (:data:`MAX_TOTAL` in all). Then, read: every
    number finite, the layers chain, the first takes the observation's width (``obs_type`` under the
    export's ruleset; a one-hot export of a ruleset unknown here is checked when it plays) and the last
    gives :data:`NUM_ACTIONS` logits.
    """
    npz, meta_path = policy_files(path)
    meta = _check_meta(path, read_json(meta_path, f"rllib:{path}: policy.json"))
    names = [f"{k}{i}" for i in range(meta["layers"]) for k in ("W", "b")]
    try:
        with zipfile.ZipFile(npz) as z:
            _check_headers(path, z, names)
        with np.load(npz, allow_pickle=False) as data:
            arrays = {name: np.asarray(data[name]) for name in names}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        if isinstance(e, ValueError) and str(e).startswith(f"rllib:{path}:"):
            raise
        raise ValueError(f"rllib:{path}: cannot read the exported policy ({str(e)[:200]})") from None
    layers = [
        (arrays[f"W{i}"].astype(np.float64), arrays[f"b{i}"].astype(np.float64))
        for i in range(meta["layers"])
    ]
    _check_layers(path, layers, _obs_width(meta))
    return layers, meta


def _check_meta(path: str | Path, meta: Any) -> dict[str, Any]:
    """``policy.json``'s keys, each of the right type and value (``ValueError`` naming the key)."""
    if not isinstance(meta, dict):
        raise ValueError(f"rllib:{path}: policy.json must hold a JSON object, got {type(meta).__name__}")
    layers = meta.get("layers")
    if isinstance(layers, bool) or not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
        raise ValueError(
            f"rllib:{path}: policy.json 'layers' must be an integer 1-{MAX_LAYERS}, got {str(layers)[:40]!r}"
        )
    for key, allowed in (("activation", tuple(ACTIVATIONS)), ("obs_type", OBS_TYPES)):
        value = meta.get(key, "flat" if key == "obs_type" else None)
        if not isinstance(value, str) or value not in allowed:
            shown = str(value)[:40]
            raise ValueError(
                f"rllib:{path}: unknown {key} {shown!r} in policy.json; allowed: {list(allowed)}"
            )
    ruleset = meta.get("ruleset", "classic")
    if not isinstance(ruleset, str):
        raise ValueError(
            f"rllib:{path}: policy.json 'ruleset' must be a ruleset name, got {str(ruleset)[:40]!r}"
        )
    return {**meta, "obs_type": meta.get("obs_type", "flat")}


def _check_headers(path: str | Path, z: zipfile.ZipFile, names: list[str]) -> None:
    """Every array's dtype and declared size, from its ``.npy`` header, before the array is read."""
    members = {m[:-4] if m.endswith(".npy") else m for m in z.namelist()}
    missing, extra = sorted(set(names) - members), sorted(members - set(names))
    if missing or extra:
        raise ValueError(
            f"rllib:{path}: policy.npz must hold exactly {names}; missing {missing[:8]}, unexpected {extra[:8]}"
        )
    total = 0
    for name in names:
        with z.open(f"{name}.npy") as f:
            version = np.lib.format.read_magic(f)
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f"rllib:{path}: array {name} has .npy format version {version}")
            read = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            shape, _, dtype = read(f)
        size = math.prod(shape)
        if dtype.kind != "f" or dtype.hasobject:
            raise ValueError(f"rllib:{path}: array {name} has dtype {dtype}; expected real floating point")
        if size > MAX_WEIGHTS:
            raise ValueError(f"rllib:{path}: array {name} declares shape {shape}, over {MAX_WEIGHTS} numbers")
        total += size
    if total > MAX_TOTAL:
        raise ValueError(f"rllib:{path}: the arrays declare {total} numbers in all, over {MAX_TOTAL}")


def _obs_width(meta: dict[str, Any]) -> int | None:
    """The observation width the first layer must take (``None``: a one-hot export whose ruleset does
    not load here; its width is then checked against each game's ruleset when it plays)."""
    if meta["obs_type"] == "flat":
        return OBS_SIZE
    try:
        return onehot_size(*ruleset_dims(load_ruleset(meta.get("ruleset", "classic"))))
    except ValueError:
        return None


def _check_layers(path: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], width: int | None) -> None:
    """Shapes chain from the observation's width (any, if ``None``) to the logits; every number finite."""
    want = width if width is not None else (layers[0][0].shape[1] if layers[0][0].ndim == 2 else -1)
    for i, (w, b) in enumerate(layers):
        out = NUM_ACTIONS if i == len(layers) - 1 else None
        ok = w.ndim == 2 and w.shape[1] == want and w.shape[0] >= 1 and b.shape == (w.shape[0],)
        if not ok or (out is not None and w.shape[0] != out):
            need = f"({out or 'n'}, {want})"
            raise ValueError(
                f"rllib:{path}: layer {i} has W{i} {w.shape} and b{i} {b.shape}; expected W{i} of shape {need} "
                f"(inputs: {'the observation, ' if i == 0 else ''}{want}) and b{i} of its first size"
            )
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise ValueError(f"rllib:{path}: layer {i} holds NaN or infinite weights")
        want = w.shape[0]


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
        obs = onehot(flat, *ruleset_dims(ruleset)) if self.meta["obs_type"] == "onehot" else flat
        width = self.layers[0][0].shape[1]
        if obs.shape[-1] != width:
            raise ValueError(
                f"{self.name} takes {width} inputs, but a one-hot observation of ruleset {ruleset.name!r} "
                f"has {obs.shape[-1]} (it was trained under {self.meta.get('ruleset', 'classic')!r})"
            )
        return obs

    def _greedy(self, flat: np.ndarray, ruleset: Ruleset) -> np.ndarray:
        logits = self.logits(np.atleast_2d(self._obs(flat, ruleset)))
        return np.where(legal_mask(ruleset.holds_allowed), logits, -np.inf).argmax(axis=1)

    def act(self, view: View) -> int:
        return int(self._greedy(encode(view), view.ruleset)[0])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        if len(batch) == 0:
            return np.zeros(0, np.int64)
        return self._greedy(encode_batch(batch), batch.ruleset).astype(np.int64)
