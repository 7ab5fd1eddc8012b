"""Hyper-parameter sweeps on Ray Tune: ``python -m train.sweep --config configs/sweep_ppo_classic_2p.yaml``.

The sweep YAML names a ``zanzibar_env.train.ppo`` config (``base``), fixed overrides for every trial (``set``) and the
search space (``search``: ``key: [loguniform, lo, hi]``, ``[uniform, lo, hi]``, ``[randint, lo, hi]`` or
``[choice, [a, b, ...]]``), drawn ``num_samples`` times by Tune's random search (seeded by ``seed``).
Each trial is an ordinary ``zanzibar_env.train.ppo`` run (:func:`zanzibar_env.train.ppo.train`): its own run directory
``<out_dir>/<name>/runs/<env-id>__<name>_<trial>__<seed>__<unix-time>/`` with ``config.yaml``,
``model.zip``, ``eval.csv``, ... and after every evaluation it reports that ``eval.csv`` row to Tune.
The metric (default ``exploit_mean``, the exact exploitability averaged over seats; minimised) drives
ASHA (``ray.tune.schedulers.ASHAScheduler``, time in evaluations), which stops weak trials early.

At the end: ``<out_dir>/<name>/trials.csv`` (one row per trial: settings, evaluations, best and last
metric, seconds, run directory) and the best trial's resolved config written as a ready ``zanzibar_env.train.ppo``
config (``best_config``, default ``configs/<name>_best.yaml``): ``python -m train.ppo --config`` it.

Interrupted (Ctrl-C, a lost node)? Tune saves its experiment state in ``<out_dir>/<name>/tune/`` (after
Ctrl-C the sweep still writes ``trials.csv`` and the best config so far); ``--resume`` continues it:
finished trials stay finished, unfinished ones continue from their last evaluation through
``zanzibar_env.train.ppo``'s own resume (each report carries a checkpoint naming the run directory, whose
``model.zip`` is saved at every evaluation); a trial stopped before its first report starts again in a
new run directory. If trials fail, the sweep exits with 1, writes no best config, and ``--resume``
runs them again. ``--address`` joins a Ray cluster (the
run directories must then be on a file system every node sees); without it a local Ray starts.
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import csv
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from stable_baselines3.common.callbacks import BaseCallback

from zanzibar_env.configs import CONFIG_DIR
from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.preflight import preflight
from zanzibar_env.core.safe_io import atomic_write_text, check_output, check_writable_dir, disk_error
from zanzibar_env.core.safe_load import read_yaml
from zanzibar_env.extras import requires_extra
from zanzibar_env.train.config import TrainConfig, apply, check_config, positive_int
from zanzibar_env.train.config.options import add_config_options
from zanzibar_env.train.config.sweep import DISTRIBUTIONS, SweepConfig, base_config, load_sweep
from zanzibar_env.train.config.sweep import base_path as _base_path
from zanzibar_env.train.results import eval_rows, pin_cpu_kernels
from zanzibar_env.train.tournament.ray_backend import ray_session

__all__ = [
    "DISTRIBUTIONS",
    "SweepConfig",
    "base_config",
    "load_sweep",
    "main",
    "search_space",
    "trial_config",
]

#: keys a best config takes from the base config rather than from the trial (where and how it runs)
PRESENTATION = ("runs_dir", "exp_name", "progress_bar", "tensorboard")


def _tune() -> Any:
    """``ray.tune``, or :class:`~zanzibar_env.extras.MissingExtraError` naming the ``pip install``."""
    with requires_extra("ray", "sweeps"):
        from ray import tune
        from ray.tune.schedulers import ASHAScheduler  # noqa: F401  (loads tune.schedulers)
        from ray.tune.search.basic_variant import BasicVariantGenerator  # noqa: F401  (loads tune.search)
    return tune


def search_space(search: dict[str, list[Any]]) -> dict[str, Any]:
    """Tune's search space from the YAML form (checked by :func:`load_sweep`)."""
    tune = _tune()
    space = {}
    for key, (kind, *args) in search.items():
        space[key] = tune.choice(args[0]) if kind == "choice" else getattr(tune, kind)(*args)
    return space


def trial_config(sweep: SweepConfig, params: dict[str, Any], sweep_dir: Path, trial: str) -> TrainConfig:
    """A trial's zanzibar_env.train.ppo config: base, fixed overrides, the drawn values, its runs_dir and exp_name."""
    values = {**params, "runs_dir": str(sweep_dir / "runs"), "exp_name": f"{sweep.name}_{trial}"}
    return check_config(apply(base_config(sweep), values))


