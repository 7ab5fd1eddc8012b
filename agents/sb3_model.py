"""Load a Stable-Baselines3 model zip without running code from the file.

SB3's own ``Model.load`` unpickles the zip's ``data`` entry (cloudpickle), so a crafted file runs
code when it is loaded. :func:`load_sb3` never does: it reads only the JSON fields of ``data`` (the
policy class, ``policy_kwargs``, the spaces, ``num_timesteps``), checks every class name it meets
against a fixed list of known parts, rebuilds the policy from them and loads ``policy.pth`` with
``torch.load(..., weights_only=True)``. Supported: ``MaskablePPO`` (sb3-contrib), ``PPO``, ``A2C``
and ``DQN`` with MLP policies on a ``Box`` observation and a ``Discrete`` action space. Anything
else is refused with a ``ValueError`` naming what is unknown.

Opt-in for trusted files: ``load_sb3(path, trusted=True)`` falls back to SB3's pickle-based
``load`` for what the safe reader cannot rebuild. Use it only for files you made yourself.
"""

from __future__ import annotations

import importlib
import io
import json
import math
import pickletools
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.core.safe_io import is_file

#: Largest ``data`` / ``policy.pth`` member read from a zip (a guard against zip bombs).
MAX_MEMBER_BYTES = 256 * 1024 * 1024

#: Policy classes the safe reader can rebuild: (module, name) as pickled -> algorithm family.
POLICIES: dict[tuple[str, str], str] = {
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "MaskablePPO",
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "PPO",
    ("stable_baselines3.dqn.policies", "DQNPolicy"): "DQN",
}
#: Classes that may appear in ``policy_kwargs`` (activation, features extractor, optimizer).
KNOWN_CLASSES = frozenset(
    {
        *(f"torch.nn.modules.activation.{a}" for a in ("Tanh", "ReLU", "ELU", "LeakyReLU", "GELU", "SiLU")),
        "stable_baselines3.common.torch_layers.FlattenExtractor",
        "zanzibar_env.train.sb3.features.ZanzibarFeatures",
        "torch.optim.adam.Adam",
        "torch.optim.rmsprop.RMSprop",
    }
)
#: Old class paths still found in saved models -> where the class lives now.
CLASS_ALIASES = {
    "train.sb3.features.ZanzibarFeatures": "zanzibar_env.train.sb3.features.ZanzibarFeatures",
    "zanzibar_env.train.sb3.features.ZanzibarFeatures": "zanzibar_env.train.sb3.features.ZanzibarFeatures",
}
_CLASS_KEYS = ("activation_fn", "features_extractor_class", "optimizer_class")
_PLAIN_KEYS = (
    "net_arch",
    "features_extractor_kwargs",
    "optimizer_kwargs",
    "ortho_init",
    "normalize_images",
    "share_features_extractor",
    "log_std_init",
)
_CLASS_RE = re.compile(r"<class '([A-Za-z_][\w.]*)'>")


@dataclass
class LoadedModel:
    """A policy rebuilt from an SB3 zip: enough to act (``predict``), not to continue training."""

    path: Path
    algo: str  # "MaskablePPO", "PPO", "A2C" or "DQN"
    policy: Any
    num_timesteps: int
    meta: dict[str, Any] = field(default_factory=dict)  # the JSON fields of ``data``

    @property
    def observation_space(self) -> Any:
        return self.policy.observation_space

    @property
    def action_space(self) -> Any:
        return self.policy.action_space

    @property
    def maskable(self) -> bool:
        return self.algo == "MaskablePPO"

    def predict(
        self, obs: np.ndarray, deterministic: bool = True, action_masks: np.ndarray | None = None
    ) -> tuple[np.ndarray, None]:
        """Actions for a batch of observations (as SB3's ``model.predict``)."""
        if self.maskable:
            return self.policy.predict(obs, deterministic=deterministic, action_masks=action_masks)
        return self.policy.predict(obs, deterministic=deterministic)


def load_sb3(path: str | Path, *, trusted: bool = False) -> Any:
    """A :class:`LoadedModel` from an SB3 zip, never unpickling (see the module docstring).

    Raises ``ValueError`` with a one-line reason for a missing, empty, truncated, foreign or
    unsupported file. ``trusted=True`` lets SB3 unpickle a file the safe reader refuses.
    """
    p = Path(path)
    if not is_file(p):
        raise ValueError(f"no SB3 model file at {str(p)[:200]!r}")
    try:
        return _load_safe(p)
    except ValueError as e:
        if not trusted:
            raise ValueError(f"cannot load an SB3 model from {str(p)!r}: {e}") from None
        return _load_trusted(p)


class _NoOptimizer:
    """What a loaded policy gets for an optimizer: it acts, it is not trained further (building a
    ``torch.optim`` optimizer imports ``torch._dynamo``, a second or more of every worker's start)."""

    def __init__(self, params: Any, **kwargs: Any) -> None:
        self.kwargs = kwargs


