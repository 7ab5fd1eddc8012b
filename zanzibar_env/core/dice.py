"""Where dice come from: an injected ``numpy.random.Generator``, or a script that replays a round exactly."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import numpy as np

from .checks import check_seed


@runtime_checkable
class DiceSource(Protocol):
    """Anything that can throw ``n`` dice, each an int 1..6."""

    def roll(self, n: int) -> list[int]: ...


class RandomDice:
    """Fair dice from an injected generator, buffered for speed; the same seed gives the same dice."""

    def __init__(self, rng: np.random.Generator | int | None = None, buffer: int = 1024) -> None:
        self.rng = (
            rng if isinstance(rng, np.random.Generator) else np.random.default_rng(check_seed(rng, "rng"))
        )
        self._buffer_size = buffer
        self._buf: list[int] = []
        self._pos = self._size = 0  # next face, faces in the buffer

    def roll(self, n: int) -> list[int]:
        pos = self._pos
        end = pos + n
        if end > self._size:
            self._buf = self.rng.integers(1, 7, size=self._buffer_size).tolist()  # faces 1..6
            self._size, pos, end = self._buffer_size, 0, n
        self._pos = end
        return self._buf[pos:end]


class ScriptedDice:
    """Replays a fixed sequence of die faces in the order they are thrown; raises when it runs out."""

    def __init__(self, faces: Iterable[int]) -> None:
        if isinstance(faces, (str, bytes, dict, set, frozenset)) or not isinstance(faces, Iterable):
            raise ValueError(f"scripted dice must be a sequence of integers 1-6, got {faces!r}")
        self.faces = list(faces)
        for i, f in enumerate(self.faces):
            if isinstance(f, bool) or not isinstance(f, (int, np.integer)) or not 1 <= f <= 6:
                raise ValueError(f"scripted die #{i} is {f!r}; every die must be an integer 1-6")
        self.faces = [int(f) for f in self.faces]
        self._pos = 0

    def roll(self, n: int) -> list[int]:
        if self._pos + n > len(self.faces):
            raise ValueError(
                f"scripted dice ran out: {n} more needed after {self._pos} of {len(self.faces)} were used"
            )
        out = self.faces[self._pos : self._pos + n]
        self._pos += n
        return out

    @property
    def remaining(self) -> int:
        """How many scripted faces are still unused."""
        return len(self.faces) - self._pos


def as_dice_source(
    dice: DiceSource | Iterable[int] | None, seed: int | np.random.Generator | None
) -> DiceSource:
    """``dice`` if it is a source, a :class:`ScriptedDice` if it is a list of faces, else random dice."""
    if dice is None:
        return RandomDice(seed)
    if isinstance(dice, (RandomDice, ScriptedDice)) or isinstance(dice, DiceSource):  # fast path first
        return dice
    return ScriptedDice(dice)
