"""Bots that misbehave, for the hostile tests of tournaments and the exact API (``tests.hostile.hostile_bots:Raiser``).

Each has only ``act(view)`` (the documented protocol, no base class) and takes ``seed`` as the registry
passes it."""

from __future__ import annotations

from typing import Any


class Raiser:
    """Raises at its second throw of a turn."""

    name = "raiser"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, view: Any) -> int:
        if view.rolls_used >= 2:
            raise RuntimeError("boom")
        return 0


class Fractional:
    """Answers 6.9 (not an integer hold mask)."""

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, view: Any) -> Any:
        return 6.9


class Stopper:
    """A well-behaved act-only bot: always stops."""

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, view: Any) -> int:
        return 7


class Unlucky:
    """Raises on a three of a kind at its first throw (about one turn in 36; the same view always gives
    the same answer, so a deal played again fails again), else stops."""

    name = "unlucky"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def act(self, view: Any) -> int:
        if view.rolls_used == 1 and len(set(view.dice)) == 1:
            raise RuntimeError("three of a kind")
        return 7
