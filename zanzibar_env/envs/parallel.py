"""The PettingZoo parallel env: every seat an agent, one call per decision, over the AEC env.

Use it in research code::

    from zanzibar_env.envs.parallel import parallel_env

    env = parallel_env(num_players=3)
    obs, infos = env.reset(seed=0)
    while env.agents:  # only the acting agent's action counts (a waiting agent's mask allows only 7)
        actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"]) for a in env.agents}
        obs, rewards, terms, truncs, infos = env.step(actions)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..extras import requires_extra

with requires_extra("multiagent", "the PettingZoo env"):
    from pettingzoo import ParallelEnv

from ..core.checks import show
from ..core.engine import NUM_ACTIONS, STOP
from . import _envutil as U
from .aec import raw_env

#: The action mask of a waiting agent: one legal action, 7 (stop), which the env ignores. A masked
#: sampler (TorchRL's ``PettingZooWrapper``, ``action_space.sample(mask=...)``) can then draw for every
#: live agent at once; the acting agent's mask always allows at least two actions (0 and 7).
WAIT_MASK = np.zeros(NUM_ACTIONS, np.int8)
WAIT_MASK[STOP] = 1
WAIT_MASK.setflags(write=False)


class parallel_env(ParallelEnv):  # PettingZoo names the class after the constructor
    """Zanzibar for ``num_players`` agents ``player_0 .. player_{n-1}``, PettingZoo's parallel API.

    ## Description
    The game of :class:`zanzibar_env.envs.multiagent.raw_env` (turn-based: one agent decides at a
    time). Each :meth:`step` takes a dict of actions and applies the one of the acting agent (the
    agent whose ``action_mask`` allows two actions or more); the others' actions are ignored, so any
    value will do. Every other agent's ``action_mask`` allows exactly one action, ``7`` (stop), which
    is ignored: a masked sampler draws it, and a learner's log-probability of it is 0.

    ## Action Space
    ``Discrete(8)`` per agent: a hold mask over the sorted dice (bit ``i`` keeps die ``i``; 7 stops).
    Python or numpy integers (0-d arrays included); an illegal or missing action of the acting agent
    raises ``ValueError``.

    ## Observation Space
    As the AEC env: ``Dict{"observation": Box(33) (or the one-hot Box with obs_type="onehot"),
    "action_mask": Box(0, 1, (8,), int8)}`` for every live agent; a waiting (or finished) agent's
    mask is ``WAIT_MASK`` (only ``7`` legal, ignored) where the AEC env gives all zeros.
    :meth:`state` / ``state_space``: ``Box(-1, 8, (41,), float32)``, the acting seat's observation and
    a one-hot code of that seat.

    ## Starting State
    Every seat holds the ruleset's starting stack; seat 0 rolls first.

    ## Rewards
    As the AEC env, per step: every agent's reward for the rounds that ended during the step.

    ## Episode End
    As the AEC env; an agent that is terminated or truncated leaves ``agents`` after the step that
    reports it.

    ## Arguments
    Those of the AEC env: ``ruleset``, ``num_players``, ``reward``, ``render_mode``, ``max_rounds``,
    ``episode``, ``obs_type``; and ``max_cycles`` (PettingZoo's: every live agent is truncated after
    that many parallel steps, each step one decision; ``None``: no limit); ``reset`` and the agent
    names are checked as there. ``step`` takes a dict
    ``{agent: action}`` whose keys are among ``possible_agents`` (a finished agent's action is ignored
    too); anything else raises ``ValueError``; ``step`` before ``reset`` or after the episode raises
    ``ResetNeeded``.

    ## Version History
    * v2: a waiting agent's ``action_mask`` allows one action, ``7`` (ignored), instead of none, so that
      masked samplers (TorchRL's ``PettingZooWrapper``) work; ``step`` refuses actions that are not a
      dict or name an unknown agent. The AEC env (``zanzibar_v1``) is unchanged.
    * v1: initial version (the parallel API of ``zanzibar_v1``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (the base class declares it a plain attribute, not a ClassVar)
        "name": "zanzibar_v2",
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 4,
    }

    def __init__(self, max_cycles: int | None = None, **kwargs: Any) -> None:
        self.max_cycles = U.check_max_cycles(max_cycles)
        self.aec = raw_env(**kwargs)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces
        self.state_space = self.aec.state_space
        self.render_mode = self.aec.render_mode

    def observation_space(self, agent: str) -> Any:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> Any:
        return self.aec.action_space(agent)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        self._cycles = 0
        return self._observe(self.agents), {a: dict(self.aec.infos[a]) for a in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Apply the acting agent's action; rewards, ends and infos for every agent live before it."""
        if self.aec.game is None:
            raise U.ResetNeeded("call reset() before step()")
        if not self.agents:
            raise U.ResetNeeded("the episode has ended; call reset() to start a new one")
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict {{agent: action}}, got {show(actions)}")
        unknown = [a for a in actions if not isinstance(a, str) or a not in self.aec.observation_spaces]
        if unknown:
            raise ValueError(
                f"actions for unknown agents {show(unknown)}; the agents are {self.possible_agents}"
            )
        aec, acting = self.aec, self.aec.agent_selection
        if acting not in actions:
            raise ValueError(f"no action for the acting agent {acting!r}; got actions for {sorted(actions)}")
        aec.step(actions[acting])
        live = self.agents
        rewards = {a: float(aec.rewards[a]) for a in live}
        terms = {a: bool(aec.terminations[a]) for a in live}
        truncs = {a: bool(aec.truncations[a]) for a in live}
        infos = {a: dict(aec.infos[a]) for a in live}
        self._cycles += 1
        if self.max_cycles is not None and self._cycles >= self.max_cycles:  # every live agent is cut off
            truncs = {a: not terms[a] for a in live}
            self.agents = []
            return self._observe(live), rewards, terms, truncs, infos
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)  # PettingZoo's dead step: the finished agent leaves the AEC env
        obs = self._observe(live)
        self.agents = list(aec.agents)  # (render_mode="human": the AEC env printed the table)
        return obs, rewards, terms, truncs, infos

    def state(self) -> np.ndarray:
        """The global state ``float32[41]`` (see ``zanzibar_env.envs._state``)."""
        return self.aec.state()

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    def _observe(self, agents: list[str]) -> dict[str, Any]:
        """Each agent's observation; every agent but the one with a decision gets :data:`WAIT_MASK`."""
        g = self.aec.game
        assert g is not None
        seat = None if g.done else g.round.current_seat
        deciding = None if seat is None else self.possible_agents[seat]
        obs = {a: self.aec.observe(a) for a in agents}
        for a, o in obs.items():
            if a != deciding:
                o["action_mask"] = WAIT_MASK.copy()
        return obs
