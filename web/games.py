"""Games a person plays in the arena: one :class:`Session` per game, kept in a bounded :class:`GameStore`.

A session holds a :class:`~zanzibar_env.core.game.GameState`, the person's seat and a bot (found by
registry name) in every other seat. :meth:`Session.move` plays the person's hold, gives its exact cost
(:mod:`.hints`) and lets the bots play until the person's next decision or the end of the game.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from zanzibar_env.core.dice import RandomDice
from zanzibar_env.core.game import GameState
from zanzibar_env.core.made_for import check_made_for
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import MAX_GAME_ROUNDS, Ruleset
from zanzibar_env.ui.narrate import describe_result, describe_round, describe_turn, seat_names
from zanzibar_env.ui.svg import game_svg

from .hints import HoldValues, hold_values, hold_words, what_values_mean
from .rules_help import capped_payments

#: most bot decisions played in one request (a lives game whose person is out is played on by the bots)
MAX_BOT_STEPS = 20_000


class Refused(ValueError):
    """A request the arena refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def seat_bot(name: str, rules: Ruleset, players: int, seed: int) -> Any:
    """The bot ``name`` for a table of ``players`` under ``rules``; a learned bot made for other rules
    or another table size is refused (:mod:`zanzibar_env.core.made_for`; the arena has no opt-in)."""
    agent = make_agent(name, seed=seed)
    where = f"in the arena under {rules.name!r} at {players} players"
    try:
        check_made_for(agent, rules, players, where=where, opt_in=None)
    except ValueError as e:
        raise Refused(str(e), 422) from None
    return agent


@dataclass
class Session:
    """One game: the state, the person's seat, the bots, what happened since the last move."""

    id: str
    game: GameState
    seat: int
    bots: dict[int, Any]
    bot_names: dict[int, str]
    hints: bool
    touched: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)
    log: list[str] = field(default_factory=list)
    feedback: list[dict[str, Any]] = field(default_factory=list)  # every decision of the person, in order
    told: tuple[int, int] = (0, 0)  # rounds and turns of the round in progress already logged

    @property
    def names(self) -> list[str]:
        return seat_names(self.game.num_players, self.seat)

    def _run_bots(self) -> None:
        game, steps = self.game, 0
        while not game.done and game.current_seat != self.seat and steps < MAX_BOT_STEPS:
            seat = game.current_seat
            assert seat is not None
            game.apply(int(self.bots[seat].act(game.view())))
            steps += 1
            self._narrate()

    def _narrate(self) -> None:
        """Log the turns and rounds finished since the last call (capped payments explained)."""
        rec, rules, names = self.game.record, self.game.ruleset, self.names
        rounds, turns = self.told
        while rounds < len(rec.rounds):
            r = rec.rounds[rounds]
            self.log.extend(describe_turn(t, rules, names) for t in r.turns[turns:])
            self.log.extend(describe_round(r, rules, names))
            self.log.extend(capped_payments(r, rules, names))
            rounds, turns = rounds + 1, 0
        if self.game.done:
            if self.told[0] < len(rec.rounds):
                self.log.append(describe_result(rec, names))
        else:
            now = self.game.round.record.turns
            self.log.extend(describe_turn(t, rules, names) for t in now[turns:])
            turns = len(now)
        self.told = (rounds, turns)

    def start(self) -> None:
        """Let the bots play until the person's first decision."""
        self._run_bots()

    def values(self) -> HoldValues:
        """The exact value of each hold at the person's decision now."""
        if self.game.done or self.game.current_seat != self.seat:
            raise Refused("it is not your decision", 409)
        try:
            return hold_values(self.game.view())
        except (ValueError, NotImplementedError) as e:
            raise Refused(f"no exact values at this state: {e}", 422) from None

    def move(self, action: int) -> dict[str, Any]:
        """Play the person's hold ``action`` and the bots after it; the decision's exact feedback."""
        game = self.game
        if game.done:
            raise Refused("the game is over; start a new one", 409)
        if action not in game.legal_actions():
            raise Refused(f"hold {action} is not legal here; legal holds: {game.legal_actions()}")
        view = game.view()
        fb: dict[str, Any] = {  # built before the hold is played: a failure leaves the game as it was
            "decision": len(self.feedback) + 1,
            "dice": list(view.dice),
            "roll": view.rolls_used,
            "action": action,
            "text": hold_words(view.dice, action),
        }
        try:
            values = self.values()
        except Refused as e:  # no solved table fits this state: the move is played without its value
            if e.status != 422:
                raise
            fb |= {"best": None, "best_text": "", "cost": None, "values": [], "note": str(e)}
        else:
            best = values.best
            fb |= {
                "best": best,
                "best_text": hold_words(view.dice, best),
                "cost": round(values.cost(action), 6),
            }
            fb["values"] = values.rows()
        self.log = []
        game.apply(action)
        self._narrate()
        self.feedback.append(fb)
        self._run_bots()
        return fb

    def state(self) -> dict[str, Any]:
        """What the page shows: the table (SVG), whose turn, the legal holds, stacks, the log."""
        game = self.game
        mine = not game.done and game.current_seat == self.seat
        view = game.view() if mine else None
        out: dict[str, Any] = {
            "id": self.id,
            "ruleset": game.ruleset.name,
            "players": game.num_players,
            "seat": self.seat,
            "bots": {str(k): v for k, v in self.bot_names.items()},
            "over": game.done,
            "your_turn": mine,
            "svg": game_svg(game, self.seat),
            "stacks": list(game.record.final_stacks if game.done else game.round.snapshot().stacks),
            "winners": list(game.record.winners),
            "log": list(self.log),
            "decisions": len(self.feedback),
            "hints_on": self.hints,
            "values_mean": what_values_mean(game.ruleset),
        }
        if view is not None:
            out["dice"] = list(view.dice)
            out["roll"], out["roll_limit"] = view.rolls_used, view.roll_limit
            out["legal"] = [{"action": a, "text": hold_words(view.dice, a)} for a in game.legal_actions()]
            if self.hints:
                try:
                    out["hints"] = self.values().rows()
                except Refused as e:  # no solved table fits: the game goes on without hints
                    out["hints_error"] = str(e)
        return out


