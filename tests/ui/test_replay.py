"""Replays: a saved game re-plays to the same final chips; the replay command prints and verifies it."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

import zanzibar_env as zz
from zanzibar_env.agents import make_agent
from zanzibar_env.ui.play import main as play_main
from zanzibar_env.ui.replay import main, verify

ROOT = Path(__file__).resolve().parents[2]


def _save_games(path: Path) -> list[zz.GameRecord]:
    games = [
        zz.play_game("classic", [make_agent("random", seed=1), make_agent("greedy", seed=2)], seed=4),
        zz.play_game("lives", make_agent("random", seed=3), num_players=4, seed=5),
        zz.play_game("alt_chips", make_agent("random", seed=6), num_players=3, seed=6, max_rounds=5),
    ]
    for g in games:
        g.save(path)
    return games


def _replay(argv: list[str], **kw: object) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, console=Console(file=out, width=120, soft_wrap=True), **kw)  # type: ignore[arg-type]
    return code, out.getvalue()


def test_saved_games_replay_to_the_same_final_chips(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    originals = _save_games(path)
    loaded = zz.load_games(path)
    assert len(loaded) == 3
    for original, saved in zip(originals, loaded, strict=True):
        again = zz.replay_game(saved)
        assert again.final_stacks == original.final_stacks
        assert again.winners == original.winners
        assert verify(saved)[0]


def test_replay_command_prints_every_turn_and_verifies(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    originals = _save_games(path)
    code, out = _replay([str(path)])
    assert code == 0
    assert out.count("reproduces the game") == 3
    assert "\x1b" not in out
    for k, g in enumerate(originals, 1):
        assert f"Game {k} of 3" in out
        assert f"(final stacks {g.final_stacks}, as recorded)" in out
    assert "No winner: the game was stopped after 5 rounds." in out
    n_turns = sum(len(r.turns) for r in originals[0].rounds)
    code, one = _replay([str(path), "--game", "1"])
    assert code == 0 and "Game 2 of 3" not in one
    assert sum(" => " in line for line in one.splitlines()) == n_turns  # one line per turn


def test_play_save_then_replay_gives_the_same_final_chips(tmp_path: Path) -> None:
    path = tmp_path / "played.jsonl"
    answers = iter(["1 3", "", "r"] * 10_000)
    code = play_main(
        ["--opponents", "random", "--seed", "7", "--stack", "8", "--save", str(path)],
        input_fn=lambda prompt: next(answers),
        console=Console(file=io.StringIO()),
    )
    assert code == 0
    (played,) = zz.load_games(path)
    code, out = _replay([str(path)])
    assert code == 0
    assert f"Final: Player 1 {played.final_stacks[0]}, Player 2 {played.final_stacks[1]} chips" in out
    assert zz.replay_game(played).final_stacks == played.final_stacks


def test_tampered_record_does_not_reproduce(tmp_path: Path) -> None:
    game = zz.play_game("classic", make_agent("random", seed=1), num_players=2, seed=8)
    data = game.to_dict()
    data["final_stacks"] = [s + 1 for s in data["final_stacks"]]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(data) + "\n")
    code, out = _replay([str(path)])
    assert code == 1
    assert "Replay check FAILED" in out


def test_step_waits_between_turns_only_when_interactive(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    game = zz.play_game("classic", make_agent("random", seed=1), num_players=2, seed=9, max_rounds=4)
    game.save(path)
    turns = sum(len(r.turns) for r in game.rounds)
    waits: list[str] = []

    def input_fn(prompt: str) -> str:
        waits.append(prompt)
        return ""

    assert _replay([str(path), "--step"], input_fn=input_fn, interactive=True)[0] == 0
    assert len(waits) == turns
    waits.clear()
    assert _replay([str(path), "--step"], input_fn=input_fn, interactive=False)[0] == 0
    assert waits == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["missing.jsonl"], "replay file not found"), (["GAMES", "--game", "3"], "--game must be 1-1")],
)
def test_bad_input(tmp_path: Path, argv: list[str], message: str) -> None:
    path = tmp_path / "g.jsonl"
    zz.play_game("classic", num_players=2, seed=1, max_rounds=2).save(path)
    argv = [str(path) if a == "GAMES" else str(tmp_path / a) if a.endswith(".jsonl") else a for a in argv]
    code, out = _replay(argv)
    assert code == 2 and message in out


def test_console_script_replay(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    zz.play_game("classic", num_players=2, seed=1, max_rounds=2).save(path)
    proc = subprocess.run(
        [sys.executable, "-m", "zanzibar_env.ui.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "reproduces the game" in proc.stdout
