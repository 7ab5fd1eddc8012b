"""The OpenSpiel games ``python_zanzibar_round`` and ``python_zanzibar`` (pyspiel is imported here).

Both are sequential, explicit-stochastic, perfect-information games over :class:`RoundMachine` (every
rule from the kernel and the settlement); see :mod:`zanzibar_env.envs.openspiel` for the interface.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ...core import settlement as S
from ...core.checks import is_int, show
from ...core.game import check_num_players
from ...core.kernel import NUM_ACTIONS, chips_of_category, lives_lost_by_rank
from ...core.observation import OBS_SIZE, encoder
from ...core.rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset, load_ruleset
from ._round import DICE_OUTCOMES, MAX_CHANCE_OUTCOMES, ROLLOFF_BASE, RoundMachine
from .serial import deserialize as _deserialize
from .serial import serialize as _serialize

ROUND_NAME, GAME_NAME = "python_zanzibar_round", "python_zanzibar"
#: Parameters of both games (``max_rounds`` only of the whole game): ruleset name or YAML path, table
#: size, starting stacks (comma-separated, one per seat; "" = the ruleset's starting stack), the seat
#: that rolls first, and a cap on the game's rounds (0 = the ruleset's ``max_rounds``, or its hard cap).
ROUND_PARAMS: dict[str, Any] = {"ruleset": "classic", "players": 2, "stacks": "", "starting_seat": 0}
GAME_PARAMS: dict[str, Any] = {**ROUND_PARAMS, "max_rounds": 0}


def _game_type(short_name: str, ruleset: Ruleset | None, params: dict[str, Any]) -> pyspiel.GameType:
    zero_sum = ruleset is None or ruleset.stake == "chips"  # lives and penalty points are not zero-sum
    U = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=short_name,
        long_name=f"Python Zanzibar ({'one round' if short_name == ROUND_NAME else 'a whole game'})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=U.ZERO_SUM if zero_sum else U.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def parse_params(params: dict[str, Any], spec: dict[str, Any]) -> tuple[Ruleset, list[int], int, int]:
    """``(ruleset, stacks, starting_seat, max_rounds)`` from game parameters, or ``ValueError`` naming
    the parameter at fault."""
    unknown = sorted(set(params) - set(spec))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} for Zanzibar; parameters: {sorted(spec)}")
    p = {**spec, **params}
    try:
        ruleset = load_ruleset(str(p["ruleset"]))
    except (ValueError, OSError) as e:
        raise ValueError(f"parameter ruleset={p['ruleset']!r}: {e}") from None
    n = check_num_players(p["players"])
    text = str(p["stacks"]).strip()
    try:
        stacks = [int(x) for x in text.split(",")] if text else [ruleset.starting_stack] * n
    except ValueError:
        raise ValueError(f"parameter stacks={text!r} must be comma-separated integers") from None
    if len(stacks) != n:
        raise ValueError(f"parameter stacks={text!r}: need {n} non-negative stacks for players={n}")
    seat = int(p["starting_seat"])
    problem = S.start_problem(ruleset, stacks, seat, whole_game="max_rounds" in spec)
    if problem is not None:
        raise ValueError(f"parameters stacks={text!r}, starting_seat={seat}: {problem}")
    max_rounds = int(p.get("max_rounds", 0)) or ruleset.round_cap
    if max_rounds < 1:
        raise ValueError(f"parameter max_rounds={p['max_rounds']} must be 0 (the ruleset's) or positive")
    return ruleset, stacks, seat, max_rounds


def _round_length(ruleset: Ruleset, n: int) -> int:
    """Most moves in a round: every turn's throws and decisions, and at most ``n - 1`` roll-off nodes."""
    return n * (2 * ruleset.max_rolls - 1) + n - 1


def _utility_bounds(ruleset: Ruleset, stacks: list[int], rounds: int) -> tuple[float, float]:
    """Bounds on a seat's return (chips given minus received; lives lost; penalty points taken)."""
    n = len(stacks)
    if ruleset.stake == "chips":
        most = sum(stacks) if rounds > 1 else (n - 1) * int(chips_of_category(ruleset).max())
        return -float(most), float(most)
    per_round = int(lives_lost_by_rank(ruleset).max())
    if ruleset.stake == "lives":
        return -float(max(stacks) if rounds > 1 else per_round), 0.0
    return -float(per_round * ((ruleset.num_rounds or 1) if rounds > 1 else 1)), 0.0