def _load_safe(p: Path) -> LoadedModel:
    data, weights = _read_zip(p)
    algo, policy_cls = _policy_class(data)
    if algo == "PPO" and "clip_range" not in data:
        algo = "A2C"
    if data.get("use_sde"):
        raise ValueError("gSDE policies are not supported by the safe loader")
    obs_space = _box(data.get("observation_space"), p)
    act_space = _discrete(data.get("action_space"), p)
    kwargs = _policy_kwargs(data.get("policy_kwargs", {}), p)
    kwargs["optimizer_class"] = _NoOptimizer  # acting needs no optimizer (torch.optim imports dynamo)
    if algo != "DQN":  # every weight is loaded below: no QR decompositions to initialise them
        kwargs["ortho_init"] = False
    try:
        policy = policy_cls(obs_space, act_space, lambda _: 0.0, **kwargs)
        policy.load_state_dict(weights, strict=True)
    except (RuntimeError, TypeError, ValueError, KeyError) as e:
        raise ValueError(f"weights do not fit the saved policy ({_first_line(e)})") from None
    policy.set_training_mode(False)
    steps = data.get("num_timesteps", 0)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"bad num_timesteps {steps!r}")
    meta = {k: v for k, v in data.items() if not isinstance(v, dict) or ":serialized:" not in v}
    return LoadedModel(p, algo, policy, steps, meta)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__


