"""The sweep config (``configs/sweep_*.yaml``): a typed dataclass checked like a training config.

Every key is declared once with its default, its limits and a one-line description
(:func:`zanzibar_env.train.config.training._f`, the machinery of
:class:`~zanzibar_env.train.config.training.TrainConfig`),
and is checked the same way: a wrong type, a value out of range or an unknown key is a ``ValueError``
naming the key, the value and what is allowed. Then what depends on several keys: ``base`` must be a
loadable training config that ``set`` applies to; every ``search`` key must be a training key whose
values the distribution can draw (its bounds or choices within the key's own limits, and the config
with them passing the training config's checks); ``metric`` must be a column the trials' ``eval.csv``
will have; ``out_dir`` must not be a file. The file is read with the project's YAML rules
(:mod:`zanzibar_env.core.safe_load`). Nothing here imports Ray.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zanzibar_env.configs import resolve_config
from zanzibar_env.core.safe_load import read_yaml
from zanzibar_env.train.config.checks import bad_value, check_config
from zanzibar_env.train.config.training import FIELDS as TRAIN_FIELDS
from zanzibar_env.train.config.training import TrainConfig, _coerce, _meta, apply, load_config

DISTRIBUTIONS = ("loguniform", "uniform", "randint", "choice")
#: keys a trial sets itself (its run directory and name): not searchable
TRIAL_KEYS = ("runs_dir", "exp_name")
MAX_SAMPLES = 10_000
MAX_CHOICES = 100


def _s(default: Any, help: str, **limits: Any) -> Any:
    """A sweep key: default, description and limits (as :func:`zanzibar_env.train.config.training._f`)."""
    kind = limits.pop("kind", type(default).__name__)
    return field(default=default, metadata=_meta(help, kind=kind, what="sweep key", **limits))


@dataclass
class SweepConfig:
    """Keys of ``configs/sweep_*.yaml`` (``name``, ``base`` and ``search`` are required)."""

    name: str = _s("", "sweep name: its folder and its trials' exp_name", kind="name")
    base: str = _s("", "the training config every trial starts from (a configs/ name or a path)")
    search: dict[str, list[Any]] = field(
        default_factory=dict,
        metadata=_meta("key -> [distribution, args...] (at least one key)", kind="search", what="sweep key"),
    )
    set: dict[str, Any] = field(
        default_factory=dict,
        metadata=_meta("fixed training-config overrides for every trial", kind="mapping", what="sweep key"),
    )
    num_samples: int = _s(8, "trials", lo=1, hi=MAX_SAMPLES)
    metric: str = _s("exploit_mean", "eval.csv column to optimise")
    mode: str = _s("min", "'min' or 'max' the metric", choices=("min", "max"))
    grace_period: int = _s(2, "ASHA: evaluations before a trial can be stopped", lo=1, hi=10**6)
    reduction_factor: int = _s(3, "ASHA: keep 1 in this many at each rung", lo=2, hi=1000)
    cpus_per_trial: int = _s(
        1, "CPUs Ray reserves per trial (torch_threads stays as configured)", lo=1, hi=4096
    )
    max_concurrent: int = _s(0, "trials at once (0: as many as the CPUs allow)", lo=0, hi=MAX_SAMPLES)
    seed: int = _s(0, "seed of the search's draws", lo=0, hi=2**31 - 1)
    out_dir: str = _s("runs/sweeps", "the sweep goes to <out_dir>/<name>/")
    best_config: str | None = _s(
        None, "where the best config is written (null: configs/<name>_best.yaml)", kind="str", optional=True
    )


SWEEP_FIELDS = {f.name: f for f in dataclasses.fields(SweepConfig)}
REQUIRED = ("name", "base", "search")


def load_sweep(path: str | Path, overrides: dict[str, Any] | None = None) -> SweepConfig:
    """The sweep config at ``path`` (with ``overrides``), every key and combination checked;
    ``ValueError`` names what is wrong."""
    values = read_yaml(resolve_config(path, "sweep_"), "sweep config")
    if not isinstance(values, dict):
        got = "empty" if values is None else f"a {type(values).__name__}"
        raise ValueError(f"sweep config {str(path)[:200]!r} must hold a mapping of sweep keys, got {got}")
    values = {**values, **(overrides or {})}
    unknown = sorted(str(k)[:40] for k in values if k not in SWEEP_FIELDS)
    if unknown:
        raise ValueError(f"unknown sweep keys {unknown[:10]}; known: {sorted(SWEEP_FIELDS)}")
    missing = [k for k in REQUIRED if k not in values]
    if missing:
        raise ValueError(
            f"sweep config {str(path)[:200]!r}: missing keys {missing} (required: {list(REQUIRED)})"
        )
    sweep = SweepConfig(**{k: _sweep_value(k, v) for k, v in values.items()})
    check_sweep(sweep)
    return sweep


def _sweep_value(key: str, value: Any) -> Any:
    kind = SWEEP_FIELDS[key].metadata["kind"]
    if kind in ("search", "mapping"):
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise bad_value(key, value, "a mapping of training-config keys", what="sweep key")
        return dict(value)
    return _coerce(key, value, SWEEP_FIELDS)


def base_path(sweep: SweepConfig) -> Path:
    """The base config's file: a path, else a shipped config's name (:func:`~zanzibar_env.configs.resolve_config`)."""
    return resolve_config(sweep.base, "ppo_")


def base_config(sweep: SweepConfig) -> TrainConfig:
    """The base training config with the sweep's fixed overrides (checked)."""
    try:
        cfg = load_config(base_path(sweep))
    except ValueError as e:
        raise ValueError(f"sweep key 'base': {e}") from None
    try:
        return check_config(apply(cfg, dict(sweep.set)))
    except ValueError as e:
        raise ValueError(f"sweep key 'set': {e}") from None