class ZanzibarRoundGame(pyspiel.Game):
    """One round of Zanzibar (``python_zanzibar_round``): returns are the round's chip results."""

    short_name, param_spec = ROUND_NAME, ROUND_PARAMS

    def __init__(self, params: dict[str, Any] | None = None, ruleset: Ruleset | None = None) -> None:
        params = dict(params or {})
        if ruleset is not None:  # a Ruleset object (not a name): zanzibar_env.envs.openspiel.round_game
            params.setdefault("ruleset", ruleset.name)
        rules, stacks, seat, max_rounds = parse_params(params, self.param_spec)
        self.ruleset = ruleset if ruleset is not None else rules
        self.stacks, self.starting_seat, self.max_rounds = stacks, seat, max_rounds
        rounds = 1 if self.short_name == ROUND_NAME else max_rounds
        lo, hi = _utility_bounds(self.ruleset, stacks, rounds)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=MAX_CHANCE_OUTCOMES,
            num_players=len(stacks),
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if self.ruleset.stake == "chips" else None,
            max_game_length=_round_length(self.ruleset, len(stacks)) * rounds,
        )
        super().__init__(_game_type(self.short_name, self.ruleset, self.param_spec), info, params)
        self.initial_round = RoundMachine(self.ruleset, stacks, seat)

    def new_initial_state(self) -> ZanzibarState:
        return ZanzibarState(self)

    def deserialize_state(self, text: str) -> ZanzibarState:
        """The state :meth:`ZanzibarState.serialize` wrote: actions replayed, never unpickled
        (:mod:`~zanzibar_env.envs.openspiel.serial`); ``ValueError`` for any other string."""
        return _deserialize(self, text)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(params)


class ZanzibarGame(ZanzibarRoundGame):
    """A whole game (``python_zanzibar``): rounds until the ruleset's end or ``max_rounds``; returns
    are the game's chip results (lives: minus lives lost; penalty: minus points)."""

    short_name, param_spec = GAME_NAME, GAME_PARAMS


class _Fixed:
    """What a state shares with its game and every clone (never copied: pyspiel clones by deepcopy)."""

    def __init__(self, game: ZanzibarRoundGame) -> None:
        self.ruleset, self.whole_game = game.ruleset, game.short_name == GAME_NAME
        self.max_rounds, self.start_stacks = game.max_rounds, list(game.stacks)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Fixed:
        return self


