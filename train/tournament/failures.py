"""An agent that fails mid-tournament: one line naming the agent, the game and the seat, and its own exit code.

An agent that raises, or answers something that is not a legal integer hold mask, stops the tournament
with :class:`AgentFailed`; its ``partial`` holds the deals finished before the failing one (marked
incomplete, as after Ctrl-C; ``None`` if none was). The command writes those to ``--out`` (``"complete":
false``), prints ``error: agent 'NAME' failed in game G (deal D, seat S): WHAT; K of N games played before
it, written to OUT marked incomplete`` and exits with :data:`EXIT_AGENT_FAILED` (3), distinct from a disk
error (1) and bad options (2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zanzibar_env.core import kernel as K

#: Exit code of a tournament stopped by an agent that raised or answered badly.
EXIT_AGENT_FAILED = 3


class AgentFailed(ValueError):
    """An agent raised or answered badly in a game: ``agent`` (its name), ``game``, ``deal``, ``seat``."""

    def __init__(self, agent: str, game: int, deal: int, seat: int, cause: BaseException) -> None:
        what = f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}".rstrip(": ")
        super().__init__(f"agent {agent!r} failed in game {game} (deal {deal}, seat {seat}): {what[:300]}")
        self.agent, self.game, self.deal, self.seat = agent, game, deal, seat
        self.partial: Any = None  # the deals finished before it (set by play_tournament)

    def __reduce__(self) -> tuple[Any, ...]:  # (from a worker process: the message as it was)
        return (_rebuild, (str(self), self.agent, self.game, self.deal, self.seat))


def _rebuild(message: str, agent: str, game: int, deal: int, seat: int) -> AgentFailed:
    e = AgentFailed.__new__(AgentFailed)
    ValueError.__init__(e, message)
    e.agent, e.game, e.deal, e.seat, e.partial = agent, game, deal, seat, None
    return e


def agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


def first_bad(act: Any, legal: np.ndarray) -> int:
    """The index of the first answer in ``act`` that is not a legal integer hold mask (0 if none is)."""
    values = np.asarray(act, dtype=object).reshape(-1)
    for i, a in enumerate(values.tolist()):
        try:
            K.check_action(a, legal)
        except ValueError:
            return i
    return 0


class GuardedPolicy:
    """A tournament seat's agent as a policy for ``play_game``: anything it raises, and any answer that is
    not a legal hold mask, becomes :class:`AgentFailed` naming the agent, ``game``, ``deal`` and ``seat``."""

    def __init__(self, agent: Any, game: int, deal: int, seat: int) -> None:
        self.agent, self.where = agent, (game, deal, seat)

    def act(self, view: Any) -> int:
        try:
            return K.check_action(self.agent.act(view), K.legal_mask(view.ruleset.holds_allowed))
        except (KeyboardInterrupt, AgentFailed):
            raise
        except Exception as e:
            raise AgentFailed(agent_name(self.agent), *self.where, e) from None
