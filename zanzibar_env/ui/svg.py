"""SVG pictures of the table: a state, a round record, a whole saved game (frames or one animated SVG).

Pure string building, no dependency: the core install draws every state. The geometry is that of
:mod:`~zanzibar_env.ui.layout`, which the Pillow frames of :mod:`~zanzibar_env.ui.render` paint too, so the
notebook, the browser (``zanzibar serve``) and the PNG / GIF frames show one drawing::

    from zanzibar_env.ui.svg import game_svg, record_frames, view_svg
    game_svg(game)                     # a GameState in progress or finished
    view_svg(view)                     # what the acting player sees (a View)
    frames = record_frames(record)     # one SVG per decision of a saved GameRecord, then the end

``View``, ``RoundRecord`` and ``GameRecord`` have ``_repr_svg_``, so a notebook shows them as pictures.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from xml.sax.saxutils import escape

from ..core.dice import ScriptedDice
from ..core.engine import View
from ..core.game import GameState
from ..core.records import GameRecord, RoundRecord
from ..core.rules import Ruleset
from .layout import (
    BAR,
    CREAM,
    FELT,
    GOLD,
    GREY,
    HEIGHT,
    WIDTH,
    Circle,
    Colour,
    Die,
    Rect,
    Shape,
    Text,
    die_shapes,
    table_shapes,
)
from .narrate import seat_names
from .table import PlayerRow, Snapshot, printable, snapshot

__all__ = [
    "animated_svg",
    "game_svg",
    "record_frames",
    "record_snapshots",
    "record_svg",
    "round_svg",
    "shapes_svg",
    "snapshot_svg",
    "svg_of",
    "view_svg",
]

_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
_ANCHOR = {"l": "start", "m": "middle", "r": "end"}
#: frames beyond this many are refused by :func:`animated_svg` (a game of the shipped rulesets has far fewer)
MAX_FRAMES = 5000


def _rgb(c: Colour | None) -> str:
    return "none" if c is None else f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"


def _num(v: float) -> str:
    if v == int(v):
        return str(int(v))
    return f"{v:.2f}".rstrip("0").rstrip(".")


@lru_cache(maxsize=8192)
def _element(sh: Shape) -> str:
    """One shape as SVG markup (a die as its body and pips); shapes repeat from frame to frame, so the
    markup of each is kept."""
    if isinstance(sh, Text):
        base = sh.y + 0.8 * sh.size  # Pillow anchors at the top of the text; SVG at its baseline
        return (
            f'<text x="{_num(sh.x)}" y="{_num(base)}" font-size="{sh.size}" fill="{_rgb(sh.fill)}" '
            f'text-anchor="{_ANCHOR.get(sh.anchor[0], "start")}">{escape(printable(sh.text))}</text>'
        )
    if isinstance(sh, Die):
        cls = ' class="die held"' if sh.held else ' class="die"'
        return f'<g{cls} data-face="{sh.face}">' + "".join(_element(p) for p in die_shapes(sh)) + "</g>"
    if isinstance(sh, Rect):
        r = f' rx="{_num(sh.radius)}"' if sh.radius else ""
        stroke = f' stroke="{_rgb(sh.stroke)}" stroke-width="{_num(sh.width)}"' if sh.stroke else ""
        return (
            f'<rect x="{_num(sh.x)}" y="{_num(sh.y)}" width="{_num(sh.w)}" height="{_num(sh.h)}"{r} '
            f'fill="{_rgb(sh.fill)}"{stroke}/>'
        )
    if isinstance(sh, Circle):
        stroke = f' stroke="{_rgb(sh.stroke)}" stroke-width="{_num(sh.width)}"' if sh.stroke else ""
        return (
            f'<circle cx="{_num(sh.cx)}" cy="{_num(sh.cy)}" r="{_num(sh.r)}" fill="{_rgb(sh.fill)}"{stroke}/>'
        )
    points = " ".join(f"{_num(x)},{_num(y)}" for x, y in sh.points)
    return f'<polygon points="{points}" fill="{_rgb(sh.fill)}"/>'


def _open(width: float, height: float, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
        f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="{_FONT}">'
        f"<title>{escape(printable(title))}</title>"
    )


def shapes_svg(shapes: Sequence[Shape], width: float = WIDTH, height: float = HEIGHT, title: str = "") -> str:
    """A standalone SVG document of ``shapes`` on a ``width`` x ``height`` canvas."""
    return _open(width, height, title or "Zanzibar") + "".join(map(_element, shapes)) + "</svg>"


def snapshot_svg(s: Snapshot) -> str:
    """The table of a :class:`~zanzibar_env.ui.table.Snapshot` as SVG (640 x 400)."""
    return shapes_svg(table_shapes(s), title=f"{s.title}: {s.status}")


def game_svg(game: GameState, seat: int | None = None) -> str:
    """The table of a game in progress or finished as SVG; ``seat`` is highlighted."""
    return snapshot_svg(snapshot(game, seat))


def view_snapshot(view: View) -> Snapshot:
    """What the acting player of ``view`` sees, as a :class:`Snapshot` (seats absolute, the actor highlighted)."""
    n, me = view.num_players, view.seat
    names = seat_names(n)
    rows = tuple(
        PlayerRow(
            name=names[s],
            stack=view.stacks[(s - me) % n],
            active=view.active[(s - me) % n],
            to_act=s == me,
            highlight=s == me,
            note="rolling" if s == me else "",
        )
        for s in range(n)
    )
    lowest = view.lowest.describe() if view.lowest is not None else ""
    if lowest and view.lowest_count > 1:
        lowest += f" ({view.lowest_count} players share it)"
    return Snapshot(
        title=f"Zanzibar - {printable(view.ruleset.name)}",
        status=f"{names[me]} to play",
        over=False,
        actor=f"{names[me]}'s dice",
        dice=view.dice,
        held=0,  # a View does not say which dice were kept
        rolls_used=view.rolls_used,
        roll_limit=view.roll_limit,
        hand=view.hand.describe(),
        lowest=lowest,
        highest=view.highest.describe() if view.highest is not None else "",
        stake="Lives" if view.ruleset.stake == "lives" else "Chips",
        players=rows,
        last_round=(f"{view.players_after} still to roll after {names[me]} this round",),
    )


def view_svg(view: View) -> str:
    """What the acting player of a :class:`~zanzibar_env.core.engine.View` sees, as SVG."""
    return snapshot_svg(view_snapshot(view))


def _replayed(record: GameRecord) -> tuple[GameState, list[int]]:
    if not isinstance(record, GameRecord):
        raise ValueError(f"expected a GameRecord, got {type(record).__name__}")
    rules = Ruleset.from_dict(record.ruleset)
    dice = ScriptedDice([d for r in record.rounds for d in r.dice_drawn])
    stacks = record.rounds[0].stacks_before if record.rounds else None
    cap = len(record.rounds) if record.truncated else None
    game = GameState(rules, record.num_players, dice, record.first_seat, cap, record.seed, stacks)
    return game, [a for r in record.rounds for t in r.turns for a in t.actions]


def record_snapshots(record: GameRecord, seat: int | None = None) -> Iterator[Snapshot]:
    """Every state of a saved game: one :class:`Snapshot` before each decision, then the finished table.

    The game is re-played from its recorded dice and holds; ``ValueError`` (naming the decision) if the
    record does not replay (changed dice or holds, a truncated file)."""
    try:
        game, actions = _replayed(record)
        for k, action in enumerate(actions):
            if game.done:
                raise ValueError(f"the game is over before decision {k + 1} of {len(actions)}")
            yield snapshot(game, seat)
            game.apply(action)
    except (IndexError, KeyError, TypeError, RuntimeError) as e:
        raise ValueError(f"the record does not replay: {e}") from None
    if not game.done or game.record.game_dict() != record.game_dict():
        raise ValueError("the record does not replay to its recorded end (rounds, stacks or winners differ)")
    yield snapshot(game, seat)


def record_frames(record: GameRecord, seat: int | None = None) -> list[str]:
    """One SVG document per state of a saved game (:func:`record_snapshots`)."""
    return [snapshot_svg(s) for s in record_snapshots(record, seat)]


def record_svg(record: GameRecord) -> str:
    """The finished table of a saved game as SVG."""
    *_, last = record_snapshots(record)  # always yields the finished table
    return snapshot_svg(last)


def animated_svg(snapshots: Sequence[Snapshot], seconds: float = 1.0) -> str:
    """One SVG that shows ``snapshots`` in turn, ``seconds`` each, looping (SMIL ``<animate>``)."""
    n = len(snapshots)
    if not 1 <= n <= MAX_FRAMES:
        raise ValueError(f"an animation needs 1-{MAX_FRAMES} frames, got {n}")
    if not 0.05 <= seconds <= 60:
        raise ValueError(f"seconds per frame must be 0.05-60, got {seconds!r}")
    parts = [_open(WIDTH, HEIGHT, snapshots[0].title)]
    for k, s in enumerate(snapshots):
        on, off = _num(k / n), _num((k + 1) / n)
        parts.append(
            f'<g opacity="{1 if n == 1 else 0}"><animate attributeName="opacity" calcMode="discrete" '
            f'values="0;1;0" keyTimes="0;{on};{off}" dur="{_num(n * seconds)}s" repeatCount="indefinite"/>'
            + "".join(map(_element, table_shapes(s)))
            + "</g>"
        )
    return "".join(parts) + "</svg>"


# ---- a round record --------------------------------------------------------------------------------
def _turn_row(rec: RoundRecord, k: int, y: float, names: list[str]) -> list[Shape]:
    t = rec.turns[k]
    out: list[Shape] = [Text(16, y + 8, names[t.seat], 16, GOLD if t.seat == rec.winner else CREAM)]
    out += [Die(150 + 34 * i, y, 30, face, False) for i, face in enumerate(t.hand[:3])]
    rolls = f"{len(t.rolls)} roll{'s' if len(t.rolls) != 1 else ''}"
    out.append(Text(260, y + 8, f"{t.category}  ({rolls})", 14, CREAM))
    marks = []
    if t.seat in rec.losers:
        marks.append("lowest: pays")
    if t.seat == rec.winner:
        marks.append("highest")
    out.append(Text(460, y + 8, ", ".join(marks), 14, GOLD))
    if t.seat < len(rec.transfers) and t.seat < len(rec.stacks_after):
        change = f"{rec.stacks_before[t.seat]} -> {rec.stacks_after[t.seat]} ({rec.transfers[t.seat]:+d})"
        out.append(Text(WIDTH - 16, y + 8, change, 14, GREY, "ra"))
    return out


def round_shapes(rec: RoundRecord) -> tuple[list[Shape], float]:
    """A round record as shapes: each turn's hand as dice, who paid, the stacks before and after."""
    n = len(rec.stacks_before)
    names = seat_names(max(n, 2))
    height = 92 + 40 * len(rec.turns)
    out: list[Shape] = [Rect(0, 0, WIDTH, height, FELT), Rect(0, 0, WIDTH, 36, BAR)]
    head = f"Round of {n} players - roll limit {rec.roll_limit} - {names[rec.starting_seat]} rolls first"
    out.append(Text(12, 9, head, 16, CREAM))
    for k in range(len(rec.turns)):
        out += _turn_row(rec, k, 48 + 40 * k, names)
    foot = "Ended by a Zanzibar." if rec.ended_by_zanzibar else ""
    if rec.rolloffs:
        foot += f" {len(rec.rolloffs)} roll-off(s) decided the loser."
    out.append(Rect(0, height - 36, WIDTH, 36, BAR))
    out.append(Text(12, height - 28, foot.strip() or "Stacks: before -> after (change)", 14, GREY))
    return out, height


def round_svg(rec: RoundRecord) -> str:
    """A round record as SVG (its turns' hands, the losers and the highest hand, the stacks)."""
    if not isinstance(rec, RoundRecord):
        raise ValueError(f"expected a RoundRecord, got {type(rec).__name__}")
    shapes, height = round_shapes(rec)
    return shapes_svg(shapes, WIDTH, height, "Zanzibar round")


def svg_of(obj: object) -> str:
    """The SVG of a ``View``, ``GameState``, ``RoundRecord`` or ``GameRecord`` (the ``_repr_svg_`` of each)."""
    if isinstance(obj, GameState):
        return game_svg(obj)
    if isinstance(obj, GameRecord):
        return record_svg(obj)
    if isinstance(obj, RoundRecord):
        return round_svg(obj)
    if isinstance(obj, View):
        return view_svg(obj)
    raise ValueError(f"no picture of a {type(obj).__name__}")
