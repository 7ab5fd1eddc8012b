"""The PettingZoo AEC env: every seat is an agent (self-play research), over the pure rules engine.

Import it as :mod:`zanzibar_env.envs.multiagent`, which holds ``env``, ``raw_env`` and ``parallel_env``
together as PettingZoo's own envs do (the parallel env is built on this module's ``raw_env``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ..extras import requires_extra

with requires_extra("multiagent", "the PettingZoo env"):
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

from ..core import settlement as S
from ..core.checks import check_options, check_seed, show
from ..core.dice import RandomDice
from ..core.engine import NUM_ACTIONS, STOP
from ..core.game import GameState
from ..core.kernel import check_action, legal_mask
from ..core.records import RoundRecord
from . import _envutil as U
from ._obs import OBS_TYPES, ObsFormat
from ._state import game_state, state_space
from .env import RoundEncoder, _round_result, terminal_obs


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped in PettingZoo's order-enforcing wrapper (the usual entry point)."""
    return _OrderEnforcing(raw_env(**kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper whose calls before ``reset()`` raise :class:`ResetNeeded`
    (one line, as the raw env's) instead of a bare ``AssertionError``."""

    def _ready(self, what: str) -> None:
        if not self._has_reset:
            raise U.ResetNeeded(f"call reset() before {what}()")

    def step(self, action: Any) -> None:
        self._ready("step")
        super().step(action)

    def observe(self, agent: Any) -> Any:
        self._ready("observe")
        return super().observe(agent)

    def state(self) -> np.ndarray:
        self._ready("state")
        return super().state()

    def render(self) -> Any:
        self._ready("render")
        return super().render()


class raw_env(AECEnv):  # PettingZoo names the class raw_env
    """Zanzibar for ``num_players`` agents ``player_0 .. player_{n-1}`` (seat ``i`` = ``player_i``).

    ## Description
    The game of :class:`zanzibar_env.envs.env.ZanzibarEnv` with every seat played by an agent. An agent is
    selected only when it has a decision (a roll remains); turns without a choice are played
    without asking. Seat 0 rolls first in the first round.

    ## Action Space
    ``Discrete(8)`` per agent: a hold mask over the sorted dice (bit ``i`` keeps die ``i``; 7 stops).
    Illegal actions raise ``ValueError``.

    ## Observation Space
    ``Dict{"observation": Box(-1, 8, (33,), float32), "action_mask": Box(0, 1, (8,), int8)}``. The
    acting agent sees the same encoding as the single env from its own seat
    (``zanzibar_env.core.observation.OBS_LAYOUT``); any other agent sees zeros but its seat blocks
    (16-31, from its own seat) and the table size (32), with an all-zero mask. ``obs_type="onehot"``
    puts the single env's one-hot encoding in ``"observation"`` instead (``"flat"`` and ``"dict"``:
    the 33 floats; the observation is always a dict with the mask, PettingZoo's convention).
    :meth:`state` / ``state_space``: the global state (``zanzibar_env.envs._state``, ``Box(41)``).

    ## Starting State
    Every seat holds the ruleset's starting stack; seat 0 rolls first.

    ## Rewards
    As the single env, for every agent: ``"chips"``: chips given away minus chips received in the
    rounds that ended during the step (lives: minus lives lost); ``"win"``: ``+1/k`` to each of ``k``
    winners, ``-1`` to the others at game end (or when an agent is out of lives), 0 on truncation;
    with ``episode="round"`` the round's result (``-1`` per loser, the others share ``+1``).

    ## Episode End
    All agents terminate when the game ends (or, with ``episode="round"``, when the first round is
    settled); in lives rulesets an agent out of lives terminates while the others play on. All are
    truncated after ``max_rounds`` rounds. With ``max_cycles=k`` (PettingZoo's cycle: every agent acts
    once) an agent is truncated after its ``k``-th decision; its seat then stops at once (action 7) in
    every later turn while the others play on, until every agent is done.

    ## Arguments
    ``ruleset``, ``num_players`` (2-8), ``reward`` (``"chips"``/``"win"``), ``render_mode``
    (``"ansi"``, ``"human"``, ``"rgb_array"``), ``max_rounds``, ``max_cycles`` (decisions per agent, or
    ``None``: no limit), ``episode`` (``"game"``/``"round"``), ``obs_type`` (``"flat"``, ``"onehot"``,
    ``"dict"``). ``reset(seed=...)``: ``None`` or a
    non-negative integer; ``options``: ``None`` or a dict (not read). An agent name that is not one of
    ``possible_agents`` (``observe``, ``action_space``, ``observation_space``) raises ``ValueError``
    naming them; ``step``, ``observe``, ``state`` or ``render`` before ``reset`` raise ``ResetNeeded``
    (Gymnasium's, also a ``RuntimeError``).

    ## Version History
    * v1: ``obs_type`` for the ``"observation"`` entry, ``state()``, numpy 0-d actions; the same rule
      changes as ``Zanzibar-v1``.
    * v0: initial version.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (the base class declares it a plain attribute, not a ClassVar)
        "name": "zanzibar_v1",
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 4,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        ruleset: Any = "classic",
        num_players: int = 2,
        reward: str = "chips",
        render_mode: str | None = None,
        max_rounds: int | None = None,
        episode: str = "game",
        obs_type: str = "flat",
        max_cycles: int | None = None,
    ) -> None:
        super().__init__()
        self.max_cycles = U.check_max_cycles(max_cycles)
        self.rules, self.n, _ = U.check_common(ruleset, num_players, "random", reward, episode)
        self._encode = RoundEncoder(self.rules)
        self.max_rounds = U.check_max_rounds(max_rounds, self.rules)
        self.render_mode = U.check_render_mode(render_mode, self.metadata["render_modes"])
        self.reward_kind, self.episode = reward, episode
        self.possible_agents = [f"player_{i}" for i in range(self.n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._fmt = ObsFormat(
            "onehot" if U.check_choice("obs_type", obs_type, OBS_TYPES) == "onehot" else "flat", self.rules
        )
        obs_space = spaces.Dict(
            {"observation": self._fmt.space, "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)}
        )
        self.state_space = state_space()
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._legal_bool = legal_mask(self.rules.holds_allowed)
        self._legal = self._legal_bool.astype(np.int8)
        self._np_random: np.random.Generator | None = None
        self.game: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[self.check_agent(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[self.check_agent(agent)]

    def check_agent(self, agent: Any) -> str:
        """``agent`` if it is one of ``possible_agents``, else ``ValueError`` naming them."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise ValueError(f"unknown agent {show(agent)}; the agents are {self.possible_agents}")
        return agent

    def _game(self, what: str) -> GameState:
        if self.game is None:
            raise U.ResetNeeded(f"call reset() before {what}()")
        return self.game

    # ---- AEC API --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game; ``seed``: ``None`` or a non-negative integer; ``options``: ``None`` or a dict (no
        keys are read; PettingZoo's API test passes one)."""
        seed = check_seed(seed)
        check_options(options, None)
        if seed is not None or self._np_random is None:
            self._np_random = np.random.default_rng(seed)
            self._dice = RandomDice(self._np_random)
        cap = 1 if self.episode == "round" else self.max_rounds
        self.game = GameState(self.rules, self.n, self._dice, 0, cap)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._seen = 0
        self._decisions = dict.fromkeys(self.agents, 0)
        self._settle_rounds()
        self._select()

    def step(self, action: Any) -> None:
        self._game("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        assert g is not None
        action = check_action(action, self._legal_bool, f" from {agent}")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        g.apply(action)
        self._count_cycle(agent)
        self._settle_rounds()
        self._select()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        g = self._game("observe")
        seat = self._seat[self.check_agent(agent)]
        if (
            not g.done
            and g.round.current_seat == seat
            and agent in self.agents
            and not self.terminations[agent]
        ):
            return {"observation": self._fmt(self._encode(g.round), None), "action_mask": self._legal.copy()}
        return {
            "observation": self._fmt(terminal_obs(self.rules, g.stacks, seat), None),
            "action_mask": np.zeros(NUM_ACTIONS, np.int8),
        }

    def state(self) -> np.ndarray:
        """The global state ``float32[41]``: the acting seat's observation and its one-hot seat index."""
        g = self._game("state")
        return game_state(g, self._encode, lambda s: terminal_obs(self.rules, g.stacks, s))

    def render(self) -> Any:
        if self.render_mode is None:
            return None
        game = self._game("render")
        if self.render_mode == "rgb_array":
            from ..ui import render as R

            return R.render_rgb(game, None)
        from ..ui.table import render_ansi  # plain text: no Pillow needed

        text = render_ansi(game, None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ---- internals ------------------------------------------------------------------------------
    def _count_cycle(self, agent: str) -> None:
        """``max_cycles``: truncate ``agent`` at its limit; a truncated seat's turns then stop at once."""
        if self.max_cycles is None:
            return
        self._decisions[agent] += 1
        if self._decisions[agent] >= self.max_cycles:
            self.truncations[agent] = True
        g = self.game
        assert g is not None
        while not g.done and g.round.current_seat is not None:
            live = [a for a in self.agents if not (self.truncations[a] or self.terminations[a])]
            if not live or self.possible_agents[g.round.current_seat] in live:
                break
            g.apply(STOP)
            self._settle_rounds()

    def _select(self) -> None:
        """Point ``agent_selection`` at the acting seat, or at a finished agent that must step first."""
        g = self.game
        assert g is not None
        seat = g.round.current_seat
        if seat is not None and not g.done:
            self.agent_selection = self.possible_agents[seat]
        elif self.agents:
            self.agent_selection = self.agents[0]
        self._deads_step_first()

    def _settle_rounds(self) -> None:
        """Pay every agent for the rounds that ended since the last call and flag finished agents."""
        g = self.game
        assert g is not None
        new: list[RoundRecord] = g.record.rounds[self._seen :]
        if not new:
            return
        self._seen = len(g.record.rounds)
        for a in self.agents:
            self.infos[a] = {"rounds": new}
        for k, rec in enumerate(new):
            self._score(rec, last=k == len(new) - 1)
        self._accumulate_rewards()

    def _score(self, rec: RoundRecord, last: bool) -> None:
        """Each agent's reward and episode end for a settled round (kernel: ``settlement.episode_step``)."""
        g = self.game
        assert g is not None
        winners = g.record.winners if last else []
        for a in self.agents:
            s = self._seat[a]
            if self.terminations[a]:
                continue
            reward, term = S.episode_step(
                self.rules,
                self.episode,
                self.reward_kind,
                rec.transfers[s],
                won=s in winners,
                winners=len(winners),
                over=bool(winners),
                alive=rec.stacks_after[s] > 0,
                round_result=_round_result(rec, s, self.rules),
            )
            self.rewards[a] += reward
            self.terminations[a] = bool(term)
            self.truncations[a] = not term and (self.truncations[a] or (last and g.record.truncated))
