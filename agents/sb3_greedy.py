"""Greedy actions of an SB3 actor-critic policy without ``model.predict``'s per-call overhead.

SB3's ``policy.predict`` builds a distribution object (with argument checks), copies the observation
and switches the training mode on every call: about a millisecond whatever the batch size, which is
most of a tournament's time when a learned agent plays. :func:`greedy_actions` runs the policy's own
modules instead (the features extractor, ``mlp_extractor``'s policy net, ``action_net``) under
``torch.inference_mode()`` and then does what ``predict(..., deterministic=True)`` does with the
logits: sb3-contrib's ``MaskableCategorical`` sets the logits of illegal actions to ``-1e8``, the
``Categorical`` normalises them (``logits - logsumexp``), and the mode is the argmax of their softmax.
The same operations on the same tensors give the same actions (tested against ``predict``).

Policies it does not recognise (another policy class such as a recurrent or DQN policy, another action
distribution, an image or non-``Box`` observation space) get ``None``: the caller then uses
``model.predict``.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

#: Policy classes whose greedy action is the argmax of ``action_net`` over the policy latent.
_POLICIES = {
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"): "MaskableCategoricalDistribution",
    ("stable_baselines3.common.policies", "ActorCriticPolicy"): "CategoricalDistribution",
}
_HUGE_NEG = -1e8  # sb3-contrib's MaskableCategorical.apply_masking


#: Policies already checked by :func:`_recognised` (its answer), for as long as they live.
_KNOWN: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


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


def greedy_actions(policy: Any, obs: np.ndarray, masks: np.ndarray | None) -> np.ndarray | None:
    """``int64[B]``: ``policy.predict(obs, deterministic=True, action_masks=masks)``'s actions, computed
    directly (see the module docstring), or ``None`` when ``policy`` is not one this function knows.

    ``obs`` is ``float[B, D]``; ``masks`` is ``bool[B, n]`` for a maskable policy, ``None`` for a plain one
    (a plain policy's masks are ignored, as ``predict`` ignores them).
    """
    if not _recognised(policy):
        return None
    import torch as th

    if policy.training:
        policy.set_training_mode(False)  # as predict does (dropout, batch norm)
    extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor
    with th.inference_mode():
        x = th.as_tensor(obs, device=policy.device).float()  # preprocess_obs of a non-image Box
        logits = policy.action_net(policy.mlp_extractor.forward_actor(extractor(x)))
        if masks is not None and type(policy).__name__ == "MaskableActorCriticPolicy":
            keep = th.as_tensor(masks, dtype=th.bool, device=logits.device).reshape(logits.shape)
            logits = th.where(keep, logits, th.tensor(_HUGE_NEG, dtype=logits.dtype, device=logits.device))
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)  # torch's Categorical(logits=...)
        actions = th.argmax(th.softmax(logits, dim=-1), dim=1)  # CategoricalDistribution.mode: probs
    return actions.cpu().numpy().astype(np.int64, copy=False)
