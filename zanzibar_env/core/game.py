"""A game: rounds until someone empties their chips (or one player is left with lives), or truncation.

:class:`GameState` chains :class:`~zanzibar_env.core.engine.RoundState` objects; :func:`play_round` and
:func:`play_game` run them from per-seat policies and a seed (or scripted dice) and return records;
:func:`replay_game` re-plays a record and checks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from typing import Any, Protocol

import numpy as np

from . import settlement as S
from .checks import check_agent_object, check_seed, show
from .deprecated import warn_renamed
from .dice import DiceSource, ScriptedDice, as_dice_source
from .engine import RoundState, View
from .records import GameRecord, RoundRecord
from .rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset, load_ruleset


class Agent(Protocol):
    """Anything with ``act(view) -> hold mask``; plain functions ``view -> int`` are accepted too."""

    def act(self, view: View) -> int: ...


Policy = Agent | Callable[[View], int]


def as_policy(p: Any) -> Callable[[View], int]:
    """Turn an agent object (with a callable ``act``) or a function of the view into ``view -> action``;
    ``ValueError`` for a class, an object whose ``act`` is not callable, or anything else."""
    if hasattr(p, "act") or isinstance(p, type):
        return check_agent_object(p, "policies").act
    if callable(p):
        return p
    raise ValueError(f"a policy must be a function of the view or have .act(view), got {show(p)}")


def _is_int(x: object) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def check_num_players(n: object) -> int:
    """Return ``n`` if it is a valid table size (2-8), else raise ``ValueError``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an integer {MIN_PLAYERS}-{MAX_PLAYERS}, got {n!r}")
    return int(n)


class GameState:
    """A game in progress. Rounds start by themselves; call :meth:`act` while :attr:`current_seat` is set."""

    def __init__(
        self,
        ruleset: Ruleset,
        num_players: int,
        dice: DiceSource,
        first_seat: int = 0,
        max_rounds: int | None = None,
        seed: int | None = None,
        stacks: Sequence[int] | None = None,
    ) -> None:
        n = check_num_players(num_players)
        if not _is_int(first_seat) or not 0 <= first_seat < n:
            raise ValueError(f"first_seat must be a seat 0-{n - 1}, got {first_seat!r}")
        if max_rounds is not None and (not _is_int(max_rounds) or max_rounds < 1):
            raise ValueError(f"max_rounds must be None or a positive integer, got {max_rounds!r}")
        self.ruleset = ruleset
        self._game_end = S.game_end_rule(ruleset)  # settlement.game_winners for this ruleset
        self.source = dice
        # the ruleset's, or the hard cap (RULES.md §12.2)
        self.max_rounds = max_rounds if max_rounds is not None else ruleset.round_cap
        self.record = GameRecord(ruleset.to_dict(), n, int(first_seat), check_seed(seed))
        self.stacks = [ruleset.starting_stack] * n
        if stacks is not None:
            self.stacks = _check_start_stacks(stacks, n, ruleset, first_seat)
        self.round: RoundState = RoundState(ruleset, self.stacks, int(first_seat), dice)
        self._advance()

    @property
    def num_players(self) -> int:
        return len(self.stacks)

    @property
    def done(self) -> bool:
        return self.round.done and (bool(self.record.winners) or self.record.truncated)

    @property
    def current_seat(self) -> int | None:
        return None if self.done else self.round.current_seat

    def view(self) -> View:
        if self.done:
            raise RuntimeError("the game is over")
        return self.round.view()

    def legal_actions(self) -> list[int]:
        return [] if self.done else self.round.legal_actions()

    def apply(self, action: int) -> None:
        """Apply a hold mask for the current player; finished rounds are settled and the next begins."""
        rnd = self.round
        if rnd.current_seat is None:  # a live game always has a round waiting for a decision
            raise RuntimeError("the game is over; start a new game")
        rnd.apply(action)
        if rnd.current_seat is None:
            self._advance()

    def act(self, action: int) -> None:
        """Deprecated alias of :meth:`apply` (agents ``act``, states ``apply``); removed in the next release."""
        warn_renamed("GameState.act", "GameState.apply")
        self.apply(action)

    def _advance(self) -> None:
        """Close finished rounds and start new ones until a decision is needed or the game ends."""
        record, rnd = self.record, self.round
        while rnd.current_seat is None and not (record.winners or record.truncated):  # self.done, inlined
            rec = rnd.record
            record.rounds.append(rec)
            self.stacks = list(rec.stacks_after)
            record.final_stacks = list(self.stacks)
            winners = self._winners(rec)
            if winners:
                record.winners = winners
            elif self.max_rounds is not None and len(record.rounds) >= self.max_rounds:
                record.truncated = True
            else:
                starter = S.next_starter(self.ruleset, self.stacks, rec.winner)
                rnd = self.round = RoundState(self.ruleset, self.stacks, starter, self.source, validate=False)

    def _winners(self, rec: RoundRecord) -> list[int]:
        """The game's winners after round ``rec`` (kernel: ``settlement.game_winners``); [] if it goes on."""
        played = [False] * len(self.stacks)
        for t in rec.turns:
            played[t.seat] = True
        won, over = self._game_end(rec.stacks_before, self.stacks, played, len(self.record.rounds))
        return list(compress(range(len(won)), won)) if over else []


