"""Hostile inputs: bounded work refused up front, the documented bot protocol, and failing agents.

The exact API's game functions take the commands' ``max_states`` limit and estimate; ``zanzibar solve
--cache-dir`` refuses a place it cannot write before solving; an object with only ``act(view)`` plays in
the exact API and in tournaments (also with ``--save-games``); an agent that raises or answers badly
mid-tournament gets one line naming the agent, the game and the seat, and exit code 3. Each case pairs
an input with the message it now gets."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from .hostile_bots import Stopper


@pytest.mark.parametrize("call", ["game_exploitability", "win_probability", "game_best_response"])
def test_expensive_exact_calls_are_refused_with_an_estimate(call: str) -> None:
    import zanzibar_env.agents.exact as exact

    fn = getattr(exact, call)
    args: tuple[Any, ...] = ("greedy", "greedy") if call == "win_probability" else ("greedy",)
    with pytest.raises(ValueError, match=r"the game from stacks \(1, 999\) has 999 stack states: an exact "
                       r"analysis would take about 899 s and 4.9 GiB .* over max_states 200; pass "
                       r"max_states=999 to run it"):  # fmt: skip
        fn(*args, "classic", (1, 999))


def test_the_limit_is_a_documented_argument() -> None:
    from zanzibar_env.agents.exact import game_exploitability

    with pytest.raises(ValueError, match=r"over max_states 5; pass max_states=7"):
        game_exploitability("greedy", "classic", (4, 4), max_states=5)
    with pytest.raises(ValueError, match=r"max_states must be a positive integer, got 0"):
        game_exploitability("greedy", "classic", (4, 4), max_states=0)
    assert game_exploitability("greedy", "classic", (2, 2))["average"] >= 0


@pytest.mark.parametrize("where", ["a file", "/dev/null", "below a file"])
def test_solve_refuses_a_cache_dir_it_cannot_write(tmp_path: Path, capsys: Any, where: str) -> None:
    from zanzibar_env.agents.exact.cli import main

    afile = tmp_path / "f"
    afile.write_text("x")
    path = {"a file": str(afile), "/dev/null": "/dev/null", "below a file": str(afile / "sub")}[where]
    assert main(["--cache-dir", path]) == 2
    err = capsys.readouterr()
    assert err.out == "" and err.err.startswith("error: --cache-dir ")  # nothing solved or printed


def test_solve_refuses_a_read_only_mount(tmp_path: Path, capsys: Any) -> None:
    from zanzibar_env.agents.exact.cli import main

    ro = tmp_path / "ro"
    ro.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)],
                      capture_output=True).returncode:  # fmt: skip
        pytest.skip("cannot mount a read-only tmpfs here")
    try:
        assert main(["--cache-dir", str(ro)]) == 2
        assert "read-only file system" in capsys.readouterr().err
    finally:
        subprocess.run(["umount", str(ro)], check=False)


def test_an_act_only_bot_plays_everywhere(tmp_path: Path) -> None:
    from zanzibar_env.agents.exact import exploitability, game_exploitability
    from zanzibar_env.train.tournament.cli import main

    assert exploitability(Stopper(), "classic")["average"] > 0
    assert game_exploitability(Stopper(), "classic", (2, 2))["average"] > 0
    for extra in ([], ["--save-games"]):
        out = tmp_path / f"out{len(extra)}"
        args = ["--agents", "tests.hostile.hostile_bots:Stopper,greedy", "--players", "2", "--games", "4"]
        assert main([*args, "--no-progress", "--out", str(out), *extra]) == 0


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("Raiser", r"error: agent 'raiser' failed in game \d+ \(deal \d+, seat \d\): RuntimeError: boom"),
        (
            "Fractional",
            r"error: agent 'Fractional' failed in game \d+ \(deal \d+, seat \d\): ValueError: .*6.9",
        ),
    ],
)
@pytest.mark.parametrize("extra", [[], ["--save-games"]])
def test_a_failing_agent_is_one_line_and_exit_3(
    tmp_path: Path, capsys: Any, bot: str, message: str, extra: list[str]
) -> None:
    import re

    from zanzibar_env.train.tournament.cli import main

    out = tmp_path / "out"
    args = [
        "--agents",
        f"tests.hostile.hostile_bots:{bot},greedy",
        "--players",
        "2",
        "--games",
        "4",
        "--no-progress",
    ]
    assert main([*args, "--out", str(out), *extra]) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and re.match(message, lines[0]), lines
    assert "Traceback" not in lines[0] and not out.exists()


@pytest.mark.parametrize("extra", [[], ["--save-games"], ["--jobs", "2"]])
def test_the_deals_finished_before_an_agent_fails_are_kept(
    tmp_path: Path, capsys: Any, extra: list[str]
) -> None:
    """``Unlucky`` fails first in deal 2 (seed 1): deals 0 and 1 (4 games) are written, marked incomplete,
    in lockstep (one chunk: played again up to the failing deal), game by game and from worker processes."""
    import json
    import re

    from zanzibar_env.train.tournament.cli import main

    out = tmp_path / "out"
    args = ["--agents", "tests.hostile.hostile_bots:Unlucky,greedy", "--players", "2", "--games", "40",
            "--seed", "1", "--no-progress", "--out", str(out), *extra]  # fmt: skip
    assert main(args) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and re.fullmatch(
        r"error: agent 'unlucky' failed in game [45] \(deal 2, seat [01]\): RuntimeError: three of a kind; "
        rf"4 of 40 games played before it, written to {re.escape(str(out))} marked incomplete",
        lines[0],
    ), lines
    results = json.loads((out / "results.json").read_text())
    run = json.loads((out / "run.json").read_text())
    assert results["complete"] is False and len(results["games"]) == 4
    assert run["stopped_by"] == "agent 'unlucky' failed" and run["complete"] is False
    assert not (out / "tournament.png").exists()