class GameStore:
    """Open games by id, at most ``max_games`` at once; a game untouched for ``idle_seconds`` expires."""

    def __init__(self, max_games: int = 64, idle_seconds: float = 1800.0) -> None:
        self.max_games, self.idle_seconds = max_games, idle_seconds
        self._games: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._checked = 0.0

    def __len__(self) -> int:
        return len(self._games)

    def expire(self) -> int:
        """Drop the games idle for longer than ``idle_seconds``; how many were dropped (checked at most
        ten times a second)."""
        now = time.monotonic()
        if now - self._checked < 0.1 and self.idle_seconds >= 1:
            return 0
        self._checked = now
        with self._lock:
            old = [k for k, s in self._games.items() if now - s.touched > self.idle_seconds]
            for k in old:
                del self._games[k]
        return len(old)

    def get(self, game_id: str) -> Session:
        self.expire()
        s = self._games.get(game_id)
        if s is None:
            raise Refused(f"no open game {game_id[:40]!r} (finished games expire when idle)", 404)
        s.touched = time.monotonic()
        return s

    def close(self, game_id: str) -> None:
        """Forget a game (its place is free at once)."""
        self.get(game_id)
        with self._lock:
            self._games.pop(game_id, None)

    def open(
        self, rules: Ruleset, players: int, bots: list[str], seat: int, hints: bool, seed: int
    ) -> Session:
        """A new game (bots already played up to the person's first decision); refused when full."""
        self.expire()
        with self._lock:
            if len(self._games) >= self.max_games:
                raise Refused(f"too many open games ({self.max_games}); try again when one expires", 429)
            game_id = secrets.token_urlsafe(12)
            cap = rules.max_rounds or MAX_GAME_ROUNDS
            game = GameState(rules, players, RandomDice(seed), 0, cap, seed)
            others = [s for s in range(players) if s != seat]
            names = {s: bots[k % len(bots)] for k, s in enumerate(others)}
            agents = {s: seat_bot(names[s], rules, players, seed + s) for s in others}
            session = Session(game_id, game, seat, agents, names, hints)
            self._games[game_id] = session
        with session.lock:
            session.start()
        return session
