"""A policy trained by the JAX PPO (``python -m train.jax_ppo``), played with numpy: ``jax_ppo:PATH``.

The training writes the policy network's weights to ``policy.npz`` (:func:`save_policy`): arrays
``w0, b0, w1, b1, ...`` (float32, layer ``i`` maps ``x @ w{i} + b{i}``, the activation between layers,
8 logits out) and ``meta``, a JSON string: the format and its version, the activation, the input
features (``raw``: the flat observation; ``onehot``: :func:`zanzibar_env.core.onehot.onehot`, its
``num_ranks`` and ``max_rolls``) and the ruleset trained on. :class:`JaxPPOAgent` reads such a file
(``numpy.load`` without pickles; a file that is not one is a ``ValueError``) and is a
:class:`~zanzibar_env.agents.policy.PolicyAgent` over the same forward pass in numpy: it plays the most
likely legal action (``sample=True``: draws from the masked softmax), so exact evaluation
(:mod:`zanzibar_env.agents.exact`), tournaments and the envs' opponents take it like any bot.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.agents.policy import PolicyAgent
from zanzibar_env.core.onehot import onehot
from zanzibar_env.core.safe_io import atomic_write_bytes, is_file

FORMAT = "zanzibar-jax-ppo-policy"
VERSION = 1
#: Hidden activations by name (numpy; the JAX PPO uses the same names).
NP_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
_MAX_LAYERS = 32


def save_policy(path: str | Path, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> None:
    """Write ``layers`` (``[(w [in, out], b [out]), ...]``, the last giving 8 logits) and ``meta``
    (``activation``, ``features``, ``num_ranks``, ``max_rolls``, ``ruleset``) to ``path`` atomically."""
    arrays: dict[str, Any] = {"meta": np.array(json.dumps({"format": FORMAT, "version": VERSION, **meta}))}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
    buf = io.BytesIO()
    savez: Any = np.savez  # (numpy's stubs read the arrays as its keyword arguments)
    savez(buf, **arrays)
    atomic_write_bytes(path, buf.getvalue())


def _bad(path: Any, why: str) -> ValueError:
    return ValueError(f"{str(path)[:200]!r} is not a JAX PPO policy file ({why})")


def load_policy(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """``([(w, b), ...], meta)`` from a file written by :func:`save_policy`; ``ValueError`` otherwise."""
    if not is_file(path):
        raise ValueError(f"JAX PPO policy file {str(path)[:200]!r} does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError) as e:
        raise _bad(path, f"not a readable .npz: {type(e).__name__}") from None
    try:
        meta = json.loads(str(data.pop("meta")))
    except (KeyError, ValueError):
        raise _bad(path, "no meta record") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise _bad(path, f"format {FORMAT!r} version {VERSION} expected")
    if meta.get("activation") not in NP_ACTIVATIONS or meta.get("features") not in ("raw", "onehot"):
        raise _bad(path, f"activation {meta.get('activation')!r}, features {meta.get('features')!r}")
    dims = [meta.get(k) for k in ("num_ranks", "max_rolls")]
    if meta["features"] == "onehot" and not all(type(d) is int and 0 < d <= 1000 for d in dims):
        raise _bad(path, f"onehot features need integer num_ranks and max_rolls, got {dims}")
    if "ruleset" in meta and not isinstance(meta["ruleset"], str):
        raise _bad(path, f"meta ruleset must be a name, got {meta['ruleset']!r}")
    n = len(data) // 2
    if not 1 <= n <= _MAX_LAYERS or sorted(data) != sorted(f"{k}{i}" for i in range(n) for k in "wb"):
        raise _bad(path, f"arrays w0, b0, ... expected, got {sorted(data)[:10]}")
    layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
    width = None
    for w, b in layers:
        ok = w.dtype == np.float32 and b.dtype == np.float32 and w.ndim == 2 and b.shape == (w.shape[1],)
        if not ok or (width is not None and w.shape[0] != width) or not np.isfinite(w).all():
            raise _bad(path, "layer shapes do not chain, or weights are not finite float32")
        width = w.shape[1]
    if width != 8:
        raise _bad(path, f"the last layer gives {width} outputs, not 8 logits")
    return layers, meta


class MLPPolicy:
    """The forward pass of a saved policy network in numpy: ``float32[B, 33]`` observations -> ``[B, 8]``
    logits (``layers`` and ``meta`` as :func:`load_policy` returns them)."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> None:
        self.layers, self.meta = layers, meta
        self.act = NP_ACTIVATIONS[meta["activation"]]
        self.dims = (int(meta.get("num_ranks", 0)), int(meta.get("max_rolls", 0)))

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        x = onehot(obs, *self.dims) if self.meta["features"] == "onehot" else np.asarray(obs, np.float32)
        if x.shape[-1] != self.layers[0][0].shape[0]:
            raise ValueError(
                f"the network takes {self.layers[0][0].shape[0]} inputs, the features have {x.shape[-1]}"
            )
        for w, b in self.layers[:-1]:
            x = self.act(x @ w + b)
        w, b = self.layers[-1]
        return x @ w + b


def meta_made_for(meta: dict[str, Any]) -> dict[str, Any]:
    """What a policy file was made for (:mod:`zanzibar_env.core.made_for`): ``meta``'s ruleset (name and,
    where written, digest) and, for ``onehot`` features, the ranks and rolls they decode."""
    out = {k: meta[k] for k in ("ruleset", "ruleset_sha256") if isinstance(meta.get(k), str)}
    if meta.get("features") == "onehot":
        out.update(num_ranks=int(meta.get("num_ranks", 0)), max_rolls=int(meta.get("max_rolls", 0)))
    return out


class JaxPPOAgent(PolicyAgent):
    """The policy in ``path`` (a ``policy.npz`` of the JAX PPO) as an agent; see the module docstring."""

    def __init__(self, path: str | Path, *, seed: int | None = None, sample: bool = False) -> None:
        self.path = str(path)
        policy = MLPPolicy(*load_policy(path))
        super().__init__(policy, output="logits", sample=sample, name=f"jax_ppo:{path}", seed=seed)
        self.made_for = meta_made_for(policy.meta)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.path, self.sample))


def _rebuild(path: str, sample: bool) -> JaxPPOAgent:
    return JaxPPOAgent(path, sample=sample)