class ZanzibarState(pyspiel.State):
    """A state of either game: the round in progress (:class:`RoundMachine`) and, for the whole game,
    the stacks and rounds so far. ``str(state)`` is a sufficient description (equal for equal futures)."""

    def __init__(self, game: ZanzibarRoundGame) -> None:
        super().__init__(game)
        self.fixed = _Fixed(game)
        self.round = game.initial_round.copy()
        self.rounds_played, self.truncated = 0, False
        self.winners: tuple[int, ...] = ()

    @property
    def ruleset(self) -> Ruleset:
        return self.fixed.ruleset

    # ---- OpenSpiel's interface ------------------------------------------------------------------
    def current_player(self) -> int:
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        seat = self.round.current_seat
        return int(pyspiel.PlayerId.CHANCE) if seat is None else seat

    def is_terminal(self) -> bool:
        return self.round.done and (not self.fixed.whole_game or bool(self.winners) or self.truncated)

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.round.tables.legal) if player == self.round.current_seat else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.round.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.round.current_seat is None:
            self.round.chance(action)
        else:
            self.round.apply(action)
        if self.fixed.whole_game and self.round.done:
            self._next_round()

    def serialize(self) -> str:
        """The actions played, as data (``zanzibar-state 1``; :mod:`~zanzibar_env.envs.openspiel.serial`)."""
        return _serialize(self)

    def _seat(self, player: Any, what: str) -> int:
        """``player`` (``None``: the seat to act) if it is a seat of this table, else ``ValueError``."""
        n = self.round.n
        if player is None:
            player = self.current_player()
            if not 0 <= player < n:
                raise ValueError(
                    f"{what}() with no player at a node where no seat acts: pass a seat 0..{n - 1}"
                )
        if not is_int(player) or not 0 <= player < n:
            raise ValueError(
                f"{what}: player must be a seat 0..{n - 1} of this {n}-player game, got {show(player)}"
            )
        return int(player)

    def apply_action(self, action: Any) -> None:
        """OpenSpiel's ``apply_action``, with an action that is not an integer id refused in words."""
        if not is_int(action) or not 0 <= action < MAX_CHANCE_OUTCOMES:
            raise ValueError(f"action must be an integer id 0..{MAX_CHANCE_OUTCOMES - 1}, got {show(action)}")
        super().apply_action(int(action))

    def legal_actions(self, player: Any = None) -> list[int]:
        if player is None:
            return list(super().legal_actions())
        return list(super().legal_actions(self._seat(player, "legal_actions")))

    def observation_tensor(self, player: Any = None) -> list[float]:
        return list(super().observation_tensor(self._seat(player, "observation_tensor")))

    def information_state_tensor(self, player: Any = None) -> list[float]:
        return list(super().information_state_tensor(self._seat(player, "information_state_tensor")))

    def observation_string(self, player: Any = None) -> str:
        return str(super().observation_string(self._seat(player, "observation_string")))

    def information_state_string(self, player: Any = None) -> str:
        return str(super().information_state_string(self._seat(player, "information_state_string")))

    def _action_to_string(self, player: int, action: int) -> str:
        if not 0 <= action < MAX_CHANCE_OUTCOMES:
            raise ValueError(
                f"action {action} is not an action id of Zanzibar (0..{MAX_CHANCE_OUTCOMES - 1})"
            )
        if player != int(pyspiel.PlayerId.CHANCE) and action >= NUM_ACTIONS:
            raise ValueError(f"action {action} is not a hold mask 0..{NUM_ACTIONS - 1}")
        if player != int(pyspiel.PlayerId.CHANCE):
            kept = [i for i in range(3) if action >> i & 1]
            return "stop" if action == 7 else f"keep sorted dice {kept}" if kept else "re-throw all"
        if action >= ROLLOFF_BASE:
            return f"roll-off: seats {[s for s in range(MAX_PLAYERS) if action - ROLLOFF_BASE >> s & 1]} tied"
        return f"throw {''.join(map(str, DICE_OUTCOMES[action]))}" if action < len(DICE_OUTCOMES) else "?"

    def returns(self) -> list[float]:
        if not self.round.done:
            return [0.0] * self.round.n
        start = self.fixed.start_stacks if self.fixed.whole_game else list(self.round.stacks_before)
        return [
            float(S.chip_reward(self.ruleset, a - b)) for a, b in zip(self.round.stacks, start, strict=True)
        ]

    def __str__(self) -> str:
        head = (
            f"round {self.rounds_played + 1} of {self.fixed.max_rounds} | " if self.fixed.whole_game else ""
        )
        tail = (
            f" | winners {list(self.winners)}" if self.winners else " | truncated" if self.truncated else ""
        )
        return head + self.round.key() + tail

    # ---- the whole game: settlement.game_winners and settlement.next_starter between rounds --------
    def _next_round(self) -> None:
        rnd = self.round
        self.rounds_played += 1
        played = [s in rnd.hands for s in range(rnd.n)]
        won, over = S.game_winners(self.ruleset, rnd.stacks_before, rnd.stacks, played, self.rounds_played)
        if over:
            self.winners = tuple(s for s, w in enumerate(won) if w)
        elif self.rounds_played >= self.fixed.max_rounds:
            self.truncated = True
        else:
            starter = S.next_starter(self.ruleset, list(rnd.stacks), rnd.winner)
            self.round = RoundMachine(self.ruleset, list(rnd.stacks), starter)


class Observer:
    """Observation and information-state tensors: the 33 floats of ``core/observation.py``
    (``OBS_LAYOUT``) of ``player`` when it is to decide; otherwise zeros but the seat blocks and the
    table size (the envs' observation of a seat that does not act). Strings: the full state."""

    def __init__(self, params: Any = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ZanzibarState, player: int) -> None:
        self.tensor[:] = observation(state.round, player)

    def string_from(self, state: ZanzibarState, player: int) -> str:
        return str(state)


def observation(rnd: RoundMachine, player: int) -> np.ndarray:
    """``float32[33]``: what ``player`` sees (:class:`Observer`)."""
    e, n = encoder(rnd.ruleset), rnd.n
    stacks = [rnd.stacks[(player + k) % n] for k in range(n)]
    active = [(player + k) % n in rnd.order for k in range(n)]
    if player != rnd.current_seat:
        return e.terminal(np.array([stacks]), np.array([active]))[0]
    pos = rnd.pos
    return e.one(
        rnd.ms,
        rnd.best_rank,
        rnd.rolls_used,
        rnd.turn_limit,
        pos == 0,
        len(rnd.order) - pos - 1,
        rnd.lo,
        rnd.lo_count,
        rnd.hi,
        rnd.paid,
        e.tail(stacks, active),
    )
