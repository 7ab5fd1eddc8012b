"""Pictures of the table: ``render_ansi`` (text, from :mod:`.table`) and ``render_rgb`` (a 640x400 RGB
frame drawn with Pillow).

Both read a :class:`~zanzibar_env.core.game.GameState` through :func:`snapshot`, which collects what a
person needs: the dice (sorted, positions 1-3) and which were held, whose turn it is, rolls used and
the roll limit, the hand to beat (lowest so far) and the highest so far, every player's chips or
lives and hand this round, the last round's result, and the winner once the game is over. ``seat`` is
the seat to highlight (the agent's, in the Gymnasium env).

Run ``python -m zanzibar_env.ui.render --out frame.png --seed 3`` to write a screenshot (an existing
file is replaced only with ``--force``).
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import io
import time
from collections.abc import Callable, Sequence
from functools import cache, lru_cache

import numpy as np

from ..extras import requires_extra

with requires_extra("ui", "rendering pictures"):
    from PIL import Image, ImageDraw, ImageFont

from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.registry import spec_help

from ..core.checks import check_seed
from ..core.engine import STOP, View
from ..core.game import GameState
from ..core.interrupts import run_command
from ..core.safe_io import atomic_write_bytes, check_output
from .layout import DIE, FELT, GOLD, HEIGHT, WIDTH, Circle, Die, Rect, Shape, Text, die_shapes, table_shapes
from .table import PlayerRow, Snapshot, held_mask, render_ansi, snapshot

__all__ = [
    "GOLD",
    "PlayerRow",
    "Snapshot",
    "held_mask",
    "render_ansi",
    "render_rgb",
    "snapshot",
    "snapshot_rgb",
]


# ---- rgb ----------------------------------------------------------------------------------------
@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


@cache
def _die(face: int, held: bool) -> Image.Image:
    """A die sprite (the shapes of :func:`~zanzibar_env.ui.layout.die_shapes`) on the felt."""
    img = Image.new("RGB", (DIE, DIE), FELT)
    _paint(img, ImageDraw.Draw(img), die_shapes(Die(0, 0, DIE, face, held)))
    return img


@lru_cache(maxsize=4096)
def _text_sprite(
    text: str, size: int, fill: tuple[int, int, int], anchor: str
) -> tuple[Image.Image, int, int]:
    """``text`` drawn once on a transparent sprite, with its offset from the anchor point."""
    font = _font(size)
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=anchor))
    sprite = Image.new("RGBA", (max(right - left, 1), max(bottom - top, 1)), (0, 0, 0, 0))
    ImageDraw.Draw(sprite).text((-left, -top), text, font=font, fill=fill, anchor=anchor)
    return sprite, left, top


def _text(img: Image.Image, t: Text) -> None:
    """Paste cached text (rendering glyphs with FreeType on every frame would dominate the frame time)."""
    sprite, left, top = _text_sprite(t.text, t.size, t.fill, t.anchor)
    img.paste(sprite, (round(t.x) + left, round(t.y) + top), sprite)


def _paint(img: Image.Image, d: ImageDraw.ImageDraw, shapes: Sequence[Shape]) -> None:
    """Paint the shapes of :mod:`~zanzibar_env.ui.layout` with Pillow, back to front."""
    for sh in shapes:
        if isinstance(sh, Text):
            _text(img, sh)
        elif isinstance(sh, Die):
            img.paste(_die(sh.face, sh.held), (round(sh.x), round(sh.y)))
        elif isinstance(sh, Rect):
            box = (round(sh.x), round(sh.y), round(sh.x + sh.w), round(sh.y + sh.h))
            width = round(sh.width) if sh.stroke else 0
            if sh.radius:
                d.rounded_rectangle(
                    box, radius=round(sh.radius), fill=sh.fill, outline=sh.stroke, width=width
                )
            else:
                d.rectangle(box, fill=sh.fill, outline=sh.stroke, width=width)
        elif isinstance(sh, Circle):
            box = (round(sh.cx - sh.r), round(sh.cy - sh.r), round(sh.cx + sh.r), round(sh.cy + sh.r))
            d.ellipse(box, fill=sh.fill, outline=sh.stroke, width=round(sh.width) if sh.stroke else 0)
        else:
            d.polygon(list(sh.points), fill=sh.fill)


def snapshot_rgb(s: Snapshot) -> np.ndarray:
    """The picture of a :class:`~zanzibar_env.ui.table.Snapshot` as a ``(400, 640, 3)`` uint8 image."""
    img = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    _paint(img, ImageDraw.Draw(img), table_shapes(s))
    return np.asarray(img, dtype=np.uint8)


def render_rgb(game: GameState, seat: int | None = None) -> np.ndarray:
    """The table as a ``(400, 640, 3)`` uint8 image: dice with pips (held ones gold), players, results."""
    return snapshot_rgb(snapshot(game, seat))


# ---- screenshots ----------------------------------------------------------------------------------
def _interesting_position(game: GameState, policy: Callable[[View], int], min_round: int) -> None:
    """Play until round ``min_round`` has a later player holding dice on a second or later roll."""
    while not game.done:
        rnd = game.round
        if (
            len(game.record.rounds) + 1 >= min_round
            and rnd.lowest_rank >= 0
            and held_mask(rnd)
            and 0 < held_mask(rnd) < STOP
        ):
            return
        game.apply(policy(game.view()))


def main(argv: Sequence[str] | None = None) -> int:
    """Write an ``rgb_array`` frame (and optionally a game-over one) as PNG; print its text and the speed."""
    from ..core.dice import RandomDice
    from ..core.rules import MAX_GAME_ROUNDS, load_ruleset

    p = argparse.ArgumentParser(prog=command_prog("zanzibar_env.ui.render_cli"), description=main.__doc__)
    p.add_argument("--out", default="frame.png", help="PNG file for a mid-game frame")
    p.add_argument("--final", default=None, help="PNG file for the frame of the finished game (optional)")
    p.add_argument("--seed", type=int, default=3, help="dice and bot seed")
    p.add_argument("--ruleset", default="classic", help="ruleset name or YAML path")
    p.add_argument("--players", type=int, default=4, help="table size 2-8")
    p.add_argument("--round", type=int, default=3, help="show a position from this round on (1 or more)")
    p.add_argument("--agent", default="greedy", help=f"bot for every seat: {spec_help()}")
    p.add_argument("--force", action="store_true", help="overwrite existing PNG files")
    args = p.parse_args(argv)
    try:
        check_seed(args.seed, "--seed")
        if args.round < 1:
            raise ValueError(f"--round must be 1 or more (rounds count from 1), got {args.round}")
        check_output(args.out, force=args.force, what="--out")
        if args.final:
            check_output(args.final, force=args.force, what="--final")
        rules = load_ruleset(args.ruleset)
        cap = rules.max_rounds or MAX_GAME_ROUNDS  # every game ends (rules.py)
        game = GameState(rules, args.players, RandomDice(args.seed), max_rounds=cap)
        policy = _bot(args.agent, args.seed)
    except (ValueError, ImportError) as e:
        p.error(str(e))
    _interesting_position(game, policy, args.round)
    _save(render_rgb(game, seat=0), args.out)
    print(render_ansi(game, seat=0))
    print(f"wrote {args.out} ({WIDTH}x{HEIGHT})")
    _time_frames(args.ruleset, args.players, args.seed, policy)
    if args.final:
        while not game.done:
            game.apply(policy(game.view()))
        _save(render_rgb(game, seat=0), args.final)
        print(f"wrote {args.final} (game over after {len(game.record.rounds)} rounds)")
    return 0


def _time_frames(ruleset: str, players: int, seed: int, policy: Callable[[View], int]) -> None:
    """Print the mean time of ``render_rgb`` over every decision of a fresh game (as a video would)."""
    from ..core.dice import RandomDice
    from ..core.rules import MAX_GAME_ROUNDS, load_ruleset

    rules = load_ruleset(ruleset)
    game = GameState(rules, players, RandomDice(seed + 1), max_rounds=rules.max_rounds or MAX_GAME_ROUNDS)
    frames, spent = 0, 0.0
    while not game.done and frames < 2000:
        t0 = time.perf_counter()
        render_rgb(game, seat=0)
        spent += time.perf_counter() - t0
        frames += 1
        game.apply(policy(game.view()))
    print(f"render_rgb: {1000 * spent / frames:.2f} ms/frame over {frames} frames of a fresh game")


def _bot(name: str, seed: int) -> Callable[[View], int]:
    """The ``--agent`` bot's policy; an unknown name raises ``ValueError`` listing what exists."""
    from ..core.registry import make_agent

    return make_agent(name, seed=seed).act


def _save(frame: np.ndarray, path: str) -> None:
    buf = io.BytesIO()
    Image.fromarray(frame).save(buf, format="PNG")
    atomic_write_bytes(path, buf.getvalue())


if __name__ == "__main__":
    raise SystemExit(run_command(main, "render"))
