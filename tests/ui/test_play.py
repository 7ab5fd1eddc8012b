"""The play command: typed holds, a whole game through a pseudo-terminal, and plain (non-TTY) runs."""

from __future__ import annotations

import io
import itertools
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from zanzibar_env import load_games
from zanzibar_env.agents import available_agents
from zanzibar_env.core.engine import STOP
from zanzibar_env.ui.play import QUIT, HoldError, main, parse_hold

ROOT = Path(__file__).resolve().parents[2]
PROMPT = r"Keep which dice\? > "
ANSWERS = ["1 3", "", "r", "2", "23", "1,2"]  # valid holds a scripted person cycles through


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("", STOP),
        ("  ", STOP),
        ("s", STOP),
        ("stop", STOP),
        ("1 2 3", STOP),
        ("123", STOP),
        ("r", 0),
        ("R", 0),
        ("reroll", 0),
        ("0", 0),
        ("1", 0b001),
        ("2", 0b010),
        ("3", 0b100),
        ("1 3", 0b101),
        ("13", 0b101),
        ("3,1", 0b101),
        (" 2  3 ", 0b110),
        ("q", QUIT),
        ("quit", QUIT),
    ],
)
def test_parse_hold(text: str, action: int) -> None:
    assert parse_hold(text) == action


@pytest.mark.parametrize("text", ["9 x", "4", "1 1", "all", "a", "keep 1", "1.5", "-1", "12 3 4", "?"])
def test_parse_hold_rejects_with_hint(text: str) -> None:
    with pytest.raises(HoldError, match="Enter to stop"):
        parse_hold(text)


def test_parse_hold_without_holds_allowed() -> None:
    assert parse_hold("", holds_allowed=False) == STOP
    assert parse_hold("r", holds_allowed=False) == 0
    with pytest.raises(HoldError, match="allows no holds"):
        parse_hold("1 3", holds_allowed=False)


def test_whole_game_through_a_pseudo_terminal() -> None:
    """A scripted person plays to the end in a real pty, including one mistyped hold that re-prompts."""
    child = pexpect.spawn(
        str(ROOT / ".venv" / "bin" / "python"),
        ["-m", "zanzibar_env.ui.play", "--opponents", "random", "--seed", "7", "--ruleset", "classic"],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=90,  # a loaded 2-core CI machine can take long to start the interpreter
        dimensions=(50, 160),
        env={"TERM": "xterm", "PATH": ""},
    )
    child.expect(PROMPT)
    child.sendline("9 x")
    child.expect("is not a hold")
    answers = itertools.cycle(ANSWERS)
    prompts = 1
    while child.expect([PROMPT, r"Game over: ([^\r\n]*)"]) == 0:
        child.sendline(next(answers))
        prompts += 1
    winner_line = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert "wins" in winner_line or "win (" in winner_line
    assert prompts > 10
    assert child.exitstatus == 0


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_exits_cleanly() -> None:
    child = pexpect.spawn(
        str(ROOT / ".venv" / "bin" / "python"),
        ["-m", "zanzibar_env.ui.play", "--seed", "1"],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=90,  # a loaded 2-core CI machine can take long to start the interpreter
        env={"TERM": "xterm", "PATH": ""},
        # as a terminal's shell would: Ctrl-C not ignored (pytest started in the background of a
        # non-interactive shell inherits SIGINT ignored, and Python then never sees the ^C)
        preexec_fn=_default_sigint,
    )
    child.expect(PROMPT)
    child.sendintr()
    child.expect("Interrupted; the game is abandoned")
    rest = child.read()
    child.close()
    assert "Traceback" not in rest
    assert child.exitstatus == 130


def _run(argv: list[str], inputs: list[str]) -> tuple[int, str, int]:
    """Run ``main`` on scripted input (``inputs``, then ``ANSWERS`` cycled): code, output, prompts."""
    feed = itertools.chain(inputs, itertools.cycle(ANSWERS))
    asked = 0

    def input_fn(prompt: str) -> str:
        nonlocal asked
        asked += 1
        return next(feed)

    out = io.StringIO()
    code = main(argv, input_fn=input_fn, console=Console(file=out, width=100, highlight=False))
    return code, out.getvalue(), asked


def test_plain_game_via_main_saves_a_replayable_game(tmp_path: Path) -> None:
    save = tmp_path / "game.jsonl"
    argv = ["--opponents", "random,random", "--seed", "3", "--ruleset", "classic", "--save", str(save)]
    code, out, asked = _run(argv, ["9 x"])
    assert code == 0
    assert "\x1b" not in out  # not a terminal: no escape codes
    assert "'9 x' is not a hold." in out
    assert "Game over: " in out and ("wins (out of chips first)" in out or "win (out of chips first)" in out)
    assert "everyone else pays" in out
    (game,) = load_games(save)
    assert game.num_players == 3 and game.seed == 3
    assert sum(game.final_stacks) == 60 and 0 in game.final_stacks
    assert asked > 3


def test_same_seed_same_game(tmp_path: Path) -> None:
    argv = ["--opponents", "greedy", "--seed", "11", "--ruleset", "lives", "--stack", "3"]
    first, second = _run(argv, []), _run(argv, [])
    assert first == second
    assert "last one standing" in first[1]


def test_opponents_are_cycled_to_fill_the_table(tmp_path: Path) -> None:
    save = tmp_path / "g.jsonl"
    argv = ["--opponents", "greedy,random", "--players", "4", "--seed", "2", "--stack", "4"]
    argv += ["--save", str(save)]
    code, out, _ = _run(argv, [])
    assert code == 0
    assert "opponents: Player 2 (greedy), Player 3 (random), Player 4 (greedy)." in out
    (game,) = load_games(save)
    assert game.num_players == 4 and sum(game.final_stacks) == 16


def test_quit_eof_and_bad_options() -> None:
    code, out, _ = _run(["--seed", "1"], ["q"])
    assert code == 0 and "You left the game" in out and "Game over" not in out

    def eof(prompt: str) -> str:
        raise EOFError

    buf = io.StringIO()
    assert main(["--seed", "1"], input_fn=eof, console=Console(file=buf)) == 0
    assert "Input ended" in buf.getvalue()
    for argv, message in [
        (["--opponents", "nobody"], "unknown agent 'nobody'"),
        (["--opponents", "random,random", "--players", "2"], "2 opponents do not fit at a table of 2"),
        (["--players", "9"], "num_players must be an integer 2-8"),
        (["--ruleset", "nope"], "unknown ruleset 'nope'"),
        (["--opponents", "ppo:/no/such/model.zip"], "/no/such/model.zip"),
    ]:
        code, out, _ = _run(argv, [])
        assert code == 2, argv
        assert message in out, (argv, out)


def test_hint_shows_the_optimal_move_or_says_why_not() -> None:
    code, out, _ = _run(["--seed", "5", "--hint", "--stack", "2"], [])
    assert code == 0
    if "optimal" in available_agents():
        assert "Hint: the optimal player would" in out and "expected" in out
    else:
        assert "--hint needs the 'optimal' agent" in out


def test_piped_subprocess_has_no_escape_codes() -> None:
    """The real entry point with a pipe for stdout (rich's own terminal detection), quitting at once."""
    proc = subprocess.run(
        [sys.executable, "-m", "zanzibar_env.ui.play", "--seed", "2"],
        input="9 x\nq\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout
    assert "is not a hold" in proc.stdout and "You left the game" in proc.stdout
    assert "Traceback" not in proc.stderr