class TuneReport(BaseCallback):
    """Reports every new ``eval.csv`` row of a run to Tune, with a checkpoint naming the run directory."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(0)
        self.run_dir = run_dir
        self.reported = len(self._rows())

    def _rows(self) -> list[dict[str, float]]:
        return eval_rows(self.run_dir)

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.flush()

    def _on_training_end(self) -> None:
        self.flush()

    def flush(self) -> None:
        tune = _tune()
        rows = self._rows()
        for i in range(self.reported, len(rows)):
            with tempfile.TemporaryDirectory() as d:
                (Path(d) / "trial.json").write_text(json.dumps({"run_dir": str(self.run_dir)}))
                metrics = {**rows[i], "evaluation": i + 1, "run_dir": str(self.run_dir)}
                tune.report(metrics, checkpoint=tune.Checkpoint.from_directory(d))
        self.reported = len(rows)


def run_trial(params: dict[str, Any], sweep: SweepConfig, sweep_dir: Path) -> None:
    """One trial (in a Ray worker): a new zanzibar_env.train.ppo run, or the trial's run resumed from its checkpoint."""
    from zanzibar_env.train.ppo import resume_config, train
    from zanzibar_env.train.results import new_run

    tune = _tune()
    checkpoint = tune.get_checkpoint()
    if checkpoint is not None:
        with checkpoint.as_directory() as d:
            run_dir = Path(json.loads((Path(d) / "trial.json").read_text())["run_dir"])
        cfg, resume = resume_config(run_dir, []), True
    else:
        trial = tune.get_context().get_trial_id()
        cfg, resume = trial_config(sweep, params, sweep_dir, trial), False
        run_dir = new_run(cfg, ["--config", str(_base_path(sweep))])
    train(cfg, run_dir, resume=resume, extra_callbacks=(TuneReport(run_dir),))


