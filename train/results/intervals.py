"""95% intervals for the figures that tournaments, evaluation and seed studies print, all from scipy.stats.

- :func:`win_interval`: a win rate, the Wilson score interval (``scipy.stats.binomtest``). A shared win
  counts ``1/k`` in the rate; the interval then takes its lower bound from the wins rounded down and its
  upper bound from the wins rounded up (a little wider, never narrower).
- :func:`ratio_interval`: ``sum(num) / sum(den)`` (chips per round: chips over rounds, summed over
  deals) with a percentile bootstrap that resamples the entries (deals) as clusters
  (``scipy.stats.bootstrap``, paired).
- :func:`mean_interval`: the mean of independent samples (the returns of evaluation episodes), bootstrap.
- :func:`iqm_interval`: the interquartile mean over seeds (``scipy.stats.trim_mean`` at 25%) with a
  bootstrap interval over the seeds: the across-seed summary that ``rliable`` recommends (one task, so
  its stratified bootstrap is the plain one).

Every bootstrap draws from a generator seeded with :data:`BOOTSTRAP_SEED`, so a figure is the same on
every run over the same data. This module imports neither torch nor SB3.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np

#: The confidence level of every interval.
LEVEL = 0.95
#: Resamples per bootstrap interval.
RESAMPLES = 4000
#: The bootstrap generator's seed (fixed: the same data give the same interval).
BOOTSTRAP_SEED = 0

Interval = tuple[float, float]
_NAN: Interval = (math.nan, math.nan)


def win_interval(wins: float, games: int) -> Interval:
    """Wilson 95% interval of a win rate of ``wins`` in ``games`` (``wins`` may hold shared wins)."""
    from scipy.stats import binomtest

    if games <= 0:
        return _NAN
    k_low, k_high = math.floor(wins + 1e-9), math.ceil(wins - 1e-9)
    low = binomtest(k_low, games).proportion_ci(LEVEL, method="wilson").low
    high = binomtest(k_high, games).proportion_ci(LEVEL, method="wilson").high
    return float(low), float(high)


def _bootstrap(data: tuple[np.ndarray, ...], statistic: Callable[..., np.ndarray]) -> Interval:
    from scipy.stats import bootstrap

    if len(data[0]) < 2:
        return _NAN
    with warnings.catch_warnings():  # all-equal samples: the interval is the point, which is right
        warnings.simplefilter("ignore", RuntimeWarning)
        res = bootstrap(
            data,
            statistic,
            n_resamples=RESAMPLES,
            batch=200,
            vectorized=True,
            paired=len(data) > 1,
            confidence_level=LEVEL,
            method="percentile",
            rng=np.random.default_rng(BOOTSTRAP_SEED),
        )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def ratio_interval(num: Sequence[float] | np.ndarray, den: Sequence[float] | np.ndarray) -> Interval:
    """Bootstrap 95% interval of ``sum(num) / sum(den)``, the pairs ``(num[i], den[i])`` resampled."""
    n, d = np.asarray(num, np.float64), np.asarray(den, np.float64)
    if d.sum() == 0:
        return _NAN
    return _bootstrap((n, d), lambda a, b, axis=-1: a.sum(axis=axis) / b.sum(axis=axis))


def mean_interval(values: Sequence[float] | np.ndarray) -> Interval:
    """Bootstrap 95% interval of the mean of ``values``."""
    return _bootstrap((np.asarray(values, np.float64),), lambda a, axis=-1: a.mean(axis=axis))


def iqm(values: Sequence[float] | np.ndarray) -> float:
    """The interquartile mean (the mean of the middle half; ``scipy.stats.trim_mean`` at 25%)."""
    from scipy.stats import trim_mean

    return float(trim_mean(np.asarray(values, np.float64), 0.25))


def iqm_interval(values: Sequence[float] | np.ndarray) -> Interval:
    """Bootstrap 95% interval of the interquartile mean of ``values`` (one value per seed)."""
    from scipy.stats import trim_mean

    return _bootstrap((np.asarray(values, np.float64),), lambda a, axis=-1: trim_mean(a, 0.25, axis=axis))
