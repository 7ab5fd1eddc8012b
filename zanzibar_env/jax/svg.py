"""A small SVG picture of JAX states (``State.to_svg`` / ``State.save_svg``, as ``pgx.State``'s).

One panel per table (a batched state draws every table, one row of panels): each seat's stack, the
acting seat marked, and whether the episode is over. It reads the state's arrays only (no Pillow, no
fonts); the full pictures of a game are :mod:`zanzibar_env.ui.render`'s.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import numpy as np

_W, _ROW, _TOP = 180, 18, 26


def _panel(x: int, stacks: np.ndarray, player: int, over: bool, seat: int) -> list[str]:
    out = [f'<rect x="{x}" y="0" width="{_W - 6}" height="{_TOP + _ROW * len(stacks) + 6}" fill="#0b6623"/>']
    title = "episode over" if over else f"seat {player} to act"
    out.append(f'<text x="{x + 8}" y="18" fill="white">{escape(title)}</text>')
    for s, stack in enumerate(stacks):
        mark = ">" if s == player and not over else " "
        who = " (learner)" if s == seat else ""
        y = _TOP + _ROW * (s + 1) - 4
        out.append(
            f'<text x="{x + 8}" y="{y}" fill="white" xml:space="preserve">{mark} seat {s}: {int(stack)}{who}</text>'
        )
    return out


def state_svg(state: Any) -> str:
    """The SVG text of ``state`` (one table, or a batch with a leading axis)."""
    stacks = np.atleast_2d(np.asarray(state.stacks))
    player = np.atleast_1d(np.asarray(state.current_player))
    over = np.atleast_1d(np.asarray(state.terminated) | np.asarray(state.truncated))
    seat = np.atleast_1d(np.asarray(state.seat))
    height = _TOP + _ROW * stacks.shape[1] + 6
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W * len(stacks)}" height="{height}" '
        'font-family="monospace" font-size="13">'
    ]
    for t in range(len(stacks)):
        parts += _panel(t * _W, stacks[t], int(player[t]), bool(over[t]), int(seat[t]))
    return "\n".join([*parts, "</svg>\n"])


def save_svg(state: Any, filename: str | Path) -> None:
    """Write :func:`state_svg` of ``state`` to ``filename``."""
    Path(filename).write_text(state_svg(state), encoding="utf-8")
