"""The ``zanzibar`` command: ``zanzibar play ...``, ``zanzibar replay FILE ...``, ``zanzibar render ...``.

Each subcommand takes the same options as its module (``python -m zanzibar_env.ui.play`` and so on).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from . import play

from . import render

from . import replay


def build_parser() -> argparse.ArgumentParser:
    """The ``zanzibar`` parser with its subcommands."""
    parser = argparse.ArgumentParser(prog="zanzibar", description="Zanzibar dice game: play, replay, render.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{play,replay,render}")
    p = sub.add_parser("play", help="play a game in the terminal against bots", description=play.__doc__)
    play.add_arguments(p)
    r = sub.add_parser("replay", help="step through saved games (JSON lines)", description=replay.__doc__)
    replay.add_arguments(r)
    sub.add_parser(
        "render",
        help="write an rgb_array screenshot (see python -m zanzibar_env.ui.render -h)",
        add_help=False,
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``zanzibar`` console script."""
    import sys

    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "render":
        return render.main(args_list[1:])
    args = build_parser().parse_args(args_list)
    if args.command == "play":
        return play.run(args)
    return replay.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