def check_sweep(sweep: SweepConfig) -> None:
    """What depends on several keys or on files (each key alone was checked)."""
    out = Path(sweep.out_dir)
    if out.exists() and not out.is_dir():
        raise bad_value(
            "out_dir", sweep.out_dir, "a directory (or a path to make one), not a file", "sweep key"
        )
    if sweep.best_config is not None and Path(sweep.best_config).is_dir():
        raise bad_value("best_config", sweep.best_config, "a YAML file path, not a directory", "sweep key")
    base = base_config(sweep)
    check_search(sweep.search, base, fixed=set(sweep.set))
    columns = metric_columns(base)
    if sweep.metric not in columns and not sweep.metric.startswith("table_win_"):
        raise bad_value(
            "metric", sweep.metric, f"an eval.csv column of the trials: {sorted(columns)}", "sweep key"
        )


def metric_columns(cfg: TrainConfig) -> set[str]:
    """The ``eval.csv`` columns a run of ``cfg`` writes (``table_win_<opponent>`` columns aside)."""
    cols = {"timesteps", "train_seconds"}
    cols |= {f"{bot}_{s}" for bot in cfg.eval_bots for s in ("mean", "low", "high")}
    if cfg.eval_exact and cfg.num_players == 2:
        cols |= {"value_first_vs_optimal", "value_second_vs_optimal"}
        cols |= {f"exploit_{s}" for s in ("first", "second", "mean")}
    if cfg.eval_game_exact:
        cols |= {f"game_exploit_{s}" for s in ("first", "second", "mean")}
        cols |= {f"game_win_{s}_vs_optimal_game" for s in ("first", "second")}
    if cfg.eval_table_games:
        cols |= {"table_win", "table_win_low", "table_win_high"}
    return cols


def check_search(search: dict[str, Any], base: TrainConfig, fixed: set[str]) -> None:
    """Every ``search`` entry: a searchable training key, a known distribution with valid arguments, and
    values within the key's limits that the training config's checks accept."""
    if not search:
        raise bad_value(
            "search", search, "at least one key to search (a sweep of nothing is no sweep)", "sweep key"
        )
    unknown = sorted(k for k in search if k not in TRAIN_FIELDS)
    if unknown:
        raise ValueError(f"search keys {unknown[:10]} are not train.ppo config keys")
    for key, spec in search.items():
        if key in TRIAL_KEYS or key in fixed:
            why = "each trial sets it" if key in TRIAL_KEYS else "'set' fixes it too"
            raise bad_value("search", key, f"keys other than {key!r} ({why})", "sweep key")
        for value in _values(key, spec):
            try:
                check_config(apply(base, {key: value}))
            except ValueError as e:
                raise ValueError(f"search {key!r}: the value {str(value)[:40]!r} is refused ({e})") from None


def _values(key: str, spec: Any) -> list[Any]:
    """The values of ``spec`` that must be valid for ``key``: a choice's values, a range's bounds."""
    if not isinstance(spec, list) or not spec or spec[0] not in DISTRIBUTIONS:
        raise ValueError(f"search {key!r}: expected [distribution, args...] with one of {DISTRIBUTIONS}")
    kind, *args = spec
    if kind == "choice":
        if len(args) != 1 or not isinstance(args[0], list) or not 1 <= len(args[0]) <= MAX_CHOICES:
            raise ValueError(f"search {key!r}: choice takes one list of 1-{MAX_CHOICES} values")
        return list(args[0])
    want = TRAIN_FIELDS[key].metadata["kind"]
    ints = kind == "randint"
    if (want == "int") != ints or want not in ("int", "float"):
        need = "randint" if want == "int" else "uniform or loguniform" if want == "float" else "choice"
        raise ValueError(f"search {key!r}: a {want} key is searched with {need}, not {kind}")
    nums = len(args) == 2 and all(_finite(a, ints) for a in args)
    if not nums or args[0] >= args[1] or (kind == "loguniform" and args[0] <= 0):
        what = "integers" if ints else "finite, lo > 0" if kind == "loguniform" else "finite"
        raise ValueError(f"search {key!r}: {kind} takes two numbers lo < hi ({what}), got {str(args)[:80]}")
    return [args[0], args[1] - 1 if ints else args[1]]  # randint's hi is exclusive


def _finite(x: Any, ints: bool) -> bool:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    return isinstance(x, int) if ints else math.isfinite(x)
