"""The 95% intervals of tournaments, evaluation and seed studies (zanzibar_env.train.results.intervals)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from zanzibar_env.train import seeds
from zanzibar_env.train.results.intervals import (
    iqm,
    iqm_interval,
    mean_interval,
    ratio_interval,
    win_interval,
)


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The textbook Wilson score interval (an oracle written apart from the library)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(0, 300), (1, 10), (150, 300), (300, 300), (2460, 10000)])
def test_win_interval_is_wilson(k: int, n: int) -> None:
    assert win_interval(k, n) == pytest.approx(_wilson(k, n), abs=1e-12)


def test_shared_wins_widen_the_interval_never_narrow_it() -> None:
    low, high = win_interval(10.5, 100)
    assert low == pytest.approx(_wilson(10, 100)[0]) and high == pytest.approx(_wilson(11, 100)[1])
    assert all(math.isnan(x) for x in win_interval(0, 0))


def test_bootstrap_mean_interval_is_near_the_normal_one_for_many_samples() -> None:
    x = np.random.default_rng(0).normal(1.0, 2.0, size=2000)
    low, high = mean_interval(x)
    half = 1.959964 * x.std(ddof=1) / np.sqrt(len(x))
    assert low == pytest.approx(x.mean() - half, abs=0.2 * half)
    assert high == pytest.approx(x.mean() + half, abs=0.2 * half)
    assert mean_interval(x) == (low, high)  # seeded: the same data give the same interval


def test_ratio_interval_resamples_pairs() -> None:
    rng = np.random.default_rng(1)
    rounds = rng.integers(5, 30, size=500).astype(float)
    chips = rng.normal(0.2, 1.0, size=500) * rounds
    low, high = ratio_interval(chips, rounds)
    assert low < chips.sum() / rounds.sum() < high
    assert ratio_interval(np.zeros(5), np.full(5, 3.0)) == (0.0, 0.0)  # no spread, no width
    assert all(math.isnan(v) for v in ratio_interval([1.0], [2.0]))


def test_iqm_and_its_interval_over_seeds() -> None:
    assert iqm([1, 2, 3, 4, 5, 6, 7, 100]) == pytest.approx(4.5)  # the middle half: 3, 4, 5, 6
    low, high = iqm_interval([0.0013, 0.0011, 0.0016, 0.0019, 0.0018])
    assert 0.0011 <= low <= iqm([0.0013, 0.0011, 0.0016, 0.0019, 0.0018]) <= high <= 0.0019


def test_seeds_table_prints_the_iqm_with_its_interval() -> None:
    rows = [
        {"seed": s, "exploit_first": f, "exploit_second": 2 * f, "exploit_mean": 1.5 * f}
        for s, f in enumerate([0.001, 0.002, 0.003, 0.004])
    ]
    summary = seeds.summarise(rows)
    assert summary["exploit_first"]["iqm"] == pytest.approx(0.0025)
    text = seeds.table(rows, summary)
    assert "| 4 seeds | IQM [95% CI] | mean | min | max |" in text
    assert "| regret, rolls first | 0.00250 [" in text
