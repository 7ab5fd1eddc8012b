"""Step through saved games: ``python -m zanzibar_env.ui.replay FILE [--game K] [--step]``.

Also ``zanzibar replay``.

``FILE`` is a JSON-lines file of :class:`~zanzibar_env.core.records.GameRecord` (one game a line, as
written by ``GameRecord.save``, the play command's ``--save``, the envs and tournaments). Each round
is printed turn by turn (every roll and hold) with who paid whom and why, then the final chips or
lives and the winner. Every game is also re-played from its recorded dice and holds
(:func:`~zanzibar_env.core.game.replay_game`) and the output says whether it reproduces the record.
``--step`` waits for Enter between turns when the input is a terminal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ..extras import requires_extra

with requires_extra("ui", "zanzibar replay"):
    from rich.console import Console

from ..core.game import replay_game
from .narrate import describe_result, describe_round, describe_turn, seat_names, stacks_text
from ..core.records import GameRecord, load_games
from ..core.rules import Ruleset


def verify(record: GameRecord) -> tuple[bool, str]:
    """Re-play ``record`` from its dice and holds: ``(reproduces, one-line verdict)``."""
    try:
        again = replay_game(record)
    except (ValueError, KeyError, IndexError, TypeError) as e:
        return False, f"Replay check FAILED: the record does not reproduce ({e})."
    return True, (
        f"Replay check: re-playing the recorded dice and holds reproduces the game "
        f"(final stacks {again.final_stacks}, as recorded)."
    )


class Replayer:
    """Prints games to a console, optionally pausing between turns."""

    def __init__(self, console: Console, pause: Callable[[], None] | None = None) -> None:
        self.console = console
        self.pause = pause

    def _wait(self) -> None:
        if self.pause is not None:
            self.pause()

    def show(self, record: GameRecord, title: str) -> bool:
        """Print one game round by round; returns whether it reproduces."""
        rules = Ruleset.from_dict(record.ruleset, source=title)
        names = seat_names(record.num_players)
        seed = "" if record.seed is None else f", seed {record.seed}"
        self.console.rule(title)
        self.console.print(
            f"Ruleset '{rules.name}', {record.num_players} players{seed}, {len(record.rounds)} rounds."
        )
        start = (
            record.rounds[0].stacks_before if record.rounds else [rules.starting_stack] * record.num_players
        )
        self.console.print("Start: " + stacks_text(start, rules, names))
        for k, rec in enumerate(record.rounds, 1):
            self.console.print(f"[bold]Round {k}[/bold] ({names[rec.starting_seat]} rolls first)")
            for turn in rec.turns:
                self.console.print("  " + describe_turn(turn, rules, names), markup=False)
                self._wait()
            for line in describe_round(rec, rules, names):
                self.console.print("  " + line, style="bold", markup=False)
            self.console.print("  After: " + stacks_text(rec.stacks_after, rules, names))
        final = record.final_stacks or start
        self.console.print("Final: " + stacks_text(final, rules, names), style="bold")
        self.console.print(describe_result(record, names), style="bold green")
        ok, verdict = verify(record)
        self.console.print(verdict, style="green" if ok else "red")
        return ok


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The replay command's options (``python -m zanzibar_env.ui.replay`` and ``zanzibar replay``)."""
    p.add_argument("file", help="JSON-lines file of saved games")
    p.add_argument(
        "--game", type=int, default=None, help="show only game K (1 = the first line); default: all"
    )
    p.add_argument("--step", action="store_true", help="wait for Enter between turns (only on a terminal)")


def run(
    args: argparse.Namespace,
    *,
    input_fn: Callable[[str], str] = input,
    console: Console | None = None,
    interactive: bool | None = None,
) -> int:
    """Show the chosen games; exit code 0 if all reproduce, 1 if one does not, 2 on bad input."""
    console = console or Console(highlight=False)
    try:
        games = load_games(args.file)
        if args.game is not None and not 1 <= args.game <= len(games):
            raise ValueError(f"--game must be 1-{len(games)} for {args.file}, got {args.game}")
    except ValueError as e:
        console.print(f"error: {e}", style="red", markup=False)
        return 2
    if interactive is None:
        interactive = sys.stdin.isatty()

    def pause() -> None:
        input_fn("(Enter for the next turn) ")

    chosen = range(len(games)) if args.game is None else [args.game - 1]
    replayer = Replayer(console, pause if args.step and interactive else None)
    try:
        results = [replayer.show(games[k], f"Game {k + 1} of {len(games)} in {args.file}") for k in chosen]
    except (EOFError, KeyboardInterrupt):
        console.print("\nStopped.")
        return 0
    return 0 if all(results) else 1


def main(
    argv: Sequence[str] | None = None,
    *,
    input_fn: Callable[[str], str] = input,
    console: Console | None = None,
    interactive: bool | None = None,
) -> int:
    """``python -m zanzibar_env.ui.replay``; ``input_fn``, ``console`` and ``interactive`` can be injected."""
    parser = argparse.ArgumentParser(
        prog="python -m zanzibar_env.ui.replay", description=__doc__.split("\n")[0]
    )
    add_arguments(parser)
    return run(parser.parse_args(argv), input_fn=input_fn, console=console, interactive=interactive)


if __name__ == "__main__":
    raise SystemExit(main())