def _read_zip(p: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parsed ``data`` JSON and the ``policy.pth`` state dict (``weights_only``)."""
    import torch

    try:
        with zipfile.ZipFile(p) as z:
            members = {i.filename: i for i in z.infolist()}
            for name in ("data", "policy.pth"):
                if name not in members:
                    raise ValueError(f"not an SB3 model zip (no {name!r} entry)")
                if members[name].file_size > MAX_MEMBER_BYTES:
                    raise ValueError(f"entry {name!r} is too large")
            raw = z.read("data")
            blob = z.read("policy.pth")
    except (zipfile.BadZipFile, OSError, EOFError, zipfile.LargeZipFile) as e:
        raise ValueError(f"not a readable zip file ({_first_line(e)})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"the 'data' entry is not JSON ({_first_line(e)})") from None
    if not isinstance(data, dict):
        raise ValueError("the 'data' entry is not a JSON object")
    try:
        weights = torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds on a bad or hostile file; none runs code here
        raise ValueError(f"policy.pth is not a plain weights file ({_first_line(e)})") from None
    if not isinstance(weights, dict) or not all(isinstance(v, torch.Tensor) for v in weights.values()):
        raise ValueError("policy.pth is not a state dict of tensors")
    return data, weights


def _policy_class(data: dict[str, Any]) -> tuple[str, Any]:
    """The algorithm family and the policy class named in ``data`` (only known classes)."""
    entry = data.get("policy_class")
    if not isinstance(entry, dict) or not isinstance(entry.get(":serialized:"), str):
        raise ValueError("model data has no policy class")
    ref = _pickled_global(entry[":serialized:"])
    if ref not in POLICIES:
        raise ValueError(f"unsupported policy class {'.'.join(ref)}; known: {sorted(POLICIES)}")
    module, name = ref
    return POLICIES[ref], getattr(importlib.import_module(module), name)


def _pickled_global(b64: str) -> tuple[str, str]:
    """The ``(module, name)`` a pickle of a bare class refers to, read from its opcodes (not run)."""
    import base64
    import binascii

    try:
        raw = base64.b64decode(b64, validate=True)
        strings: list[str] = []
        for op, arg, _ in pickletools.genops(raw):
            if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE"):
                strings.append(str(arg))
            elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
                return strings[-2], strings[-1]
            elif op.name == "GLOBAL":
                module, _, name = str(arg).partition(" ")
                return module, name
    except (binascii.Error, ValueError, TypeError) as e:
        raise ValueError(f"policy class is not readable ({_first_line(e)})") from None
    raise ValueError("policy class is not a plain class reference")


def _box(entry: Any, p: Path) -> Any:
    from gymnasium import spaces

    if not isinstance(entry, dict) or "gymnasium.spaces.box.Box" not in str(entry.get(":type:")):
        raise ValueError("observation space is not a gymnasium Box")
    shape = entry.get("_shape")
    if not isinstance(shape, list) or not all(_is_int(s) and 0 < s <= 1 << 20 for s in shape) or not shape:
        raise ValueError(f"bad observation shape {shape!r}")
    if entry.get("dtype") not in ("float32", "float64"):
        raise ValueError(f"unsupported observation dtype {entry.get('dtype')!r}")
    low, high = (_array_repr(entry.get(k), math.prod(shape)) for k in ("low", "high"))
    dtype = np.dtype(entry["dtype"])
    lo = np.full(shape, -np.inf, dtype) if low is None else low.reshape(shape).astype(dtype)
    hi = np.full(shape, np.inf, dtype) if high is None else high.reshape(shape).astype(dtype)
    return spaces.Box(lo, hi, tuple(shape), dtype)


def _array_repr(text: Any, size: int) -> np.ndarray | None:
    """Numbers of a numpy repr (``"[-1. -1. ...]"``) if there are exactly ``size`` of them."""
    if not isinstance(text, str) or "..." in text:
        return None
    nums = re.findall(r"-?(?:inf|\d+\.?\d*(?:e[-+]?\d+)?)", text)
    return np.array([float(x) for x in nums]) if len(nums) == size else None


def _discrete(entry: Any, p: Path) -> Any:
    from gymnasium import spaces

    if not isinstance(entry, dict) or "gymnasium.spaces.discrete.Discrete" not in str(entry.get(":type:")):
        raise ValueError("action space is not a gymnasium Discrete")
    try:
        n, start = int(str(entry.get("n"))), int(str(entry.get("start", 0)))
    except ValueError:
        raise ValueError(f"bad action space size {entry.get('n')!r}") from None
    if not 1 <= n <= 1 << 20:
        raise ValueError(f"bad action space size {n}")
    return spaces.Discrete(n, start=start)


def _policy_kwargs(entry: Any, p: Path) -> dict[str, Any]:
    """``policy_kwargs`` from their JSON form, classes resolved only from :data:`KNOWN_CLASSES`."""
    if not isinstance(entry, dict):
        raise ValueError("policy_kwargs is not a mapping")
    items = {k: v for k, v in entry.items() if k not in (":type:", ":serialized:")}
    out: dict[str, Any] = {}
    for key, value in items.items():
        if key in _CLASS_KEYS:
            out[key] = _known_class(value, p)
        elif key in _PLAIN_KEYS and _plain(value):
            out[key] = value
        else:
            raise ValueError(
                f"policy_kwargs[{key!r}] = {str(value)[:80]!r} cannot be rebuilt without unpickling"
            )
    return out


def _known_class(text: Any, p: Path) -> Any:
    m = _CLASS_RE.fullmatch(str(text))
    path = None if m is None else CLASS_ALIASES.get(m.group(1), m.group(1))
    if path is None or path not in KNOWN_CLASSES:
        raise ValueError(f"unknown class {str(text)[:80]!r} in policy_kwargs")
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _plain(value: Any, depth: int = 0) -> bool:
    """JSON data of numbers, strings, booleans, lists and dicts (nothing that stood for an object)."""
    if depth > 8:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    if isinstance(value, str):
        return not value.startswith("<")
    return value is None or isinstance(value, (bool, int, float))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _load_trusted(p: Path) -> Any:
    """SB3's own (pickle-based) loader, for trusted files only."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import A2C, DQN, PPO

    errors = []
    for cls in (MaskablePPO, PPO, A2C, DQN):
        try:
            return cls.load(str(p), device="cpu")
        except Exception as e:  # SB3 raises many kinds of errors on a file of another algorithm
            errors.append(f"{cls.__name__}: {_first_line(e)}")
    raise ValueError(f"cannot load an SB3 model from {str(p)!r} ({'; '.join(errors)})")


def _json_beside(path: Path) -> dict[str, Any]:
    """A small JSON object file's contents, or ``{}`` (absent, too large or not a JSON object)."""
    try:
        if not is_file(path) or path.stat().st_size > 1 << 20:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def model_made_for(model: Any, path: str | Path | None = None) -> dict[str, Any]:
    """What a model was made for (:mod:`zanzibar_env.core.made_for`): the feature layout its features
    extractor decodes, and the ruleset and table size of the run that wrote ``path`` (``run.json`` beside
    it: the ruleset's name and digest; ``config.yaml``: ``num_players``) or of a shipped or exported model
    (``NAME.json`` beside it: its config's ruleset and ``num_players``; the zips themselves do not
    record them)."""
    out: dict[str, Any] = {}
    extractor: Any = getattr(getattr(model, "policy", None), "features_extractor", None)
    ranks, rolls = getattr(extractor, "num_ranks", None), getattr(extractor, "max_rolls", None)
    if ranks is not None and rolls is not None:
        out.update(num_ranks=int(ranks), max_rolls=int(rolls))
    if path is None:
        return out
    run = _json_beside(Path(path).parent / "run.json")
    shipped = _json_beside(Path(path).with_suffix(".json")).get("config")
    if isinstance(run.get("ruleset"), str):
        out["ruleset"] = run["ruleset"]
        if isinstance(run.get("ruleset_sha256"), str):
            out["ruleset_sha256"] = run["ruleset_sha256"]
    elif isinstance(shipped, dict) and isinstance(shipped.get("ruleset"), str):
        out["ruleset"] = shipped["ruleset"]
    config = shipped if isinstance(shipped, dict) else _yaml_beside(Path(path).parent / "config.yaml")
    if _is_int(config.get("num_players")):
        out["num_players"] = int(config["num_players"])
    return out


def _yaml_beside(path: Path) -> dict[str, Any]:
    """A small YAML mapping file's contents (a run's ``config.yaml``), or ``{}``."""
    import yaml

    try:
        if not is_file(path) or path.stat().st_size > 1 << 20:
            return {}
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}
