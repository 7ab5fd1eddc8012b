"""A small live tournament between bots: games played in a background thread, standings read at any time.

Every game seats ``players`` bots of the line-up, rotating so that each bot meets each seat; a bot's win
rate counts a shared win as a fraction. The 95% interval is Wilson's score interval. For rated,
duplicate-dice tournaments use ``zanzibar tournament``.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from zanzibar_env.core.game import play_game
from zanzibar_env.core.rules import MAX_GAME_ROUNDS, Ruleset

from .games import Refused, seat_bot

#: rounds after which a tournament game is cut short (a draw for everyone at the table)
MAX_ROUNDS = 2000


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% score interval of a win rate (``(0, 1)`` with no games)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    lo = 0.0 if wins <= 0 else max(0.0, centre - half)  # exact ends at 0 and at all wins (no rounding)
    return lo, 1.0 if wins >= games else min(1.0, centre + half)


@dataclass
class Tournament:
    """``games`` games of ``players`` seats between the bots of ``lineup`` under ``rules``."""

    id: str
    rules: Ruleset
    lineup: list[str]
    players: int
    games: int
    seed: int
    played: int = 0
    wins: dict[str, float] = field(default_factory=dict)
    seats: dict[str, int] = field(default_factory=dict)
    error: str = ""
    started: float = field(default_factory=time.monotonic)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        """Play every game (stops early when :attr:`stop` is set or a bot fails)."""
        agents = {name: seat_bot(name, self.rules, self.players, self.seed) for name in set(self.lineup)}
        cap = min(self.rules.max_rounds or MAX_GAME_ROUNDS, MAX_ROUNDS)
        try:
            for g in range(self.games):
                if self.stop.is_set():
                    return
                names = [self.lineup[(g + k) % len(self.lineup)] for k in range(self.players)]
                rec = play_game(
                    self.rules,
                    [agents[n] for n in names],
                    num_players=self.players,
                    seed=self.seed + g,
                    max_rounds=cap,
                )
                for s, n in enumerate(names):
                    self.seats[n] = self.seats.get(n, 0) + 1
                    if s in rec.winners:
                        self.wins[n] = self.wins.get(n, 0.0) + 1 / len(rec.winners)
                self.played = g + 1
        except (ValueError, RuntimeError, NotImplementedError) as e:
            self.error = f"a bot failed: {str(e)[:200]}"

    def report(self) -> dict[str, Any]:
        """Games played and each bot's win rate with its 95% interval."""
        rows: list[dict[str, Any]] = []
        for name in dict.fromkeys(self.lineup):
            n, w = self.seats.get(name, 0), self.wins.get(name, 0.0)
            lo, hi = wilson(w, n)
            rows.append(
                {
                    "bot": name,
                    "seats": n,
                    "wins": round(w, 3),
                    "rate": w / n if n else None,
                    "low": lo,
                    "high": hi,
                }
            )
        rows.sort(key=lambda r: -float(r["rate"] or 0.0))
        done = self.played >= self.games or bool(self.error)
        return {
            "id": self.id,
            "ruleset": self.rules.name,
            "players": self.players,
            "games": self.games,
            "played": self.played,
            "done": done,
            "error": self.error,
            "standings": rows,
            "seconds": round(time.monotonic() - self.started, 2),
        }


class TournamentStore:
    """Running and finished tournaments; at most ``max_running`` at once and ``max_kept`` kept."""

    def __init__(self, max_running: int = 2, max_kept: int = 20) -> None:
        self.max_running, self.max_kept = max_running, max_kept
        self._all: dict[str, Tournament] = {}
        self._lock = threading.Lock()

    def start(self, rules: Ruleset, lineup: list[str], players: int, games: int, seed: int) -> Tournament:
        """Start a tournament in a thread; refused when ``max_running`` run already or a bot cannot sit here."""
        for name in set(
            lineup
        ):  # a bot that cannot be built or cannot sit here is refused now, not in the thread
            seat_bot(name, rules, players, seed)
        with self._lock:
            running = sum(
                t.played < t.games and not t.error and not t.stop.is_set() for t in self._all.values()
            )
            if running >= self.max_running:
                raise Refused(f"{running} tournaments are running already (at most {self.max_running})", 429)
            for old in list(self._all)[: max(0, len(self._all) - self.max_kept + 1)]:
                self._all[old].stop.set()
                del self._all[old]
            t = Tournament(secrets.token_urlsafe(9), rules, lineup, players, games, seed)
            self._all[t.id] = t
        threading.Thread(target=t.run, name=f"tournament-{t.id}", daemon=True).start()
        return t

    def get(self, tid: str) -> Tournament:
        t = self._all.get(tid)
        if t is None:
            raise Refused(f"no tournament {tid[:40]!r}", 404)
        return t

    def stop_all(self) -> None:
        for t in self._all.values():
            t.stop.set()
