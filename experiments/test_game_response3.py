"""The 3-player game response to two round-optimal seats (experiments.game_response3, experiments.game_probe3)."""

from __future__ import annotations

import numpy as np
import pytest

import zanzibar_env as zz
from experiments import game_probe3
from experiments.game_response3 import respond3
from tests.cache import isolated_cache  # noqa: F401  (autouse fixture)
from zanzibar_env.core.registry import make_agent


@pytest.fixture(scope="module")
def five() -> tuple[object, object]:
    """Total 5: the smallest where games go on after a round (2-2-1: the 1-chip seat loses a 1-chip round)."""
    rules = zz.load_ruleset("classic")
    return respond3(rules, 5, respond=False), respond3(rules, 5, respond=True)


def test_optimal_values_are_a_distribution_and_the_response_never_loses(five: tuple) -> None:
    ref, br = five
    np.testing.assert_allclose(ref.value.sum(1), 1.0, atol=1e-9)  # someone wins (shares count 1/k)
    assert (br.value >= ref.value - 1e-12).all()
    assert (br.value - ref.value).max() > 1e-3  # playing for the game does gain somewhere


@pytest.mark.parametrize("stacks", [(2, 2, 1), (1, 2, 2)])
def test_win_probabilities_match_a_simulation(five: tuple, stacks: tuple[int, int, int]) -> None:
    """Three `optimal` players from uneven stacks (seat 0 rolls first; games of several rounds, so the
    next states and who rolls first in them count): each seat's exact win probability inside a 99.9%
    interval of 6,000 simulated games."""
    ref, _ = five
    (row,) = [i for i, st in enumerate(ref.game.states.tolist()) if tuple(st) == stacks]
    rules = zz.load_ruleset("classic")
    bots = [make_agent("optimal") for _ in range(3)]
    dice, n = zz.RandomDice(5), 6000
    wins = np.zeros((n, 3))
    for g in range(n):
        rec = zz.play_game(rules, bots, stacks=list(stacks), dice=dice)
        for seat in rec.winners:
            wins[g, seat] = 1 / len(rec.winners)
    half = 3.2905 * wins.std(0, ddof=1) / np.sqrt(n)
    assert (np.abs(wins.mean(0) - ref.value[row]) < half).all(), (wins.mean(0), ref.value[row], half)


def test_probe_command_and_bad_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert game_probe3.main(["--totals", "3"]) == 0
    out = capsys.readouterr().out
    assert "1-1-1" in out and "gain" in out
    with pytest.raises(SystemExit, match="needs chips"):
        game_probe3.main(["--totals", "3", "--ruleset", "lives"])
    with pytest.raises(SystemExit, match="at least 3 chips"):
        game_probe3.main(["--totals", "2"])
