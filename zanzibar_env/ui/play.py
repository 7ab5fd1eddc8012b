"""Play Zanzibar in the terminal against bots: ``python -m zanzibar_env.ui.play`` (or ``zanzibar play``).

You are Player 1 and roll first in round 1. Each decision shows your dice by position (1-3, sorted
ascending), the rolls used and the roll limit, the hand to beat and the chips or lives; type the
positions of the dice to keep (``1 3`` keeps dice 1 and 3 and rerolls the other), ``r`` to reroll
all three, Enter to stop, ``q`` to quit. Anything else re-prompts with a one-line hint. Bots' turns
are printed roll by roll, every round ends with who pays whom and why, and the game with the winner.
``--save FILE.jsonl`` appends the finished game for ``python -m zanzibar_env.ui.replay FILE.jsonl``.

Output goes through ``rich``: colour on a terminal, plain text (no escape codes) otherwise.
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import itertools
from collections.abc import Callable, Sequence

from ..extras import requires_extra

with requires_extra("ui", "zanzibar play"):
    from rich import box
    from rich.console import Console
    from rich.table import Table

from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.registry import spec_help

from ..core.checks import check_seed
from ..core.dice import RandomDice
from ..core.engine import STOP, View
from ..core.game import GameState, check_num_players
from ..core.interrupts import run_command
from ..core.records import TurnRecord, check_replay_file
from ..core.registry import make_agent
from ..core.rules import MAX_GAME_ROUNDS, load_ruleset
from .narrate import describe_result, describe_round, describe_turn, possessive, seat_names
from .play_help import Hinter, hold_mask_text
from .render import held_mask
from .table import printable

HINT = "Type dice positions to keep (e.g. '1 3'), 'r' to reroll all, Enter to stop, 'q' to quit."
QUIT = -1
_STOP_WORDS = ("", "s", "stop")
_REROLL_WORDS = ("r", "reroll", "0")
_QUIT_WORDS = ("q", "quit", "exit")


class HoldError(ValueError):
    """A typed hold that means nothing; the message is the one-line hint to show."""


def parse_hold(text: str, holds_allowed: bool = True) -> int:
    """A typed hold as an action: positions to keep (``"1 3"``, ``"13"``, ``"1,3"``) -> hold mask.

    Enter/``s`` stops (7), ``r`` rerolls all (0), ``q`` returns :data:`QUIT`; anything else raises
    :class:`HoldError` carrying a one-line hint.
    """
    t = text.strip().lower()
    if t in _STOP_WORDS:
        return STOP
    if t in _REROLL_WORDS:
        return 0
    if t in _QUIT_WORDS:
        return QUIT
    parts = t.replace(",", " ").split()
    if len(parts) == 1 and parts[0].isdigit():
        parts = list(parts[0])
    if not parts or any(p not in ("1", "2", "3") for p in parts):
        raise HoldError(f"{text.strip()!r} is not a hold. {HINT}")
    if len(set(parts)) != len(parts):
        raise HoldError(f"Each die can be kept only once. {HINT}")
    mask = sum(1 << (int(p) - 1) for p in parts)
    if not holds_allowed and mask != STOP:
        raise HoldError("This ruleset allows no holds: 'r' rerolls all three dice, Enter stops.")
    return mask


class Session:
    """One game between a person (seat 0) and bots, printed to a rich console."""

    def __init__(
        self,
        game: GameState,
        bots: dict[int, Callable[[View], int]],
        console: Console,
        input_fn: Callable[[str], str],
        hinter: Hinter | None = None,
    ) -> None:
        self.game, self.bots, self.console, self.input_fn, self.hinter = game, bots, console, input_fn, hinter
        self.human = 0
        self.names = seat_names(game.num_players, you=self.human)
        self.shown_rounds = 0
        self.shown_turns = 0

    # ---- the game loop ---------------------------------------------------------------------------
    def play(self) -> bool:
        """Play to the end; ``False`` if the person quit."""
        self._round_header()
        while not self.game.done:
            seat = self.game.current_seat
            assert seat is not None
            if seat == self.human:
                action = self._ask()
                if action == QUIT:
                    self.console.print("You left the game; it is not saved.")
                    return False
            else:
                action = self.bots[seat](self.game.view())
            self.game.apply(action)
            self._catch_up()
        self._game_over()
        return True

    def _catch_up(self) -> None:
        """Print every turn and round finished since the last call."""
        rounds, rules = self.game.record.rounds, self.game.ruleset
        while self.shown_rounds < len(rounds):
            rec = rounds[self.shown_rounds]
            self._turns(rec.turns)
            for line in describe_round(rec, rules, self.names):
                self.console.print(line, style="bold", markup=False)
            self.shown_rounds += 1
            self.shown_turns = 0
            if rules.stake == "lives" and rec.stacks_after[self.human] == 0 < rec.stacks_before[self.human]:
                self.console.print("You are out of lives; the bots play on to the end.", style="bold")
            if not self.game.done:
                self._round_header()
        if not self.game.round.done:
            self._turns(self.game.round.record.turns)

    def _turns(self, turns: Sequence[TurnRecord]) -> None:
        for turn in turns[self.shown_turns :]:
            style = "cyan" if turn.seat == self.human else None
            self.console.print(describe_turn(turn, self.game.ruleset, self.names), style=style, markup=False)
        self.shown_turns = len(turns)

    # ---- what is shown -------------------------------------------------------------------------
    def _stacks_table(self, title: str | None = None) -> Table:
        """Chips or lives as one row, one column per player (players who are out are marked)."""
        rules, game = self.game.ruleset, self.game
        stacks = game.record.final_stacks if game.done else game.round.stacks
        table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column("")
        row = ["Lives" if rules.stake == "lives" else "Chips"]
        for s, name in enumerate(self.names):
            out = rules.stake == "lives" and stacks[s] == 0
            table.add_column(name, justify="right", style="dim" if out else None)
            row.append(f"{stacks[s]}{' (out)' if out else ''}")
        table.add_row(*row)
        return table

    def _round_header(self) -> None:
        rnd, rules = self.game.round, self.game.ruleset
        n = len(self.game.record.rounds) + 1
        starter = self.names[rnd.record.starting_seat]
        self.console.rule(f"Round {n}: {starter} {'roll' if starter == 'You' else 'rolls'} first")
        self.console.print(self._stacks_table())
        goal = {
            "chips": "lose all your chips first",
            "lives": "be the last one with lives",
            "penalty": "take the fewest penalty points"
            + (f" in {rules.num_rounds} rounds" if rules.num_rounds is not None else "")
            + (
                f" (the game ends at {rules.penalty_limit} points)" if rules.penalty_limit is not None else ""
            ),
        }[rules.stake]
        limit = (
            f"up to {rules.max_rolls} rolls; the first roller's count sets everyone's limit"
            if rules.first_roller_sets_limit
            else f"up to {rules.max_rolls} rolls each"
        )
        self.console.print(f"Goal: {goal}. This round: {limit}.", style="dim")

    def _situation(self, view: View) -> None:
        rnd = self.game.round.snapshot()
        after = view.players_after
        self.console.print(
            f"[bold]Your turn[/bold]: roll {view.rolls_used} of {view.roll_limit}"
            f" ({after} player{'s' if after != 1 else ''} still to roll after you)"
        )
        if rnd.lowest_seats:
            low = rnd.lowest_seats[0]
            hi = rnd.highest_seat if rnd.highest_seat is not None else low
            text = f"To beat: {possessive(self.names[low])} {rnd.hands[low].describe()} is the lowest so far"
            if rnd.hands[hi] == rnd.hands[low]:
                text += " (and the highest)" if len(rnd.hands) == 1 else " (all hands are equal)"
            else:
                text += f"; highest so far: {possessive(self.names[hi])} {rnd.hands[hi].describe()}"
            self.console.print(text)
        else:
            self.console.print("You roll first this round: nothing to beat yet.")
        held = held_mask(rnd)
        cells = []
        for i, d in enumerate(view.dice):
            kept = bool(held >> i & 1)
            cells.append(f"({i + 1}) [bold yellow]{d}*[/bold yellow]" if kept else f"({i + 1}) {d} ")
        legend = "   * = kept from the last roll" if held else ""
        self.console.print(f"Dice:  {'   '.join(cells)}  => [bold]{view.hand.describe()}[/bold]{legend}")

    def _ask(self) -> int:
        view = self.game.view()
        self._situation(view)
        if self.hinter is not None:
            self.console.print(self.hinter(view), style="magenta", markup=False)
        self.console.print(HINT, style="dim")
        while True:
            answer = self.input_fn("Keep which dice? > ")
            try:
                action = parse_hold(answer, self.game.ruleset.holds_allowed)
            except HoldError as e:
                self.console.print(str(e), style="red", markup=False)
                continue
            if action not in (QUIT, STOP):
                self.console.print(f"You {hold_mask_text(view.dice, action)}.", style="cyan")
            return action

    def _game_over(self) -> None:
        self.console.rule("Game over")
        self.console.print(self._stacks_table("Final standings"))
        self.console.print(f"Game over: {describe_result(self.game.record, self.names)}", style="bold green")


# ---- command line ------------------------------------------------------------------------------
def add_arguments(p: argparse.ArgumentParser) -> None:
    """The play command's options (shared by ``python -m zanzibar_env.ui.play`` and ``zanzibar play``)."""
    p.add_argument(
        "--opponents",
        default="random",
        help=f"comma-separated bots, cycled to fill the seats; each {spec_help()}",
    )
    p.add_argument("--ruleset", default="classic", help="ruleset name (classic, lives, ...) or YAML path")
    p.add_argument("--seed", type=int, default=None, help="seed for the dice and the bots (default: random)")
    p.add_argument("--players", type=int, default=None, help="table size 2-8 (default: 1 + opponents)")
    p.add_argument("--stack", type=int, default=None, help="starting chips or lives (default: the ruleset's)")
    p.add_argument("--hint", action="store_true", help="show what the optimal player would do, and its value")
    p.add_argument(
        "--save",
        default=None,
        help="append the finished game to this JSON-lines file (new, or a replay file)",
    )


