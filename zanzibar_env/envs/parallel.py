"""The PettingZoo parallel env: every seat an agent, one call per decision, over the AEC env.

Use it in research code::

    from zanzibar_env.envs.parallel import parallel_env

    env = parallel_env(num_players=3)
    obs, infos = env.reset(seed=0)
    while env.agents:  # only the acting agent's action counts (the others' masks are all zero)
        actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"]) for a in env.agents}
        obs, rewards, terms, truncs, infos = env.step(actions)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..extras import requires_extra

with requires_extra("multiagent", "the PettingZoo env"):
    from pettingzoo import ParallelEnv

from .multiagent import raw_env


class parallel_env(ParallelEnv):  # PettingZoo names the class after the constructor
    """Zanzibar for ``num_players`` agents ``player_0 .. player_{n-1}``, PettingZoo's parallel API.

    ## Description
    The game of :class:`zanzibar_env.envs.multiagent.raw_env` (turn-based: one agent decides at a
    time). Each :meth:`step` takes a dict of actions and applies the one of the acting agent (the
    agent whose ``action_mask`` is not all zero); the others' actions are ignored, so any value
    (e.g. a masked sample, which is 0 for an all-zero mask) will do.

    ## Action Space
    ``Discrete(8)`` per agent: a hold mask over the sorted dice (bit ``i`` keeps die ``i``; 7 stops).
    Python or numpy integers (0-d arrays included); an illegal or missing action of the acting agent
    raises ``ValueError``.

    ## Observation Space
    As the AEC env: ``Dict{"observation": Box(33) (or the one-hot Box with obs_type="onehot"),
    "action_mask": Box(0, 1, (8,), int8)}`` for every live agent. :meth:`state` / ``state_space``:
    ``Box(-1, 8, (41,), float32)``, the acting seat's observation and a one-hot code of that seat.

    ## Starting State
    Every seat holds the ruleset's starting stack; seat 0 rolls first.

    ## Rewards
    As the AEC env, per step: every agent's reward for the rounds that ended during the step.

    ## Episode End
    As the AEC env; an agent that is terminated or truncated leaves ``agents`` after the step that
    reports it.

    ## Arguments
    Those of the AEC env: ``ruleset``, ``num_players``, ``reward``, ``render_mode``, ``max_rounds``,
    ``episode``, ``obs_type``.

    ## Version History
    * v1: initial version (the parallel API of ``zanzibar_v1``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "zanzibar_v1",
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 4,
    }

    def __init__(self, **kwargs: Any) -> None:
        self.aec = raw_env(**kwargs)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces
        self.state_space = self.aec.state_space
        self.render_mode = self.aec.render_mode

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return self._observe(), {a: dict(self.aec.infos[a]) for a in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Apply the acting agent's action; rewards, ends and infos for every agent live before it."""
        if not self.agents:
            raise RuntimeError("the episode has ended; call reset() to start a new one")
        aec, acting = self.aec, self.aec.agent_selection
        if acting not in actions:
            raise ValueError(f"no action for the acting agent {acting!r}; got actions for {sorted(actions)}")
        aec.step(actions[acting])
        live = self.agents
        rewards = {a: float(aec.rewards[a]) for a in live}
        terms = {a: bool(aec.terminations[a]) for a in live}
        truncs = {a: bool(aec.truncations[a]) for a in live}
        infos = {a: dict(aec.infos[a]) for a in live}
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)  # PettingZoo's dead step: the finished agent leaves the AEC env
        obs = {a: aec.observe(a) for a in live}
        self.agents = list(aec.agents)  # (render_mode="human": the AEC env printed the table)
        return obs, rewards, terms, truncs, infos

    def state(self) -> np.ndarray:
        """The global state ``float32[41]`` (see ``zanzibar_env.envs._state``)."""
        return self.aec.state()

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    def _observe(self) -> dict[str, Any]:
        return {a: self.aec.observe(a) for a in self.agents}
