"""Greedy actions of an SB3 actor-critic policy without ``model.predict``'s per-call overhead.

SB3's ``policy.predict`` builds a distribution object (with argument checks), copies the observation
and switches the training mode on every call: about a millisecond whatever the batch size, which is
most of a tournament's time when a learned agent plays. :func:`greedy_actions` computes the same
actions in two ways:

* **numpy** (:class:`NumpyPolicy`): the policy's weights, exported once (and again whenever torch
  changes them, as training does), run as float32 matrix products: the features extractor
  (``FlattenExtractor``, or the project's ``ZanzibarFeatures``, whose one-hot codes become look-ups of
  the first layer's rows, summed per code group in advance), ``mlp_extractor``'s policy net and
  ``action_net``. Its logits agree with torch's to float32 rounding (about ``1e-6``), not bit for bit,
  so a row whose two best legal logits lie within :data:`TIE_GAP` of each other is decided by torch
  (below): the actions are ``predict``'s on every row.
* **torch** (:func:`torch_greedy_actions`): the policy's own modules under ``torch.inference_mode()``,
  then what ``predict(..., deterministic=True)`` does with the logits: sb3-contrib's
  ``MaskableCategorical`` sets the logits of illegal actions to ``-1e8``, the ``Categorical``
  normalises them (``logits - logsumexp``), and the mode is the argmax of their softmax. The same
  operations on the same tensors give the same actions (tested against ``predict``).

Policies it does not recognise (another policy class such as a recurrent or DQN policy, another action
distribution, an image or non-``Box`` observation space) get ``None``: the caller then uses
``model.predict``. Recognised policies whose layers numpy does not reproduce (another activation or
features extractor) take the torch pass for every row.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from zanzibar_env.core.observation import OBS_LAYOUT, OBS_SIZE
from zanzibar_env.core.onehot import onehot_size

#: Policy classes whose greedy action is the argmax of ``action_net`` over the policy latent.
_POLICIES = {
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "MaskableCategoricalDistribution",
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "CategoricalDistribution",
}
_HUGE_NEG = -1e8  # sb3-contrib's MaskableCategorical.apply_masking
#: Rows whose best two logits (legal ones, for a maskable policy) differ by less than this are decided
#: by torch: numpy's logits differ from torch's by float32 rounding only (tests bound it well below).
TIE_GAP = 1e-4
#: Hidden activations numpy reproduces, by torch module name.
_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, np.float32(0.0)),
}


#: Policies already checked by :func:`_recognised` (its answer), for as long as they live.
_KNOWN: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
#: Each policy's weights, their torch versions when exported, and its numpy export (``None``: numpy
#: cannot reproduce the policy).
_EXPORTS: weakref.WeakKeyDictionary[Any, tuple[list[Any], tuple[int, ...] | None, NumpyPolicy | None]] = (
    weakref.WeakKeyDictionary()
)


def _recognised(policy: Any) -> bool:
    """:func:`_check`'s answer for ``policy``, remembered per policy object."""
    try:
        return _KNOWN[policy]
    except (KeyError, TypeError):  # (TypeError: an object without weak references, never remembered)
        pass
    known = _check(policy)
    try:
        _KNOWN[policy] = known
    except TypeError:
        pass
    return known


def _check(policy: Any) -> bool:
    """Whether ``policy`` is exactly one of :data:`_POLICIES` with its categorical distribution, a
    plain ``MlpExtractor`` and a non-image ``Box`` observation (what :func:`greedy_actions` reproduces)."""
    cls = type(policy)
    dist = _POLICIES.get((cls.__module__, cls.__name__))
    if dist is None or type(getattr(policy, "action_dist", None)).__name__ != dist:
        return False
    from gymnasium import spaces
    from stable_baselines3.common.preprocessing import is_image_space
    from stable_baselines3.common.torch_layers import MlpExtractor

    space = policy.observation_space
    return (
        type(policy.mlp_extractor) is MlpExtractor
        and isinstance(space, spaces.Box)
        and not is_image_space(space)
        and isinstance(policy.action_space, spaces.Discrete)
    )


def _takes_masks(policy: Any) -> bool:
    return type(policy).__name__ == "MaskableActorCriticPolicy"