def _setup(args: argparse.Namespace, console: Console, input_fn: Callable[[str], str]) -> Session:
    """Build the game, the bots and the session from the options (``ValueError`` on bad options)."""
    if args.save:
        check_replay_file(args.save)  # a bad --save path fails now, not after the game
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    if not specs:
        raise ValueError("--opponents needs at least one bot name")
    n = check_num_players(args.players if args.players is not None else 1 + len(specs))
    if len(specs) > n - 1:
        raise ValueError(f"{len(specs)} opponents do not fit at a table of {n} (you take one seat)")
    overrides = {"starting_stack": args.stack} if args.stack is not None else {}
    rules = load_ruleset(args.ruleset, **overrides)
    seed = check_seed(args.seed, "--seed")
    bots: dict[int, Callable[[View], int]] = {}
    for seat, spec in zip(range(1, n), itertools.cycle(specs)):
        bots[seat] = make_agent(spec, seed=None if seed is None else seed + seat).act
    cap = rules.max_rounds or MAX_GAME_ROUNDS  # every game ends (rules.py)
    game = GameState(rules, n, RandomDice(seed), first_seat=0, max_rounds=cap, seed=seed)
    hinter = Hinter(rules) if args.hint else None
    if hinter is not None and hinter.problem:
        console.print(hinter.problem, style="red", markup=False)
    table = ", ".join(f"{name} ({spec})" for name, spec in zip(seat_names(n)[1:], itertools.cycle(specs)))
    console.print(printable(f"Zanzibar, ruleset '{rules.name}': {rules.description}"), markup=False)
    console.print(printable(f"You are Player 1; opponents: {table}."), markup=False)
    return Session(game, bots, console, input_fn, hinter)