def _tuner(sweep: SweepConfig, sweep_dir: Path, resume: bool) -> Any:
    tune = _tune()
    trainable = tune.with_resources(
        tune.with_parameters(run_trial, sweep=sweep, sweep_dir=sweep_dir), {"cpu": sweep.cpus_per_trial}
    )
    if resume:
        return tune.Tuner.restore(
            str(sweep_dir / "tune"), trainable, resume_unfinished=True, resume_errored=True
        )
    base = base_config(sweep)
    evaluations = 1 + max(1, int(base.total_timesteps // base.eval_freq))  # one at step 0
    scheduler = tune.schedulers.ASHAScheduler(
        time_attr="evaluation",
        max_t=evaluations,
        grace_period=min(sweep.grace_period, evaluations),
        reduction_factor=sweep.reduction_factor,
    )
    searcher = tune.search.BasicVariantGenerator(random_state=sweep.seed, max_concurrent=sweep.max_concurrent)
    return tune.Tuner(
        trainable,
        param_space=search_space(sweep.search),
        tune_config=tune.TuneConfig(
            metric=sweep.metric,
            mode=sweep.mode,
            num_samples=sweep.num_samples,
            scheduler=scheduler,
            search_alg=searcher,
        ),
        run_config=tune.RunConfig(
            name="tune",
            storage_path=str(sweep_dir),
            checkpoint_config=tune.CheckpointConfig(num_to_keep=1),
            verbose=1,
        ),
    )


def summarise(sweep: SweepConfig, grid: Any, sweep_dir: Path) -> dict[str, Any]:
    """Write ``trials.csv``; returns the best trial's row (best metric over its evaluations)."""
    rows = []
    for result in grid:
        df = result.metrics_dataframe
        if df is None or sweep.metric not in df or df.empty:
            continue
        series = df[sweep.metric]
        best = series.min() if sweep.mode == "min" else series.max()
        params = {k: result.config.get(k) for k in sweep.search}
        rows.append(
            {
                **params,
                "evaluations": len(df),
                f"best_{sweep.metric}": float(best),
                f"last_{sweep.metric}": float(series.iloc[-1]),
                "time_total_s": float(df["time_total_s"].iloc[-1]),
                "run_dir": str(df["run_dir"].iloc[-1]),
            }
        )
    if not rows:
        raise RuntimeError(f"no trial reported {sweep.metric!r}: see {sweep_dir / 'tune'}")
    text = io.StringIO()
    w = csv.DictWriter(text, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    atomic_write_text(sweep_dir / "trials.csv", text.getvalue())
    key = f"best_{sweep.metric}"
    return (min if sweep.mode == "min" else max)(rows, key=lambda r: r[key])


def write_best(sweep: SweepConfig, best: dict[str, Any], path: Path, command: str) -> None:
    """The best trial's resolved config as a ready zanzibar_env.train.ppo config file, with where it came from."""
    cfg = read_yaml(Path(best["run_dir"]) / "config.yaml", "trial config")
    base = base_config(sweep).to_dict()
    cfg.update({k: base[k] for k in PRESENTATION})
    cfg["exp_name"] = f"{sweep.name}_best"
    value = best[f"best_{sweep.metric}"]
    head = (
        f"{_best_header(sweep.name)} ({command}):\n"
        f"# {sweep.metric} = {value:.6g} ({sweep.mode}imised over {best['evaluations']} evaluations),\n"
        f"# run {best['run_dir']}\n"
        f"# Searched: {', '.join(f'{k} = {best[k]!r}' for k in sweep.search)}\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, head + yaml.safe_dump(cfg, sort_keys=False))


def _best_header(name: str) -> str:
    return f"# Best trial of the sweep {name!r}"


def check_best_config(path: Path, name: str, force: bool) -> Path:
    """``path`` if the best config may be written there (before the sweep starts; ``ValueError`` if not):
    a new file, one an earlier run of this sweep wrote (its first line says so), or any file with
    ``force``."""
    check_output(path, force=True, what="best_config")
    if path.exists() and not force:
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                first = fh.readline()
        except OSError as e:
            raise disk_error(e, path, "cannot read best_config") from None
        if not first.startswith(_best_header(name)):
            raise ValueError(
                f"best_config {str(path)!r} exists and was not written by the sweep {name!r} "
                "(use --force to overwrite it, or --best-config to write elsewhere)"
            )
    return path


EPILOG = """\
exit codes: 0 every trial finished, trials.csv and the best config written; 1 some trials failed (no
best config written), or a disk error while writing the results (one line naming the path); 2 bad
sweep file or options, an unwritable out_dir or best_config, or a best_config this sweep did not write
(without --force), all checked before Ray starts; 130 Ctrl-C outside Tune (start-up, writing). Ctrl-C
while trials run is Tune's: it stops the trials, keeps their state in <out_dir>/<name>/tune/ and the
sweep writes trials.csv and the best config so far (--resume continues it).
"""


def main(argv: list[str] | None = None) -> int:
    pin_cpu_kernels()  # torch's CPU kernels, as every command's (zanzibar_env.train.results.repro)
    p = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.sweep"),
        description=__doc__.splitlines()[0],
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_config_options(p, "sweep_", None)
    p.add_argument("--resume", action="store_true", help="continue an interrupted sweep")
    p.add_argument("--address", default=None, help="Ray cluster to join (default: start a local Ray)")
    p.add_argument(
        "--cpus", type=positive_int, default=None, help="CPUs of the local Ray, >= 1 (default: all)"
    )
    p.add_argument("--out-dir", default=None, help="override the sweep's out_dir")
    p.add_argument("--best-config", default=None, help="override where the best config is written")
    p.add_argument(
        "--force", action="store_true", help="overwrite a best_config file that this sweep did not write"
    )
    args = p.parse_args(argv)
    overrides = {k: v for k, v in (("out_dir", args.out_dir), ("best_config", args.best_config)) if v}
    try:
        preflight("sweep")
        sweep = load_sweep(args.config, overrides)
        sweep_dir = (Path(sweep.out_dir) / sweep.name).resolve()
        started = (sweep_dir / "tune").exists()
        if started and not args.resume:
            raise ValueError(f"{sweep_dir} holds a sweep already: --resume it, or choose another out_dir")
        if args.resume and not started:
            raise ValueError(f"--resume: no sweep to resume in {sweep_dir}")
        check_writable_dir(sweep_dir, what="out_dir")
        path = check_best_config(
            Path(sweep.best_config or CONFIG_DIR / f"{sweep.name}_best.yaml"), sweep.name, args.force
        )
        sweep_dir.mkdir(parents=True, exist_ok=True)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with ray_session(args.address, args.cpus):
        grid = _tuner(sweep, sweep_dir, args.resume).fit()
    try:
        return _finish(sweep, grid, sweep_dir, path, args.config)
    except OSError as e:
        print(f"error: {disk_error(e, getattr(e, 'filename', None) or sweep_dir)}", file=sys.stderr)
        return 1


def _finish(sweep: SweepConfig, grid: Any, sweep_dir: Path, path: Path, config: str) -> int:
    """``trials.csv`` and, when every trial finished, the best config; the exit code."""
    best = summarise(sweep, grid, sweep_dir)
    if grid.num_terminated < sweep.num_samples:  # errored trials (Tune marks Ctrl-C'd ones terminated)
        print(
            f"{sweep.num_samples - grid.num_terminated} of {sweep.num_samples} trials did not finish "
            f"({grid.num_errors} errors); no best config written. Run them again with: "
            f"{command_prog('zanzibar_env.train.sweep')} --config {config} --resume",
            file=sys.stderr,
        )
        return 1
    write_best(sweep, best, path, f"{command_prog('zanzibar_env.train.sweep')} --config {config}")
    print(f"trials: {sweep_dir / 'trials.csv'}")
    print(f"best {sweep.metric}: {best[f'best_{sweep.metric}']:.6g} ({best['run_dir']})")
    print(f"best config: {path} ({command_prog('zanzibar_env.train.ppo')} --config {path})")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main, "sweep"))