def greedy_actions(policy: Any, obs: np.ndarray, masks: np.ndarray | None) -> np.ndarray | None:
    """``int64[B]``: ``policy.predict(obs, deterministic=True, action_masks=masks)``'s actions, computed
    directly (see the module docstring), or ``None`` when ``policy`` is not one this function knows.

    ``obs`` is ``float[B, D]``; ``masks`` is ``bool[B, n]`` (or one ``bool[n]`` for every row) for a
    maskable policy, ``None`` for a plain one (a plain policy's masks are ignored, as ``predict`` ignores
    them).
    """
    if not _recognised(policy):
        return None
    if policy.training:
        policy.set_training_mode(False)  # as predict does (dropout, batch norm)
    net = numpy_policy(policy)
    if masks is not None and not _takes_masks(policy):
        masks = None
    if net is None:
        return torch_greedy_actions(policy, obs, masks)
    obs = np.asarray(obs, np.float32).reshape(-1, net.in_size)
    logits = net.logits(obs)
    if masks is not None:
        masks = np.asarray(masks, bool)
        if masks.ndim != 1:  # (one mask for every row broadcasts as it is)
            masks = masks.reshape(logits.shape)
        if not masks.all():
            logits = np.where(masks, logits, np.float32(_HUGE_NEG))
    actions = logits.argmax(1)
    # rows whose best two logits lie within TIE_GAP: torch decides (NaN logits are never close)
    close = np.flatnonzero(np.count_nonzero(logits > (logits.max(1) - TIE_GAP)[:, None], axis=1) > 1)
    if close.size:
        sub = masks if masks is None or masks.ndim == 1 else masks[close]
        actions[close] = torch_greedy_actions(policy, obs[close], sub)
    return actions.astype(np.int64, copy=False)


