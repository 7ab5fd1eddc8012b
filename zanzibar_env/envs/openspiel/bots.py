"""Our agents in OpenSpiel, and OpenSpiel states from our views (pyspiel and ``open_spiel`` imported here).

* :class:`AgentPolicy` (an ``open_spiel.python.policy.Policy``) and :class:`AgentBot` (a
  ``pyspiel.Bot``) play any agent of the registry (``"optimal"``, ``"greedy"``, ``"ppo:PATH"``, an
  object with ``act(view)``) in either OpenSpiel game: each decision is the agent's action on the
  :class:`~zanzibar_env.core.engine.View` of the acting seat (:func:`view_of`).
* :func:`state_from_view` builds a ``python_zanzibar_round`` state at the decision a view shows, so an
  OpenSpiel bot (``MCTSBot``) can plan a decision in our envs and tournaments
  (:mod:`zanzibar_env.agents.openspiel_bot`). A view summarises the earlier hands of the round (lowest
  rank and how many share it, highest rank, own-hand payments so far); the state gives the earlier
  seats, in play order, the lowest hand, then the highest: exact for two players; with more, the
  other seats' individual hands are one assignment consistent with the view.
"""

from __future__ import annotations

from typing import Any

import pyspiel
from open_spiel.python import policy as os_policy

from ...core import kernel as K
from ...core.engine import View
from ...core.hands import MULTISET_INDEX, MULTISETS
from ...core.registry import make_agent
from ...core.rules import Ruleset
from ._round import RoundMachine
from .games import ROUND_NAME, ZanzibarRoundGame, ZanzibarState


def view_of(rnd: RoundMachine) -> View:
    """The :class:`View` of the seat to decide (``ValueError`` at a chance node or after the round)."""
    seat = rnd.current_seat
    if seat is None:
        raise ValueError(f"no seat decides here ({rnd.where()})")
    n, hands, pos = rnd.n, rnd.ruleset.table.hands, rnd.pos
    active = [s in rnd.order for s in range(n)]
    return View(
        ruleset=rnd.ruleset,
        seat=seat,
        num_players=n,
        dice=MULTISETS[rnd.ms],
        rolls_used=rnd.rolls_used,
        roll_limit=rnd.turn_limit,
        is_first=pos == 0,
        players_after=len(rnd.order) - pos - 1,
        lowest=hands[rnd.hands[rnd.lo_seat]] if rnd.lo >= 0 else None,
        lowest_count=rnd.lo_count,
        highest=hands[rnd.hands[rnd.hi_seat]] if rnd.hi >= 0 else None,
        earlier_payments=rnd.paid,
        stacks=tuple(rnd.stacks[(seat + k) % n] for k in range(n)),
        active=tuple(active[(seat + k) % n] for k in range(n)),
        turn_best_rank=rnd.best_rank,
    )


def _ms_of_rank(ruleset: Ruleset, rank: int) -> int:
    return MULTISET_INDEX[ruleset.table.hand_of_rank(rank).dice]


def machine_from_view(view: View) -> RoundMachine:
    """A round at the decision ``view`` shows (see the module docstring for the earlier seats' hands)."""
    n, seat, rules = view.num_players, view.seat, view.ruleset
    stacks = [view.stacks[(s - seat) % n] for s in range(n)]
    active = [view.active[(s - seat) % n] for s in range(n)]
    clockwise = [(seat + k) % n for k in range(n) if active[(seat + k) % n]]
    pos = len(clockwise) - view.players_after - 1
    rnd = RoundMachine(rules, stacks, clockwise[-pos] if pos else seat)
    lo = view.lowest.rank if view.lowest is not None else -1
    hi = view.highest.rank if view.highest is not None else -1
    for k in range(pos):  # the earlier seats end their turns through the machine's own turn end
        rnd.ms = rnd.best_ms = _ms_of_rank(rules, lo if k < view.lowest_count else hi)
        rnd.rolls_used = view.roll_limit if k == 0 and rules.first_roller_sets_limit else 1
        rnd._end_turn()
    rnd.paid = view.earlier_payments
    rnd.ms = MULTISET_INDEX[view.dice]
    best = view.turn_best_rank if view.turn_best_rank >= 0 else rnd.tables.rank[rnd.ms]
    rnd.best_rank = best
    rnd.best_ms = rnd.ms if rnd.tables.rank[rnd.ms] == best else _ms_of_rank(rules, best)
    rnd.rolls_used, rnd.turn_limit, rnd.pending = view.rolls_used, view.roll_limit, None
    return rnd


_GAMES: dict[tuple[int, int], tuple[Ruleset, ZanzibarRoundGame]] = {}


def round_game(ruleset: Ruleset, num_players: int) -> ZanzibarRoundGame:
    """The ``python_zanzibar_round`` game of a :class:`Ruleset` object (cached per ruleset and size)."""
    hit = _GAMES.get((id(ruleset), num_players))
    if hit is None or hit[0] is not ruleset:
        game = ZanzibarRoundGame({"players": num_players}, ruleset=ruleset)
        hit = _GAMES[(id(ruleset), num_players)] = (ruleset, game)
    return hit[1]


def state_from_view(view: View, game: ZanzibarRoundGame | None = None) -> ZanzibarState:
    """A ``python_zanzibar_round`` state at the decision ``view`` shows (no history: it cannot be
    serialized; clone, apply and returns work as usual)."""
    game = game if game is not None else round_game(view.ruleset, view.num_players)
    if game.short_name != ROUND_NAME:
        raise ValueError("state_from_view builds states of python_zanzibar_round")
    state = game.new_initial_state()
    state.round, state.from_view = machine_from_view(view), True  # (no history: serialize refuses it)
    return state


def _act(agent: Any, state: ZanzibarState) -> int:
    return K.check_action(agent.act(view_of(state.round)), state.round.tables.legal_mask, f" from {agent!r}")


class AgentPolicy(os_policy.Policy):
    """One of our agents as an OpenSpiel policy (probability 1 on its action; ``random``: uniform)."""

    def __init__(self, game: Any, agent: Any = "optimal", seed: int | None = None) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.agent = make_agent(agent, seed=seed)

    def action_probabilities(self, state: ZanzibarState, player_id: int | None = None) -> dict[int, float]:
        legal = state.legal_actions()
        if getattr(self.agent, "name", "") == "random":
            return {a: 1.0 / len(legal) for a in legal}
        return {_act(self.agent, state): 1.0}


class AgentBot(pyspiel.Bot):
    """One of our agents as a ``pyspiel.Bot`` (for ``pyspiel.evaluate_bots`` and OpenSpiel's tools)."""

    def __init__(self, agent: Any = "optimal", seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = make_agent(agent, seed=seed)

    def step(self, state: ZanzibarState) -> int:
        return _act(self.agent, state)

    def restart_at(self, state: Any) -> None:
        pass
