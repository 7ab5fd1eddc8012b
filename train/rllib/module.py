"""The RLlib module of :mod:`zanzibar_env.train.rllib.ppo`: PPO's default torch module with the action mask
applied.

The PettingZoo env observes ``{"observation": ..., "action_mask": ...}`` (PettingZoo's convention).
The module builds RLlib's default PPO networks (actor and critic encoders, logits and value heads) for
the ``"observation"`` entry alone and adds ``log(mask)`` (clamped to RLlib's ``FLOAT_MIN``) to the logits
in every forward pass (exploration, inference, training), so an illegal hold is never sampled and gets
no probability in the PPO loss. This follows RLlib's action-masking example for the new API stack
(``rllib/examples/rl_modules/classes/action_masking_rlm.py``), with this env's key names and without
changing the batch in place. Runs in the RLlib venv only (``make setup-rllib``).
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module over ``obs["observation"]``; logits masked by the action mask."""

    def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
        self._space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observation"], **kwargs)

    def setup(self) -> None:
        super().setup()  # networks built for the observation entry alone
        self.observation_space = self._space_with_mask  # what the env and connectors see

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict):
            return None, batch
        return obs["action_mask"], {**batch, Columns.OBS: obs["observation"]}

    @staticmethod
    def _mask(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        if mask is not None:
            out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
                torch.log(mask.float()), min=FLOAT_MIN
            )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = self._split(batch)
        return self._mask(super()._forward(plain, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, plain = self._split(batch)
        return self._mask(super()._forward_train(plain, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return super().compute_values(self._split(batch)[1], embeddings)


def actor_layers(module: DefaultPPOTorchRLModule) -> list[torch.nn.Linear]:
    """The linear layers from observation to logits, in order: the actor encoder's, then the pi head's."""
    encoder = getattr(module.encoder, "actor_encoder", None) or module.encoder.encoder
    return [m for part in (encoder, module.pi) for m in part.modules() if isinstance(m, torch.nn.Linear)]
