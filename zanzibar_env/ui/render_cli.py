"""``zanzibar render``: pictures of a saved game (``--record FILE``) or of a fresh one.

With ``--record FILE`` (a JSON-lines file of game records, as ``zanzibar play --save``, tournaments and
``zanzibar serve`` write, or one record as a JSON object) the game is re-played from its dice and holds
and drawn state by state with :mod:`zanzibar_env.ui.svg`: ``--out game.svg`` writes one animated SVG,
``--out game.gif`` a GIF (needs Pillow, the ``[ui]`` extra), ``--frames DIR`` one SVG per state. SVG
needs nothing beyond the core install. Without ``--record`` the options are those of
``python -m zanzibar_env.ui.render`` (PNG frames of a fresh bot game, Pillow).

    zanzibar render --record games.jsonl --game 2 --out game.svg --frames frames/
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..core.interrupts import run_command
from ..core.invocation import command_prog
from ..core.records import GameRecord, check_record, load_games
from ..core.safe_io import atomic_write_bytes, atomic_write_text, check_output
from .svg import MAX_FRAMES, animated_svg, record_snapshots, snapshot_svg
from .table import Snapshot

#: largest record file read (a game record is a few kilobytes; a long tournament file is refused)
MAX_RECORD_BYTES = 64 * 1024 * 1024


def load_record(path: str | Path, game: int = 1) -> GameRecord:
    """Game number ``game`` (from 1) of a record file: JSON lines of records, or one record as a JSON
    object (indented or not). ``ValueError`` naming the file and the problem otherwise."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"record file not found (or not a file): {str(path)[:200]}")
    if p.stat().st_size > MAX_RECORD_BYTES:
        raise ValueError(f"{p}: larger than {MAX_RECORD_BYTES // 2**20} MiB, not a record file")
    text = p.read_text(encoding="utf-8", errors="replace")
    if text.lstrip().startswith("{") and "\n" in text.strip():
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            data = None  # JSON lines: read below, line by line
        if isinstance(data, dict):
            try:
                return check_record(GameRecord.from_dict(data))
            except (ValueError, TypeError, KeyError, AttributeError) as e:
                raise ValueError(f"{p}: not a game record: {str(e)[:200] or type(e).__name__}") from None
    games = load_games(p)
    if not games:
        raise ValueError(f"{p}: no game in the file")
    if not 1 <= game <= len(games):
        raise ValueError(f"game must be 1-{len(games)} ({p} holds {len(games)} games), got {game}")
    return games[game - 1]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.ui.render_cli"), description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--record", required=True, help="a saved game: JSON lines of records, or one JSON record")
    p.add_argument("--game", type=int, default=1, help="which game of the file (from 1)")
    p.add_argument("--out", default="game.svg", help="animated SVG (.svg) or GIF (.gif, needs Pillow)")
    p.add_argument("--frames", default=None, help="also write one SVG per state into this directory")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per state in the animation")
    p.add_argument("--seat", type=int, default=None, help="seat to highlight (0-based)")
    p.add_argument("--force", action="store_true", help="overwrite existing files")
    return p


def _write_frames(folder: str, snaps: list[Snapshot], force: bool) -> None:
    d = Path(folder)
    if d.exists() and not d.is_dir():
        raise ValueError(f"--frames {folder!r} is a file, not a directory")
    if not d.parent.is_dir():
        raise ValueError(f"--frames {folder!r}: directory {str(d.parent)!r} does not exist")
    d.mkdir(exist_ok=True)
    names = [d / f"frame_{k:04d}.svg" for k in range(1, len(snaps) + 1)]
    for name in names:
        check_output(name, force=force, what="--frames")
    for name, s in zip(names, snaps, strict=True):
        atomic_write_text(name, snapshot_svg(s))


def _gif(snaps: list[Snapshot], seconds: float) -> bytes:
    from ..extras import requires_extra

    with requires_extra("ui", "a GIF (Pillow)"):
        from PIL import Image

        from .render import snapshot_rgb
    images = [Image.fromarray(snapshot_rgb(s)) for s in snaps]
    buf = io.BytesIO()
    images[0].save(
        buf, format="GIF", save_all=True, append_images=images[1:], duration=int(seconds * 1000), loop=0
    )
    return buf.getvalue()


def render_record(argv: Sequence[str]) -> int:
    """Draw every state of a saved game (``--record``) as an animated SVG or GIF, and SVG frames."""
    p = _parser()
    args = p.parse_args(argv)
    try:
        suffix = Path(args.out).suffix.lower()
        if suffix not in (".svg", ".gif"):
            raise ValueError(f"--out must end in .svg or .gif, got {args.out!r}")
        check_output(args.out, force=args.force, what="--out")
        record = load_record(args.record, args.game)
        if args.seat is not None and not 0 <= args.seat < record.num_players:
            raise ValueError(f"--seat must be 0-{record.num_players - 1}, got {args.seat}")
        snaps = list(record_snapshots(record, args.seat))
        if len(snaps) > MAX_FRAMES:
            raise ValueError(f"the game has {len(snaps)} states; at most {MAX_FRAMES} are drawn")
        if suffix == ".svg":
            atomic_write_text(args.out, animated_svg(snaps, args.seconds))
        else:
            atomic_write_bytes(args.out, _gif(snaps, args.seconds))
        if args.frames:
            _write_frames(args.frames, snaps, args.force)
    except ValueError as e:
        p.error(str(e))
    where = f" and {len(snaps)} frames in {args.frames}" if args.frames else ""
    print(f"wrote {args.out} ({len(snaps)} states of game {args.game} of {args.record}){where}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``--record FILE``: draw a saved game; otherwise a fresh game's PNG frames (``zanzibar_env.ui.render``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a == "--record" or a.startswith("--record=") for a in args):
        return render_record(args)
    from . import render

    return render.main(args)


if __name__ == "__main__":
    raise SystemExit(run_command(main, "render"))
