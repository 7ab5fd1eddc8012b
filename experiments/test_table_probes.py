"""The studies of play at a table of known bots still run: ``python -m experiments.table_game_probe`` and
``python -m experiments.table_probe``."""

from __future__ import annotations

import re

import pytest

from experiments import table_game_probe, table_probe
from tests.cache import isolated_cache  # noqa: F401  (autouse fixture)


def test_probe_prints_every_seat(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--others", "greedy,escape", "--total", "6", "--family", "2", "--gap", "3", "--rival", "1"]
    assert table_game_probe.main([*args, "--agree", "30"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"in 30 games: \d+ decisions, \d+ \(\d+\.\d\d%\) unlike optimal's", out)
    assert "seat 0 plays | 0 | 1 greedy | 2 escape" in out
    assert re.search(r"\nround best response \(chips\) \| 0\.\d{4} \|", out)
    assert re.search(
        r"chips per round .*: optimal( [+-]\d\.\d{4}){3} \(mean .*best response( [+-]\d\.\d{4}){3}", out
    )
    assert "family of 3, own win" in out and "family of 3, ahead of seat 1" in out
    assert "3 random states" in out


def test_probe_passes_rounds_to_every_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = table_game_probe.solve_family

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(int(kwargs["rounds"]))  # type: ignore[call-overload]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(table_game_probe, "solve_family", spy)
    argv = ["--others", "greedy,escape", "--total", "6", "--family", "2", "--rounds", "2", "--rival", "1"]
    assert table_game_probe.main(argv) == 0
    assert seen == [2, 2]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--others", "greedy,nosuchbot", "--total", "6"], "nosuchbot"),
        (["--ruleset", "lives", "--total", "6"], "chips"),
        (["--total", "6", "--games", "10"], "leave --total unset"),
        (["--family", "-1"], "--family must be >= 0"),
        (["--agree", "-2"], "--agree must be >= 0"),
        (["--others", "greedy", "--total", "7", "--agree", "5"], "do not split among 2 players"),
        (["--others", " , "], "at least one bot"),
    ],
)
def test_probe_refuses_bad_input(args: list[str], match: str) -> None:
    with pytest.raises(SystemExit, match=match):
        table_game_probe.main(args)


def test_probe_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert table_probe.main(["--others", "greedy,escape", "--games", "12"]) == 0
    out = capsys.readouterr().out
    assert "3 players" in out and "gain" in out and "12 duplicate games" in out and "table_response" in out
    with pytest.raises(SystemExit, match="chip ruleset"):
        table_probe.main(["--others", "greedy", "--ruleset", "lives"])
    with pytest.raises(SystemExit, match="nope"):
        table_probe.main(["--others", "greedy,nope"])
    with pytest.raises(SystemExit, match="at least one bot"):
        table_probe.main(["--others", ","])
