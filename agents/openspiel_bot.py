"""OpenSpiel's bots as our agents: ``openspiel:mcts`` (``MCTSBot``), ``openspiel:random``, any ``pyspiel.Bot``.

Each decision builds a ``python_zanzibar_round`` state at the view's decision
(:func:`zanzibar_env.envs.openspiel.bots.state_from_view`) and asks the bot for a move, so the bot plans
the round in progress for its chip result (lives: lives lost). Specs (registry prefix ``openspiel:``):

* ``openspiel:mcts`` - OpenSpiel's ``MCTSBot`` with random rollouts; options ``simulations`` (default
  200, 1..1,000,000), ``rollouts`` (1, 1..10,000) and ``uct_c`` (2.0, finite, >= 0; checked when the
  agent is made), e.g. ``make_agent("openspiel:mcts", simulations=1000)``;
* ``openspiel:random`` - OpenSpiel's uniform random bot;
* ``openspiel:package.module:factory`` - any ``factory(game, player, seed) -> pyspiel.Bot``.

Needs the ``[openspiel]`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.checks import check_float, check_int
from zanzibar_env.core.engine import View
from zanzibar_env.core.registry import load_object
from zanzibar_env.extras import requires_extra

with requires_extra("openspiel", "the OpenSpiel bots"):
    import pyspiel
    from open_spiel.python.algorithms import mcts

    from zanzibar_env.envs.openspiel.bots import round_game, state_from_view

BOTS = ("mcts", "random")
#: Limits on the MCTS options (per decision; a larger search is refused when the agent is made).
MAX_SIMULATIONS, MAX_ROLLOUTS = 1_000_000, 10_000


class OpenSpielAgent(BaseAgent):
    """A ``pyspiel.Bot`` playing our views (see the module docstring for the specs)."""

    def __init__(
        self,
        bot: str = "mcts",
        seed: int | None = None,
        simulations: int = 200,
        rollouts: int = 1,
        uct_c: float = 2.0,
    ) -> None:
        if bot not in BOTS and ":" not in bot:
            raise ValueError(f"unknown OpenSpiel bot {bot!r}: use one of {list(BOTS)} or 'module:factory'")
        self.bot, self.name = bot, f"openspiel:{bot}"
        self.simulations = check_int(simulations, "openspiel:mcts simulations", 1, MAX_SIMULATIONS)
        self.rollouts = check_int(rollouts, "openspiel:mcts rollouts", 1, MAX_ROLLOUTS)
        self.uct_c = check_float(uct_c, "openspiel:mcts uct_c", 0.0)
        self._factory = load_object(bot, what=f"OpenSpiel bot {bot!r}") if ":" in bot else None
        self._bots: dict[tuple[int, int, int], Any] = {}
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        self._seed = seed
        self.rng = np.random.RandomState(seed)
        self._bots.clear()

    def _make(self, game: Any, player: int) -> Any:
        if self._factory is not None:
            return self._factory(game, player, int(self.rng.randint(2**31)))
        if self.bot == "random":
            return pyspiel.make_uniform_random_bot(player, int(self.rng.randint(2**31)))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, self.rng)
        return mcts.MCTSBot(game, self.uct_c, self.simulations, evaluator, random_state=self.rng)

    def act(self, view: View) -> int:
        game = round_game(view.ruleset, view.num_players)
        key = (id(game), view.seat, view.num_players)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = self._make(game, view.seat)
        return int(bot.step(state_from_view(view, game)))