def _rows(masks: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``masks`` as ``bool[B, n]`` (``shape``): reshaped when they have a value per entry, else broadcast."""
    m = np.asarray(masks, bool)
    return m.reshape(shape) if m.size == shape[0] * shape[1] else np.broadcast_to(m, shape)


def torch_greedy_actions(policy: Any, obs: np.ndarray, masks: np.ndarray | None) -> np.ndarray:
    """``int64[B]``: the greedy actions of a recognised ``policy`` (in eval mode) by its own torch modules
    (see the module docstring); ``masks`` are applied as given (``None``: none)."""
    import torch as th

    extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor
    with th.inference_mode():
        x = th.as_tensor(obs, device=policy.device).float()  # preprocess_obs of a non-image Box
        logits = policy.action_net(policy.mlp_extractor.forward_actor(extractor(x)))
        if masks is not None:
            keep = th.as_tensor(np.array(_rows(masks, tuple(logits.shape))), device=logits.device)  # (a copy)
            logits = th.where(keep, logits, th.tensor(_HUGE_NEG, dtype=logits.dtype, device=logits.device))
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)  # torch's Categorical(logits=...)
        actions = th.argmax(th.softmax(logits, dim=-1), dim=1)  # CategoricalDistribution.mode: probs
    return actions.cpu().numpy().astype(np.int64, copy=False)


def numpy_policy(policy: Any) -> NumpyPolicy | None:
    """The numpy export of a recognised ``policy``, or ``None`` when numpy does not reproduce its layers.

    Made again when torch has changed the weights in place since (an optimizer step, ``load_state_dict``:
    torch counts each tensor's in-place changes)."""
    try:
        params, versions, net = _EXPORTS[policy]
    except (KeyError, TypeError):
        pass
    else:
        if versions is not None and _versions(params) == versions:
            return net
    params = [p for m in _greedy_modules(policy) for p in m.parameters()]
    net = NumpyPolicy.export(policy)
    try:
        _EXPORTS[policy] = (params, _versions(params), net)
    except TypeError:
        pass
    return net


def _versions(params: list[Any]) -> tuple[int, ...] | None:
    """The tensors' version counters (``None`` for tensors without one, made under ``inference_mode``:
    such weights are exported on every call)."""
    try:
        return tuple(p._version for p in params)
    except RuntimeError:
        return None


def _greedy_modules(policy: Any) -> list[Any]:
    extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor
    return [extractor, policy.mlp_extractor.policy_net, policy.action_net]


class NumpyPolicy:
    """The greedy path of an SB3 MLP policy in float32 numpy: observations ``[B, D]`` -> logits.

    ``layers`` are ``(w [in, out], b [out])`` with ``activation`` between them. With ``onehot = (num_ranks,
    max_rolls)`` the input is ``ZanzibarFeatures``' vector (the observation, then its one-hot codes): the
    first layer then multiplies the observation by its first ``OBS_SIZE`` rows and adds, per row, one
    pre-summed row per code group (the dice: 512 cases of three faces and their counts; the three ranks;
    rolls used and limit with the bias), which is what the matrix product does with a one-hot vector.
    """

    def __init__(
        self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str, onehot: tuple[int, int] | None
    ) -> None:
        self.layers = [(np.ascontiguousarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.act = _ACTIVATIONS[activation]
        self.onehot = onehot
        self.in_size = OBS_SIZE if onehot is not None else self.layers[0][0].shape[0]
        if onehot is not None:
            self._tables(*onehot)

    @classmethod
    def export(cls, policy: Any) -> NumpyPolicy | None:
        """The numpy twin of a recognised SB3 ``policy``, or ``None`` if its layers are not ones it has."""
        extractor, net, head = _greedy_modules(policy)
        kind = type(extractor).__name__
        if kind == "ZanzibarFeatures" and policy.observation_space.shape == (OBS_SIZE,):
            onehot: tuple[int, int] | None = (int(extractor.num_ranks), int(extractor.max_rolls))
        elif kind == "FlattenExtractor" and len(policy.observation_space.shape) == 1:
            onehot = None
        else:
            return None
        mods = list(net)
        acts = {type(m).__name__ for m in mods[1::2]}
        linear = all(type(m).__name__ == "Linear" for m in [*mods[0::2], head])
        if len(mods) % 2 or not linear or len(acts) > 1 or not acts <= set(_ACTIVATIONS):
            return None
        first = [*mods, head][0]
        if onehot is not None and first.in_features != onehot_size(*onehot):
            return None
        layers = [
            (m.weight.detach().cpu().numpy().T, m.bias.detach().cpu().numpy()) for m in [*mods[::2], head]
        ]
        return cls(layers, acts.pop() if acts else "Tanh", onehot)

    def _tables(self, num_ranks: int, max_rolls: int) -> None:
        """The first layer's rows per code group (see the class docstring); offsets as ``ZanzibarFeatures``."""
        w, b = self.layers[0]
        r, m = num_ranks, max_rolls
        codes = w[OBS_SIZE:].astype(np.float64)  # (sums in float64, rounded once)
        self.w_obs = np.ascontiguousarray(w[:OBS_SIZE])
        # a die's face minus 1 as the extractor reads it (rounded, then -1..6: -1 and 6 are out of
        # range, coded as the nearest face and counted nowhere), by face 0..7 (= the value + 1)
        f = np.arange(-1, 7)
        x = np.stack(np.meshgrid(f, f, f, indexing="ij"), -1).reshape(-1, 3)  # [512, 3]
        dice = sum(codes[np.clip(x[:, k], 0, 5) + 6 * k] for k in range(3))
        counts = (x[:, :, None] == np.arange(6)).sum(1)  # [512, 6]: dice showing each face
        dice = dice + sum(codes[18 + 4 * k + counts[:, k]] for k in range(6))
        ranks = [codes[42 + g * (r + 1) : 42 + (g + 1) * (r + 1)] for g in range(3)]
        u = 42 + 3 * (r + 1)
        rolls = codes[u : u + m + 1, None] + codes[None, u + m + 1 : u + 2 * (m + 1)] + b
        self.t_dice, self.t_rank, self.t_lo, self.t_hi, self.t_rolls = (
            np.ascontiguousarray(t, np.float32).reshape(-1, w.shape[1]) for t in (dice, *ranks, rolls)
        )
        top = max(r - 1, 1)
        self._scale = np.array([6, 6, 6, top, top, top, m, m], np.float32)
        self._cols = np.array([0, 1, 2, *(OBS_LAYOUT[k][0] for k in _CODED)])
        self._high = np.array([7, 7, 7, r, r, r, m, m], np.float32)

    def _first(self, obs: np.ndarray) -> np.ndarray:
        """The first layer's output (before its activation) on observations ``obs``."""
        if self.onehot is None:
            w, b = self.layers[0]
            return obs @ w + b
        r, m = self.onehot
        # faces 0..7 (1..6, and 0 or 7 out of range), three ranks, rolls used, limit (each clipped)
        i = np.clip(np.rint(obs[:, self._cols] * self._scale), 0.0, self._high).astype(np.int64)
        none = obs[:, OBS_LAYOUT["has_lowest"][0]] <= 0.5  # no earlier hand: the last slot
        h = obs @ self.w_obs
        h += self.t_dice.take(i[:, 0] * 64 + i[:, 1] * 8 + i[:, 2], 0)
        h += self.t_rank.take(i[:, 3], 0)
        h += self.t_lo.take(np.where(none, r, i[:, 4]), 0)
        h += self.t_hi.take(np.where(none, r, i[:, 5]), 0)
        h += self.t_rolls.take(i[:, 6] * (m + 1) + i[:, 7], 0)
        return h

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """``float32[B, n]`` logits of float32 observations ``obs`` ``[B, in_size]``."""
        x = self._first(obs)
        for w, b in self.layers[1:]:
            x = self.act(x) @ w + b
        return x


_CODED = ("hand_rank", "lowest_rank", "highest_rank", "rolls_used", "roll_limit")
