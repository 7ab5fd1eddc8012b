"""Tournaments: duplicate scheduling, jobs independence, outputs, CLI errors, statistics."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

import zanzibar_env as zz
from zanzibar_env.train.results.intervals import win_interval
from zanzibar_env.train.tournament import deal_plan, main, run_tournament

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["random", "greedy", "threshold", "escape"]


def test_main_writes_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results"
    code = main(
        [
            "--agents",
            ",".join(BOTS),
            "--players",
            "4",
            "--games",
            "20",
            "--seed",
            "3",
            "--out",
            str(out),
            "--no-progress",
            "--save-games",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "games/s" in printed and "win rate" in printed and "escape" in printed
    rows = list(csv.DictReader((out / "games.csv").open()))
    assert len(rows) == 20 * 4
    doc = json.loads((out / "results.json").read_text())
    assert doc["config"]["games"] == 20 and len(doc["games"]) == 20
    assert {a["name"] for a in doc["summary"]} == set(BOTS)
    assert sum(sum(g["win"]) for g in doc["games"]) == pytest.approx(20)  # every game has a winner
    assert (out / "tournament.png").stat().st_size > 10_000
    records = zz.load_games(out / "games.jsonl")
    assert len(records) == 20
    zz.replay_game(records[5])


def test_cli_subprocess(tmp_path: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "train.tournament",
        "--agents",
        "random,escape",
        "--players",
        "2",
        "--games",
        "20",
        "--ruleset",
        "lives",
        "--max-rounds",
        "30",
        "--out",
        str(tmp_path),
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "games/s" in done.stdout and "lives" in done.stdout
    doc = json.loads((tmp_path / "results.json").read_text())
    assert all(g["rounds"] <= 30 for g in doc["games"])
    bad = subprocess.run([*cmd[:4], "random,nobody"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "unknown agent 'nobody'" in bad.stderr and "escape" in bad.stderr


def test_jobs_do_not_change_results() -> None:
    kwargs = dict(players=3, games=30, ruleset="classic", seed=7, progress=False)
    agents = [*BOTS, "threshold"]  # 5 agents at 3 seats: line-ups drawn from the seed
    one = run_tournament(agents, jobs=1, **kwargs)  # type: ignore[arg-type]
    two = run_tournament(agents, jobs=2, **kwargs)  # type: ignore[arg-type]
    assert one.games == two.games
    assert one.summary == two.summary
    assert {n for g in one.games for n in g["agents"]} == {
        "random",
        "greedy",
        "threshold",
        "escape",
        "threshold#2",
    }


def test_bad_agents_fail_before_any_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "never"
    assert main(["--agents", "random,greedy,nope", "--out", str(out), "--no-progress"]) == 2
    assert "unknown agent 'nope'" in capsys.readouterr().err
    assert main(["--agents", f"random,ppo:{tmp_path / 'missing.zip'}", "--out", str(out)]) == 2
    assert "no SB3 model file" in capsys.readouterr().err
    assert main(["--agents", "random", "--out", str(out)]) == 2  # one agent is not a tournament
    assert main(["--agents", "random,greedy", "--players", "9", "--out", str(out)]) == 2
    assert main(["--agents", "random,greedy", "--ruleset", "nope", "--out", str(out)]) == 2
    assert not out.exists()
    with pytest.raises(ValueError, match="unknown agent"):
        run_tournament(["random", "bogus"], games=4, progress=False)


def test_duplicate_format_replays_the_dice() -> None:
    """Identical deterministic agents: every rotation of a deal plays the very same game."""
    res = run_tournament(["greedy"] * 4, players=4, games=12, seed=1, progress=False)
    assert len(res.games) == 12
    for deal in range(3):
        games = [g for g in res.games if g["deal"] == deal]
        assert [g["rotation"] for g in games] == [0, 1, 2, 3]
        assert len({g["dice_seed"] for g in games}) == 1
        assert len({(g["rounds"], tuple(g["final_stacks"])) for g in games}) == 1
        seats_of_first = [g["agents"].index("greedy") for g in games]
        assert sorted(seats_of_first) == [0, 1, 2, 3]  # each line-up agent sits in every seat once


def test_deal_plan() -> None:
    lineup, dice_seed, seeds = deal_plan(0, 5, 4, 4)
    assert lineup == [0, 1, 2, 3] and len(seeds) == 4
    assert deal_plan(0, 5, 4, 4) == (lineup, dice_seed, seeds)
    assert deal_plan(0, 6, 4, 4)[1] != dice_seed
    picks = [deal_plan(0, d, 6, 3)[0] for d in range(50)]
    assert all(len(set(p)) == 3 for p in picks)
    assert set().union(*picks) == set(range(6))
    assert deal_plan(0, 0, 2, 5)[0] == [0, 1, 0, 1, 0]


def test_a_bot_that_never_wins_has_a_non_zero_upper_bound() -> None:
    res = run_tournament(["random", "optimal"], players=2, games=60, seed=0, progress=False)
    by_name = {a.name: a for a in res.summary}
    assert by_name["random"].win_rate < 0.2
    for a in res.summary:
        assert 0 <= a.win_low <= a.win_rate <= a.win_high <= 1 and a.win_high > 0
        assert a.per_round_low <= a.per_round <= a.per_round_high
    low, high = win_interval(0, 300)  # Wilson: 0 of 300 is not "0.000 ± 0.000"
    assert low == 0 and high == pytest.approx(0.01264, abs=1e-5)


def test_fewer_agents_than_seats_and_places() -> None:
    res = run_tournament(["random", "escape"], players=4, games=8, seed=2, progress=False, max_rounds=40)
    for g in res.games:
        assert sorted(g["agents"]) == ["escape", "escape", "random", "random"]
        assert min(g["place"]) == 1
        if not g["truncated"]:
            assert all(g["place"][s] == 1 for s in g["winners"])
    by_name = {a.name: a for a in res.summary}
    assert by_name["escape"].games == by_name["random"].games == 16


def test_ppo_agent_in_a_two_job_tournament(tmp_path: Path) -> None:
    """A saved SB3 model plays in worker processes (pickled as its path, reloaded there)."""
    from tests.agents.test_agents import _save_tiny_model

    path = _save_tiny_model(tmp_path / "model.zip", maskable=True)
    kwargs = dict(players=2, games=4, seed=0, max_rounds=20, progress=False)
    two = run_tournament([f"ppo:{path}", "greedy"], jobs=2, **kwargs)  # type: ignore[arg-type]
    one = run_tournament([f"ppo:{path}", "greedy"], jobs=1, **kwargs)  # type: ignore[arg-type]
    assert one.games == two.games and len(two.games) == 4


def test_penalty_points_count_against_the_player() -> None:
    """In the penalty game fewer points is better: the winners get place 1 and the best result."""
    res = run_tournament(["random", "greedy"], players=3, games=6, ruleset="penalty", seed=3, progress=False)
    for g in res.games:
        best = min(g["final_stacks"])
        assert sorted(g["winners"]) == [s for s, p in enumerate(g["final_stacks"]) if p == best]
        assert all(g["place"][s] == 1 for s in g["winners"])
        assert all(g["result"][s] == -p for s, p in enumerate(g["final_stacks"]))  # starting_stack is 0
        assert max(g["result"]) == -best


def test_bad_backend_options_fail_before_ray_starts() -> None:
    with pytest.raises(ValueError, match="backend must be one of"):
        run_tournament(["random", "greedy"], backend="spark", games=2)
    with pytest.raises(ValueError, match="for --backend ray"):
        run_tournament(["random", "greedy"], address="auto", games=2)
    with pytest.raises(ValueError, match="with --address"):
        run_tournament(["random", "greedy"], backend="ray", address="auto", jobs=2, games=2)


def test_ray_backend_without_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from zanzibar_env.extras import MissingExtraError

    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(MissingExtraError, match=r'pip install "zanzibar-env\[ray\]"'):
        run_tournament(["random", "greedy"], backend="ray", games=2, progress=False)