def run(
    args: argparse.Namespace, *, input_fn: Callable[[str], str] = input, console: Console | None = None
) -> int:
    """Play one game from parsed options; exit code 0 (done or quit), 2 (bad options) or 130 (Ctrl-C)."""
    console = console or Console(highlight=False)
    try:
        session = _setup(args, console, input_fn)
    except ValueError as e:
        console.print(printable(f"error: {e}"), style="red", markup=False)
        return 2
    except ImportError as e:
        hint = "is the project installed? run: pip install --no-deps -e ."
        console.print(printable(f"error: cannot load the bots ({e}); {hint}"), style="red", markup=False)
        return 2
    try:
        finished = session.play()
    except EOFError:
        console.print("\nInput ended; the game is abandoned and not saved.")
        return 0
    except KeyboardInterrupt:
        console.print("\nInterrupted; the game is abandoned and not saved.")
        return 130
    if finished and args.save:
        session.game.record.save(args.save)
        saved = (
            f"Saved the game to {args.save} (replay: {command_prog('zanzibar_env.ui.replay')} {args.save})"
        )
        console.print(printable(saved), markup=False)
    return 0


def main(
    argv: Sequence[str] | None = None,
    *,
    input_fn: Callable[[str], str] = input,
    console: Console | None = None,
) -> int:
    """``python -m zanzibar_env.ui.play``; ``input_fn`` and ``console`` can be injected (tests)."""
    parser = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.ui.play"), description=__doc__.split("\n")[0]
    )
    add_arguments(parser)
    return run(parser.parse_args(argv), input_fn=input_fn, console=console)


if __name__ == "__main__":
    raise SystemExit(run_command(main, "play"))