def _check_start_stacks(stacks: Sequence[int], n: int, ruleset: Ruleset, first_seat: int) -> list[int]:
    """Starting stacks of a game (``settlement.start_problem``): ``n`` of them, valid for a game."""
    values = list(stacks)
    if len(values) != n:
        raise ValueError(f"got {len(values)} starting stacks for {n} players")
    problem = S.start_problem(ruleset, values, first_seat, whole_game=True)
    if problem is not None:
        raise ValueError(problem)
    return [int(v) for v in values]


def _stack_list(stacks: Any) -> list[Any]:
    """``stacks`` as a list: a list, tuple or 1-d array (its values are checked by the round or game)."""
    if isinstance(stacks, (list, tuple)) or (isinstance(stacks, np.ndarray) and stacks.ndim == 1):
        return list(stacks)
    raise ValueError(f"stacks must be a list of integers, one per player, got {show(stacks)}")


def _seats_of(policies: Any) -> int:
    """The table size a sequence of per-seat policies implies (2 for one policy or none)."""
    if not isinstance(policies, Sequence) or isinstance(policies, str):
        return 2
    if not MIN_PLAYERS <= len(policies) <= MAX_PLAYERS:
        raise ValueError(
            f"got {len(policies)} policies: give one per seat ({MIN_PLAYERS}-{MAX_PLAYERS} seats), "
            "or one policy and num_players"
        )
    return len(policies)


def _policies(policies: Policy | Sequence[Policy], n: int) -> list[Callable[[View], int]]:
    if isinstance(policies, Sequence) and not isinstance(policies, str):
        if len(policies) != n:
            raise ValueError(f"got {len(policies)} policies for {n} players; give one per seat or one")
        return [as_policy(p) for p in policies]
    return [as_policy(policies)] * n


def _run(state: GameState | RoundState, pols: list[Callable[[View], int]]) -> None:
    while state.current_seat is not None:
        state.apply(pols[state.current_seat](state.view()))


def play_round(
    ruleset: str | Ruleset = "classic",
    policies: Policy | Sequence[Policy] | None = None,
    *,
    num_players: int | None = None,
    stacks: Sequence[int] | None = None,
    starting_seat: int = 0,
    seed: int | np.random.Generator | None = None,
    dice: DiceSource | Iterable[int] | None = None,
) -> RoundRecord:
    """Play one round from per-seat policies (default: everyone stops at once) and return its record.

    Give ``seed`` (a non-negative integer or a ``numpy.random.Generator``) for random dice or ``dice`` (a
    list of faces, or a source) to replay a round exactly. A chips round needs a player with chips to pay
    (``stacks=[0, 0]`` is refused).
    """
    rules = load_ruleset(ruleset)
    if not isinstance(seed, np.random.Generator):
        seed = check_seed(seed)
    if stacks is None:
        stacks = [rules.starting_stack] * check_num_players(num_players if num_players is not None else 2)
    n = check_num_players(len(_stack_list(stacks)))
    if num_players is not None and check_num_players(num_players) != n:
        raise ValueError(f"num_players={num_players} but {n} stacks were given")
    pols = _policies(policies if policies is not None else (lambda v: 7), n)
    state = RoundState(rules, list(stacks), starting_seat, as_dice_source(dice, seed))
    _run(state, pols)
    return state.record


def play_game(
    ruleset: str | Ruleset = "classic",
    policies: Policy | Sequence[Policy] | None = None,
    *,
    num_players: int | None = None,
    first_seat: int = 0,
    seed: int | None = None,
    dice: DiceSource | Iterable[int] | None = None,
    max_rounds: int | None = None,
    stacks: Sequence[int] | None = None,
) -> GameRecord:
    """Play a whole game from per-seat policies and a seed (or scripted dice); return its record.

    ``num_players`` defaults to ``len(stacks)`` when starting ``stacks`` are given (by default everyone
    starts with the ruleset's ``starting_stack``), else to the number of ``policies`` when they are a
    sequence (one per seat), else 2.
    """
    rules = load_ruleset(ruleset)
    seed = check_seed(seed)
    if num_players is None:
        num_players = len(_stack_list(stacks)) if stacks is not None else _seats_of(policies)
    n = check_num_players(num_players)
    pols = _policies(policies if policies is not None else (lambda v: 7), n)
    state = GameState(rules, n, as_dice_source(dice, seed), first_seat, max_rounds, seed, stacks)
    _run(state, pols)
    return state.record


class _ScriptedActions:
    """Replays the recorded actions of every turn, in order."""

    def __init__(self, record: GameRecord) -> None:
        self.actions = [a for r in record.rounds for t in r.turns for a in t.actions]
        self.pos = 0

    def __call__(self, view: View) -> int:
        if self.pos >= len(self.actions):
            raise ValueError("replay ran out of recorded actions: the record is inconsistent")
        self.pos += 1
        return self.actions[self.pos - 1]


def replay_game(record: GameRecord) -> GameRecord:
    """Re-play a game from its recorded dice and actions; raises ``ValueError`` if it does not match."""
    rules = Ruleset.from_dict(record.ruleset)
    dice = ScriptedDice([d for r in record.rounds for d in r.dice_drawn])
    again = play_game(
        rules,
        _ScriptedActions(record),
        num_players=record.num_players,
        first_seat=record.first_seat,
        dice=dice,
        max_rounds=len(record.rounds) if record.truncated else None,
        stacks=record.rounds[0].stacks_before if record.rounds else None,
    )
    again.seed = record.seed
    if again.game_dict() != record.game_dict():
        raise ValueError("replay does not reproduce the record (different rounds, stacks or winners)")
    return again
