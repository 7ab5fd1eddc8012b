"""One drawing of the table, in shapes: where every die, label and panel goes.

:func:`table_shapes` turns a :class:`~zanzibar_env.ui.table.Snapshot` into a list of plain shapes
(:class:`Rect`, :class:`Circle`, :class:`Text`, :class:`Poly`, :class:`Die`) on a 640x400 canvas. Two
back ends paint the same list: :mod:`zanzibar_env.ui.svg` writes SVG text (no dependency; notebooks, the
browser, ``zanzibar render --record``) and :mod:`zanzibar_env.ui.render` paints pixels with Pillow
(``render_mode="rgb_array"``, PNG and GIF). A die's pips come from :func:`die_shapes`, read by both.
Text is anchored as in Pillow: ``"la"`` left / top, ``"mt"`` centred / top, ``"ra"`` right / top.
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import Snapshot

__all__ = ["HEIGHT", "WIDTH", "Circle", "Die", "Poly", "Rect", "Shape", "Text", "die_shapes", "table_shapes"]

WIDTH, HEIGHT = 640, 400
DIE = 84  # die size in pixels
Colour = tuple[int, int, int]
FELT, BAR, PANEL = (22, 96, 58), (12, 58, 34), (16, 72, 44)
CREAM, GOLD, GREY, DARK, RED = (245, 240, 225), (250, 200, 60), (150, 170, 155), (30, 30, 30), (180, 30, 30)
HELD_FACE, FACE, RIM = (255, 236, 190), (250, 250, 246), (200, 200, 190)


@dataclass(frozen=True, slots=True)
class Rect:
    """A (rounded) rectangle; ``fill`` or ``stroke`` may be ``None``."""

    x: float
    y: float
    w: float
    h: float
    fill: Colour | None
    stroke: Colour | None = None
    width: float = 1
    radius: float = 0


@dataclass(frozen=True, slots=True)
class Circle:
    """A circle of centre ``(cx, cy)`` and radius ``r``."""

    cx: float
    cy: float
    r: float
    fill: Colour | None
    stroke: Colour | None = None
    width: float = 1


@dataclass(frozen=True, slots=True)
class Text:
    """One line of text at ``(x, y)``, ``size`` pixels high, anchored as in Pillow (``la``, ``mt``, ``ra``)."""

    x: float
    y: float
    text: str
    size: int
    fill: Colour
    anchor: str = "la"


@dataclass(frozen=True, slots=True)
class Poly:
    """A filled polygon."""

    points: tuple[tuple[float, float], ...]
    fill: Colour


@dataclass(frozen=True, slots=True)
class Die:
    """A die of ``face`` 1-6 (0: blank) at ``(x, y)``; a held die has a gold rim and a warm face."""

    x: float
    y: float
    size: float
    face: int
    held: bool


Shape = Rect | Circle | Text | Poly | Die

#: pip centres of each face, as fractions of the die's side
PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}


def die_shapes(die: Die) -> list[Shape]:
    """The die as a rounded square and its pips (a red pip for the 1)."""
    s, x, y = die.size, die.x, die.y
    k = s / DIE  # the sizes below are those of an 84-pixel die
    body = Rect(
        x + 2 * k,
        y + 2 * k,
        s - 5 * k,
        s - 5 * k,
        HELD_FACE if die.held else FACE,
        GOLD if die.held else RIM,
        (5 if die.held else 2) * k,
        14 * k,
    )
    r = s / 11
    pip = RED if die.face == 1 else DARK
    return [body, *(Circle(x + fx * s, y + fy * s, r, pip) for fx, fy in PIPS.get(die.face, []))]


def wrap(text: str, size: int, width: float) -> list[str]:
    """Greedy word wrap of ``text`` to about ``width`` pixels (a character is taken as 0.56 of ``size``)."""
    per_line = max(int(width / (0.56 * size)), 8)
    lines: list[str] = []
    cur = ""
    for word in text.split():
        trial = f"{cur} {word}".strip()
        if cur and len(trial) > per_line:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    return [*lines, cur] if cur else lines


def _background() -> list[Shape]:
    return [
        Rect(0, 0, WIDTH, HEIGHT, FELT),
        Rect(0, 0, WIDTH, 36, BAR),
        Rect(408, 46, WIDTH - 418, 284, PANEL, radius=10),
        Rect(0, 338, WIDTH, HEIGHT - 338, BAR),
    ]


def _dice(s: Snapshot) -> list[Shape]:
    out: list[Shape] = [Text(20, 48, s.actor, 18, CREAM)]
    for i, face in enumerate(s.dice):
        held = bool(s.held >> i & 1)
        x = 24 + i * 118
        out.append(Die(x, 78, DIE, face, held))
        out.append(
            Text(
                x + DIE // 2, 172, f"{i + 1}  HELD" if held else f"{i + 1}", 14, GOLD if held else GREY, "mt"
            )
        )
    out.append(Text(20, 196, "Rolls", 15, GREY))
    slots = max(s.roll_limit, 1)
    for k in range(slots):
        filled = k < s.rolls_used
        out.append(Circle(77 + k * 22, 205, 7, CREAM if filled else None, CREAM, 2))
    out.append(Text(80 + 22 * slots, 196, f"{s.rolls_used} of {s.roll_limit} used", 15, GREY))
    out.append(Text(20, 222, f"Hand: {s.hand}", 20, CREAM))
    return out


def _round_info(s: Snapshot) -> list[Shape]:
    out: list[Shape] = []
    y = 256
    for label, text in (("To beat (lowest so far)", s.lowest), ("Highest so far", s.highest)):
        if text:
            out += [Text(20, y, label, 13, GREY), Text(20, y + 16, text, 16, CREAM)]
            y += 38
    if s.over:
        out += [Text(20, 256 + 26 * k, line, 20, GOLD) for k, line in enumerate(wrap(s.status, 20, 370))]
    return out


def _players(s: Snapshot) -> list[Shape]:
    out: list[Shape] = [Text(420, 52, "Player", 13, GREY), Text(WIDTH - 22, 52, s.stake, 13, GREY, "ra")]
    step = min(48, 258 // len(s.players))
    small = step < 40
    for k, p in enumerate(s.players):
        y = 70 + k * step
        if p.highlight:
            out.append(Rect(412, y - 2, WIDTH - 426, step - 2, None, GOLD, 1, 6))
        if p.to_act:
            out.append(Poly(((416, y + 3), (416, y + 15), (426, y + 9)), GOLD))
        colour = CREAM if p.active else GREY
        out.append(Text(430, y, p.name, 14 if small else 16, GOLD if p.to_act else colour))
        out.append(Text(WIDTH - 22, y, str(p.stack), 14 if small else 16, colour, "ra"))
        if p.note:
            out.append(Text(430, y + (15 if small else 19), p.note, 12 if small else 13, GREY))
    return out


def _last_round(s: Snapshot) -> list[Shape]:
    lines = wrap(" ".join(s.last_round), 13, WIDTH - 100)
    out: list[Shape] = [Text(12, 342, "Last round", 12, GREY)]
    return out + [Text(88, 342 + 18 * k, line, 13, CREAM) for k, line in enumerate(lines[:3])]


def table_shapes(s: Snapshot) -> list[Shape]:
    """The table of ``s`` as shapes on a ``WIDTH`` x ``HEIGHT`` canvas, back to front."""
    head = [
        Text(12, 9, s.title, 18, CREAM),
        Text(WIDTH - 12, 9, "Game over" if s.over else s.status, 18, GOLD, "ra"),
    ]
    return [*_background(), *head, *_dice(s), *_round_info(s), *_players(s), *_last_round(s)]
