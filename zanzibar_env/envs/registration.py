"""Register ``Zanzibar-v1`` and ``ZanzibarRound-v1`` with Gymnasium (single and vector entry points)."""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

ENV_IDS = {"Zanzibar-v1": "game", "ZanzibarRound-v1": "round"}


def register_envs() -> None:
    """Register both ids (idempotent): ``gym.make(id)`` and ``gym.make_vec(id, vectorization_mode=...)``."""
    for env_id, episode in ENV_IDS.items():
        if env_id in registry:
            continue
        register(
            id=env_id,
            entry_point="zanzibar_env.envs.env:ZanzibarEnv",
            vector_entry_point="zanzibar_env.envs.vector:ZanzibarVectorEnv",
            kwargs={"episode": episode},
        )


register_envs()
