"""Step through saved games: ``python -m zanzibar_env.ui.replay FILE [--game K] [--step]``.

Also ``zanzibar replay``.

``FILE`` is a JSON-lines file of :class:`~zanzibar_env.core.records.GameRecord` (one game a line, as
written by ``GameRecord.save``, the play command's ``--save``, the envs and tournaments). Each round
is printed turn by turn (every roll and hold) with who paid whom and why, then the final chips or
lives and the winner. Every game is also re-played from its recorded dice and holds
(:func:`~zanzibar_env.core.game.replay_game`), its starting stacks are checked against the ruleset's
``starting_stack`` and, when it names a seed, it is re-played from that seed's dice; the output says
whether it reproduces the record (exit 1 if one does not; a record that does not is not narrated).
Bad input (a missing, empty or malformed file, a directory) is a one-line error and exit code 2.
``--step`` waits for Enter between turns when the input is a terminal.
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import sys
from collections.abc import Callable, Sequence

from ..core.invocation import command_prog
from ..extras import requires_extra

with requires_extra("ui", "zanzibar replay"):
    from rich.console import Console
    from rich.markup import escape

from ..core.game import play_game, replay_game
from ..core.interrupts import run_command
from ..core.provenance import RECORD_FORMAT, engine_version, format_note, ruleset_digest
from ..core.records import GameRecord, read_games
from ..core.rules import Ruleset
from .narrate import describe_result, describe_round, describe_turn, seat_names, stacks_text
from .table import printable


class _RecordedActions:
    """Plays back the recorded hold masks of every turn, in order."""

    def __init__(self, record: GameRecord) -> None:
        self.actions = [a for r in record.rounds for t in r.turns for a in t.actions]
        self.pos = 0

    def __call__(self, view: object) -> int:
        if self.pos >= len(self.actions):
            raise ValueError("the record runs out of actions")
        self.pos += 1
        return self.actions[self.pos - 1]


def _check_derived(record: GameRecord, rules: Ruleset) -> None:
    """What follows from the ruleset and the seed: the starting stacks, and the dice when seeded."""
    start = [rules.starting_stack] * record.num_players
    if record.rounds and record.rounds[0].stacks_before != start:
        raise ValueError(
            f"starting stacks {record.rounds[0].stacks_before} are not the ruleset's starting_stack {start}"
        )
    if record.seed is None:
        return
    again = play_game(
        rules,
        _RecordedActions(record),
        num_players=record.num_players,
        first_seat=record.first_seat,
        seed=record.seed,
        max_rounds=len(record.rounds) if record.truncated else None,
    )
    if again.game_dict() != record.game_dict():
        raise ValueError(f"the dice of seed {record.seed} do not give the recorded game")


def verify(record: GameRecord) -> tuple[bool, str]:
    """Re-play ``record`` from its dice and holds, check its starting stacks against the ruleset and,
    when it names a seed, re-play it from that seed: ``(reproduces, one-line verdict)``."""
    try:
        if record.ruleset_sha256 and record.ruleset_sha256 != ruleset_digest(record.ruleset):
            raise ValueError("its ruleset options do not match its ruleset_sha256: they were changed after")
        rules = Ruleset.from_dict(record.ruleset)
        _check_derived(record, rules)
        again = replay_game(record)
    except (ValueError, KeyError, IndexError, TypeError, RecursionError) as e:
        reason = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        note = _version_note(record)
        return False, f"Replay check FAILED: the record does not reproduce ({reason}).{note}"
    seeded = "" if record.seed is None else f" Seed {record.seed} gives the same dice."
    return True, (
        f"Replay check: re-playing the recorded dice and holds reproduces the game "
        f"(final stacks {again.final_stacks}, as recorded).{seeded}"
    )


def _version_note(record: GameRecord) -> str:
    """A sentence when the record comes from another format or engine version (a likely reason)."""
    if record.format == RECORD_FORMAT and record.engine == engine_version():
        return ""
    note = format_note("record", record.format, record.engine, RECORD_FORMAT)
    return f" Note: {note}; the rules or the record layout may have changed since it was written."


class Replayer:
    """Prints games to a console, optionally pausing between turns. Text taken from a record (names,
    descriptions, file names) is printed literally, never read as rich markup, and without control
    characters (:func:`~zanzibar_env.ui.table.printable`: no escape code reaches the terminal)."""

    def __init__(self, console: Console, pause: Callable[[], None] | None = None) -> None:
        self.console = console
        self.pause = pause

    def _wait(self) -> None:
        if self.pause is not None:
            self.pause()

    def _say(self, text: str, style: str | None = None) -> None:
        self.console.print(printable(text), style=style, markup=False)

    def show(self, record: GameRecord, title: str) -> bool:
        """Print one game round by round; returns whether it reproduces.

        A record that does not reproduce is not narrated (its turns may not even be legal): only
        its header and the failed check are printed.
        """
        ok, verdict = verify(record)
        self.console.rule(escape(printable(title)))
        seed = "" if record.seed is None else f", seed {record.seed}"
        name = record.ruleset.get("name", "?") if isinstance(record.ruleset, dict) else "?"
        self._say(f"Ruleset '{name}', {record.num_players} players{seed}, {len(record.rounds)} rounds.")
        if ok:
            self._narrate(record, Ruleset.from_dict(record.ruleset, source=title))
        self._say(verdict, style="green" if ok else "red")
        return ok

    def _narrate(self, record: GameRecord, rules: Ruleset) -> None:
        names = seat_names(record.num_players)
        start = (
            record.rounds[0].stacks_before if record.rounds else [rules.starting_stack] * record.num_players
        )
        self._say("Start: " + stacks_text(start, rules, names))
        for k, rec in enumerate(record.rounds, 1):
            self._say(f"Round {k} ({names[rec.starting_seat]} rolls first)", style="bold")
            for turn in rec.turns:
                self._say("  " + describe_turn(turn, rules, names))
                self._wait()
            for line in describe_round(rec, rules, names):
                self._say("  " + line, style="bold")
            self._say("  After: " + stacks_text(rec.stacks_after, rules, names))
        final = record.final_stacks or start
        self._say("Final: " + stacks_text(final, rules, names), style="bold")
        self._say(describe_result(record, names), style="bold green")


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
    """Show the chosen games; exit code 0 if all reproduce, 1 if one does not or a record cannot be read
    (the others are still shown, each bad record named), 2 on bad input."""
    console = console or Console(highlight=False)
    try:
        games, problems = read_games(args.file)
        if not any(g is not None for g in games):
            raise ValueError(problems[0] if problems else f"{args.file}: no games in the file")
        if args.game is not None and not 1 <= args.game <= len(games):
            raise ValueError(f"--game must be 1-{len(games)} for {args.file}, got {args.game}")
        if args.game is not None and games[args.game - 1] is None:
            raise ValueError(problems[sum(g is None for g in games[: args.game]) - 1])
    except ValueError as e:
        console.print(printable(f"error: {e}"), style="red", markup=False, highlight=False)
        return 2
    for problem in problems if args.game is None else []:
        console.print(
            printable(f"warning: {problem} (skipped)"), style="yellow", markup=False, highlight=False
        )
    if interactive is None:
        interactive = sys.stdin.isatty()

    def pause() -> None:
        input_fn("(Enter for the next turn) ")

    chosen = [k for k in range(len(games)) if games[k] is not None] if args.game is None else [args.game - 1]
    replayer = Replayer(console, pause if args.step and interactive else None)
    try:
        results = [
            replayer.show(g, f"Game {k + 1} of {len(games)} in {args.file}")
            for k in chosen
            if (g := games[k]) is not None
        ]
    except (EOFError, KeyboardInterrupt):
        console.print("\nStopped.")
        return 0
    return 0 if all(results) and not (problems and args.game is None) else 1


def main(
    argv: Sequence[str] | None = None,
    *,
    input_fn: Callable[[str], str] = input,
    console: Console | None = None,
    interactive: bool | None = None,
) -> int:
    """``python -m zanzibar_env.ui.replay``; ``input_fn``, ``console`` and ``interactive`` can be injected."""
    parser = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.ui.replay"), description=__doc__.split("\n")[0]
    )
    add_arguments(parser)
    return run(parser.parse_args(argv), input_fn=input_fn, console=console, interactive=interactive)


if __name__ == "__main__":
    raise SystemExit(run_command(main, "replay"))
