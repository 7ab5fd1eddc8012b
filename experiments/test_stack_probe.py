"""The 4-player stack probe: its variants are `optimal` wherever their rule does not apply."""

from __future__ import annotations

import pytest

from experiments import stack_probe


def test_a_variant_that_never_applies_is_optimal_exactly() -> None:
    # own stack <= 0 never happens while a game runs: a duplicate tournament of four identical players
    ((name, summary),) = stack_probe.probe(["flat<=0"], games=80, seed=2, jobs=1)
    assert name == "flat<=0"
    assert [rate for _, rate, _, _ in summary] == [0.25] * 4


def test_flat_payments_change_play() -> None:
    ((_, summary),) = stack_probe.probe(["flat"], games=80, seed=2, jobs=1)
    assert [rate for _, rate, _, _ in summary] != [0.25] * 4
    assert sum(rate for _, rate, _, _ in summary) == pytest.approx(1.0)


def test_command_prints_each_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert stack_probe.main(["--games", "40", "--variants", "guard<=2", "capped<=3"]) == 0
    out = capsys.readouterr().out
    assert "guard<=2" in out and "capped<=3" in out and "40 duplicate games" in out


@pytest.mark.parametrize(
    ("variant", "words"),
    [
        ("nope<=3", "unknown rule 'nope'"),
        ("flat<=x", "whole number"),
        ("flat<=", "whole number"),
        ("guard", "needs a chip limit"),
    ],
)
def test_bad_variant_is_a_clear_error(variant: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        stack_probe.main(["--games", "4", "--variants", "flat", variant])
    assert e.value.code == 2
    assert words in capsys.readouterr().err


def test_no_batched_play_that_would_ignore_the_rule() -> None:
    with pytest.raises(NotImplementedError, match="one view at a time"):
        stack_probe.parse_variant("flat<=2").act_batch(None)  # type: ignore[arg-type]
