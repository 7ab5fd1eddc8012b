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
from .table import PlayerRow, Snapshot, held_mask, render_ansi, snapshot

__all__ = ["PlayerRow", "Snapshot", "held_mask", "render_ansi", "render_rgb", "snapshot"]

WIDTH, HEIGHT = 640, 400
DIE = 84  # die sprite size in pixels
FELT, BAR, PANEL = (22, 96, 58), (12, 58, 34), (16, 72, 44)
CREAM, GOLD, GREY, DARK = (245, 240, 225), (250, 200, 60), (150, 170, 155), (30, 30, 30)


# ---- rgb ----------------------------------------------------------------------------------------
@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}


@cache
def _die(face: int, held: bool) -> Image.Image:
    """A die sprite with pips (0 = blank); held dice have a gold rim and a warm face."""
    img = Image.new("RGB", (DIE, DIE), FELT)
    d = ImageDraw.Draw(img)
    face_colour = (255, 236, 190) if held else (250, 250, 246)
    rim = GOLD if held else (200, 200, 190)
    d.rounded_rectangle(
        (2, 2, DIE - 3, DIE - 3), radius=14, fill=face_colour, outline=rim, width=5 if held else 2
    )
    r = DIE // 11
    for fx, fy in _PIPS.get(face, []):
        cx, cy = int(fx * DIE), int(fy * DIE)
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(180, 30, 30) if face == 1 else DARK)
    return img


@cache
def _background(num_players: int) -> Image.Image:
    img = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, WIDTH, 36), fill=BAR)
    d.rounded_rectangle((408, 46, WIDTH - 10, 330), radius=10, fill=PANEL)
    d.rectangle((0, 338, WIDTH, HEIGHT), fill=BAR)
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


def _text(
    img: Image.Image,
    xy: tuple[int, int],
    text: str,
    size: int,
    fill: tuple[int, int, int],
    anchor: str = "la",
) -> None:
    """Paste cached text (rendering glyphs with FreeType on every frame would dominate the frame time)."""
    sprite, left, top = _text_sprite(text, size, fill, anchor)
    img.paste(sprite, (xy[0] + left, xy[1] + top), sprite)


def _fit(text: str, size: int, width: int) -> list[str]:
    """Greedy word wrap of ``text`` to ``width`` pixels in the default font at ``size``."""
    font, lines, cur = _font(size), [], ""
    for word in text.split():
        trial = f"{cur} {word}".strip()
        if cur and font.getlength(trial) > width:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    return [*lines, cur] if cur else lines


@lru_cache(maxsize=256)
def _wrapped(text: str, size: int, width: int) -> tuple[str, ...]:
    return tuple(_fit(text, size, width))


def _draw_dice(img: Image.Image, d: ImageDraw.ImageDraw, s: Snapshot) -> None:
    _text(img, (20, 48), s.actor, 18, CREAM)
    for i, face in enumerate(s.dice):
        held = bool(s.held >> i & 1)
        x = 24 + i * 118
        img.paste(_die(face, held), (x, 78))
        label = f"{i + 1}  HELD" if held else f"{i + 1}"
        _text(img, (x + DIE // 2, 172), label, 14, GOLD if held else GREY, "mt")
    _text(img, (20, 196), "Rolls", 15, GREY)
    for k in range(max(s.roll_limit, 1)):
        x = 70 + k * 22
        filled = k < s.rolls_used
        d.ellipse((x, 198, x + 14, 212), fill=CREAM if filled else None, outline=CREAM, width=2)
    _text(img, (80 + 22 * max(s.roll_limit, 1), 196), f"{s.rolls_used} of {s.roll_limit} used", 15, GREY)
    _text(img, (20, 222), f"Hand: {s.hand}", 20, CREAM)


def _draw_round_info(img: Image.Image, d: ImageDraw.ImageDraw, s: Snapshot) -> None:
    y = 256
    for label, text in (("To beat (lowest so far)", s.lowest), ("Highest so far", s.highest)):
        if text:
            _text(img, (20, y), label, 13, GREY)
            _text(img, (20, y + 16), text, 16, CREAM)
            y += 38
    if s.over:
        for k, line in enumerate(_wrapped(s.status, 20, 370)):
            _text(img, (20, 256 + 26 * k), line, 20, GOLD)


def _draw_players(img: Image.Image, d: ImageDraw.ImageDraw, s: Snapshot) -> None:
    _text(img, (420, 52), "Player", 13, GREY)
    _text(img, (WIDTH - 22, 52), s.stake, 13, GREY, "ra")
    step = min(48, 258 // len(s.players))
    small = step < 40
    for k, p in enumerate(s.players):
        y = 70 + k * step
        if p.highlight:
            d.rounded_rectangle((412, y - 2, WIDTH - 14, y + step - 4), radius=6, outline=GOLD, width=1)
        if p.to_act:
            d.polygon([(416, y + 3), (416, y + 15), (426, y + 9)], fill=GOLD)
        colour = CREAM if p.active else GREY
        _text(img, (430, y), p.name, 14 if small else 16, GOLD if p.to_act else colour)
        _text(img, (WIDTH - 22, y), str(p.stack), 14 if small else 16, colour, "ra")
        if p.note:
            _text(img, (430, y + (15 if small else 19)), p.note, 12 if small else 13, GREY)


def _draw_last_round(img: Image.Image, d: ImageDraw.ImageDraw, s: Snapshot) -> None:
    _text(img, (12, 342), "Last round", 12, GREY)
    lines = _wrapped(" ".join(s.last_round), 13, WIDTH - 100)
    for k, line in enumerate(lines[:3]):
        _text(img, (88, 342 + 18 * k), line, 13, CREAM)


def render_rgb(game: GameState, seat: int | None = None) -> np.ndarray:
    """The table as a ``(400, 640, 3)`` uint8 image: dice with pips (held ones gold), players, results."""
    s = snapshot(game, seat)
    img = _background(len(s.players)).copy()
    d = ImageDraw.Draw(img)
    _text(img, (12, 9), s.title, 18, CREAM)
    _text(img, (WIDTH - 12, 9), "Game over" if s.over else s.status, 18, GOLD, "ra")
    _draw_dice(img, d, s)
    _draw_round_info(img, d, s)
    _draw_players(img, d, s)
    _draw_last_round(img, d, s)
    return np.asarray(img, dtype=np.uint8)


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
        game.act(policy(game.view()))


def main(argv: Sequence[str] | None = None) -> int:
    """Write an ``rgb_array`` frame (and optionally a game-over one) as PNG; print its text and the speed."""
    from ..core.dice import RandomDice
    from ..core.rules import MAX_GAME_ROUNDS, load_ruleset

    p = argparse.ArgumentParser(prog=command_prog("zanzibar_env.ui.render"), description=main.__doc__)
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
            game.act(policy(game.view()))
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
        game.act(policy(game.view()))
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
