"""PPO on Zanzibar: ``python -m train.ppo [--config PATH] [--set key=value ...] [--resume RUN_DIR]``.

Reads like CleanRL, configures like RL Zoo. The config (``train/config/training.py``; YAML in ``configs/``,
default ``configs/ppo_classic_2p.yaml``) picks the env, opponents and hyper-parameters. The learner is
sb3-contrib ``MaskablePPO`` (``algo: maskable_ppo``, the default: illegal holds are masked out when a
ruleset forbids them) or plain SB3 ``PPO`` (``algo: ppo``), trained on the batched vector env through
:class:`zanzibar_env.envs.sb3.SB3VecEnv`. Each run writes ``runs/<env-id>__<exp-name>__<seed>__<unix-time>/``:

- ``config.yaml``      the resolved config (``--resume`` reads it back)
- ``environment.json`` what the run depended on: versions, CPU, torch's kernels and threads (train/results/repro.py)
- ``model.zip``        the latest policy (saved at every evaluation and on Ctrl-C/SIGTERM: resumable)
- ``best_model.zip``   the policy with the best evaluation score (lowest exploitability in 2-player)
- ``tb/``              TensorBoard logs (``tensorboard --logdir runs``)
- ``eval.csv``         one row per evaluation: steps, training seconds, bot matches, exact figures
- ``learning_curve.png``  the evaluation curve, drawn at the end
- ``pool/``            self-play checkpoints (self-play configs only)
- ``pretrain.json``    the imitation figures (configs with ``pretrain: BOT``; :mod:`zanzibar_env.train.sb3.game_learn`)

Faults: Ctrl-C (SIGINT) or SIGTERM stops training at the next step, saves ``model.zip`` and exits
with 130 / 143 and a one-line message; ``--resume RUN_DIR`` continues it. ``--resume`` takes
``--set`` overrides (e.g. a larger ``total_timesteps``) but refuses keys that would no longer describe
the saved model, its env or ``eval.csv`` (:data:`RESUME_FIXED`) and refuses ``--config``. Every
config error is reported before anything is written. Model files are written atomically.

The same seed and config give the same run, bit for bit (weights and ``eval.csv`` except its
``train_seconds`` column): numpy, torch, the envs and the opponents are all seeded from ``seed``, torch
runs with ``torch_threads`` threads, every schedule (evaluations, exploiter updates) counts env steps,
never seconds, and :func:`main` pins torch's CPU kernels first (:mod:`zanzibar_env.train.results.repro`) so that other
x86-64 machines compute the same floats. ``environment.json`` records what the run depended on. In
2-player settings the run ends by printing the exact exploitability (best-response gain per round) in
each seat.
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.vec_env import VecEnv

from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.preflight import preflight
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.core.safe_io import atomic_write_text, check_writable_dir, disk_error
from zanzibar_env.envs.sb3 import SB3VecEnv, make_sb3_env
from zanzibar_env.train.config import check_config, seat_split
from zanzibar_env.train.config.options import add_config_options, keys_help
from zanzibar_env.train.config.training import (
    DEFAULT_CONFIG,
    TrainConfig,
    apply,
    load_config,
    read_yaml,
    save_config,
)
from zanzibar_env.train.results import pin_cpu_kernels, plot_eval_csv
from zanzibar_env.train.results.runs import EVAL_CSV, check_run_stamp, eval_rows, new_run, record_environment
from zanzibar_env.train.sb3 import (
    EntropyScheduleCallback,
    EvalCallback,
    ExploiterCallback,
    Opponents,
    SelfPlayCallback,
    SignalGuard,
    StopOnSignal,
    WeightAverageCallback,
    ZanzibarFeatures,
    build_opponents,
    lock_run_dir,
    save_model,
)
from zanzibar_env.train.sb3.progress import StepsProgressBar

#: Keys a ``--resume`` may not change: they describe the saved model, its env or ``eval.csv``'s columns.
RESUME_FIXED = (
    "env_id",
    "ruleset",
    "num_players",
    "reward",
    "algo",
    "features",
    "net_arch",
    "activation",
    "eval_bots",
    "eval_exact",
    "eval_game_exact",
    "eval_table_games",
    "exp_name",
    "runs_dir",
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.ppo"),
        description="Train PPO on Zanzibar from a YAML config.",
        epilog=keys_help(TrainConfig, load_config, argv, DEFAULT_CONFIG.stem)
        + "\n\nexit codes: 0 done; 1 a disk error while training (one line naming the path); 2 a bad config "
        "or --resume, or a run directory another process trains in (nothing written); 130 Ctrl-C, 143 "
        "SIGTERM (model.zip saved; --resume continues; a second Ctrl-C stops at once, no checkpoint).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_config_options(ap, "ppo_", DEFAULT_CONFIG.stem)
    ap.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config key (repeatable; the value is parsed as YAML)",
    )
    ap.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its config.yaml and model.zip")
    return ap.parse_args(argv)


def seed_everything(seed: int, threads: int) -> None:
    """Seed Python, numpy and torch from one seed and fix torch's thread count."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)


def make_env(
    cfg: TrainConfig,
    opponents: Any,
    groups: list[Any] | None,
    second: tuple[Any, list[Any] | None] | None = None,
) -> VecEnv:
    """The training env of ``cfg`` (seeded from ``cfg.seed``; ``groups`` as in ``make_sb3_env``): an
    :class:`SB3VecEnv`, inside :class:`zanzibar_env.train.sb3.expected_reward.ExpectedRoundReward`
    under ``expected_reward``.

    With ``second_seat_frac > 0`` the envs are split in two parts in one vector env (a seat per env),
    each part playing every opponent group: the first follows ``cfg.seat``, in the second the learner
    always rolls second (seat 1); each part is seeded as its own vector env (``make_sb3_env``). With
    ``second`` (``(opponents, groups)`` of the second part, see :class:`zanzibar_env.train.sb3.opponents.Opponents`) the
    two parts are two vector envs side by side (vector env ``g`` reset with ``seed + 7919 * g``).
    """
    env = _make_sb3(cfg, opponents, groups, second)
    if not cfg.expected_reward:
        return env
    from zanzibar_env.train.sb3 import ExpectedRoundReward

    return ExpectedRoundReward.for_ruleset(env, cfg.ruleset)


def _make_sb3(
    cfg: TrainConfig, opponents: Any, groups: list[Any] | None, second: tuple[Any, list[Any] | None] | None
) -> SB3VecEnv:
    """The SB3 vector env of :func:`make_env`, before any reward wrapper."""
    follow, n_second = seat_split(cfg)
    common: dict[str, Any] = {
        "ruleset": cfg.ruleset,
        "num_players": cfg.num_players,
        "reward": cfg.reward,
        "max_rounds": cfg.max_rounds,
        "skip_no_decision": cfg.skip_no_decision,
    }
    if second is None or not n_second:
        seat: Any = [cfg.seat] * follow + [1] * n_second if n_second else cfg.seat
        return make_sb3_env(
            cfg.env_id, cfg.num_envs, opponents=opponents, groups=groups, seat=seat, seed=cfg.seed, **common
        )
    parts = [(follow, cfg.seat, opponents, groups), (n_second, 1, *second)]
    envs = [
        make_sb3_env(cfg.env_id, size, opponents=opp, groups=grp, seat=st, seed=cfg.seed, **common)
        for size, st, opp, grp in parts
        if size
    ]
    return envs[0] if len(envs) == 1 else SB3VecEnv([v for e in envs for v in e.venvs])


def make_model(cfg: TrainConfig, env: VecEnv, run_dir: Path) -> Any:
    """A fresh ``MaskablePPO``/``PPO`` with ``cfg``'s hyper-parameters."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    lr: Any = cfg.learning_rate
    if cfg.lr_schedule == "linear":
        lr = _linear(cfg.learning_rate)
    algo = MaskablePPO if cfg.algo == "maskable_ppo" else PPO
    activation = torch.nn.Tanh if cfg.activation == "tanh" else torch.nn.ReLU
    policy_kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)},
        "activation_fn": activation,
    }
    if cfg.features == "onehot":
        rules = load_ruleset(cfg.ruleset)
        policy_kwargs["features_extractor_class"] = ZanzibarFeatures
        policy_kwargs["features_extractor_kwargs"] = {
            "num_ranks": rules.table.num_ranks,
            "max_rolls": rules.max_rolls,
        }
    return algo(
        "MlpPolicy",
        env,
        learning_rate=lr,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(run_dir / "tb") if cfg.tensorboard else None,
        seed=cfg.seed,
        device=cfg.device,
        verbose=0,
    )


def _linear(start: float) -> Any:
    def schedule(progress_remaining: float) -> float:
        return start * progress_remaining

    return schedule


def resume_config(run_dir: Path, overrides: list[str]) -> TrainConfig:
    """The saved config of ``run_dir`` with ``--set`` overrides (e.g. a larger ``total_timesteps``).

    ``ValueError`` if ``run_dir`` is not a run, its model does not load, or an override changes a key
    of :data:`RESUME_FIXED`. Nothing is written here: :func:`train` rewrites ``config.yaml`` only once
    the saved weights have loaded into a model built from this config (same ``net_arch``, ``features``).
    """
    from zanzibar_env.agents.sb3_model import load_sb3
    from zanzibar_env.train.config import parse_override

    if not (run_dir / "config.yaml").is_file() or not (run_dir / "model.zip").is_file():
        raise ValueError(f"--resume {str(run_dir)!r}: expected config.yaml and model.zip in a run directory")
    saved = check_config(apply(TrainConfig(), read_yaml(run_dir / "config.yaml")))
    cfg = check_config(apply(saved, dict(parse_override(o) for o in overrides)))
    changed = [k for k in RESUME_FIXED if getattr(cfg, k) != getattr(saved, k)]
    if changed:
        raise ValueError(f"--resume cannot change {changed}: they describe the saved model, env or eval.csv")
    load_sb3(run_dir / "model.zip")  # refuse a damaged checkpoint before anything changes
    eval_rows(run_dir)  # and a damaged evaluation history
    return cfg


def train(
    cfg: TrainConfig,
    run_dir: Path,
    resume: bool = False,
    guard: SignalGuard | None = None,
    extra_callbacks: tuple[Any, ...] = (),
) -> Any:
    """Train (or continue training) in ``run_dir``; returns the model and the eval callback.

    ``extra_callbacks`` (SB3 callbacks) run after the built-in ones (a sweep reports through one).

    A resumed model is rebuilt from the config and given the saved weights and optimizer state
    (``set_parameters`` reads only tensors, never pickles) and its step count.
    """
    guard = guard or SignalGuard()
    seed_everything(cfg.seed, cfg.torch_threads)
    opp = build_opponents(cfg, run_dir)
    env = make_env(cfg, opp.opponents, opp.groups, opp.second)
    model = make_model(cfg, env, run_dir)
    if resume:
        _restore(model, cfg, run_dir)  # ValueError before anything in run_dir is written
        save_config(cfg, run_dir / "config.yaml")  # with the --set overrides (same content if none)
    record_environment(run_dir, resume)
    if not resume and cfg.pretrain is not None:
        _pretrain(model, cfg, run_dir)
    evaluator, callbacks = _callbacks(cfg, run_dir, resume, guard, opp, extra_callbacks)
    remaining = cfg.total_timesteps - model.num_timesteps
    if remaining > 0 and not guard.caught:
        bar = [StepsProgressBar(remaining)] if cfg.progress_bar else []  # steps of whole rollouts
        model.learn(
            remaining,
            callback=[*callbacks, *bar],
            progress_bar=False,
            tb_log_name="ppo",
            reset_num_timesteps=not resume,
        )
    save_model(model, run_dir / "model.zip")
    env.close()
    return model, evaluator


def _restore(model: Any, cfg: TrainConfig, run_dir: Path) -> None:
    """Give a rebuilt model the saved weights, optimizer state and step count of ``run_dir``."""
    from zanzibar_env.agents.sb3_model import load_sb3

    try:
        model.set_parameters(str(run_dir / "model.zip"), exact_match=True, device=cfg.device)
    except (RuntimeError, ValueError, KeyError) as e:  # torch's "size mismatch", a missing tensor
        first = str(e).strip().splitlines()
        reason = " ".join(line.strip() for line in first[:2])[:300] if first else type(e).__name__
        raise ValueError(
            f"--resume {str(run_dir)!r}: model.zip does not fit the model its config.yaml describes "
            f"(net_arch {list(cfg.net_arch)}, features {cfg.features!r}): {reason}; nothing was changed"
        ) from None
    model.num_timesteps = load_sb3(run_dir / "model.zip").num_timesteps


def _pretrain(model: Any, cfg: TrainConfig, run_dir: Path) -> None:
    """Imitate ``cfg.pretrain`` before PPO (:mod:`zanzibar_env.train.sb3.game_learn`); figures to ``pretrain.json``."""
    from zanzibar_env.train.sb3 import pretrain

    figures = pretrain(model, cfg)
    atomic_write_text(run_dir / "pretrain.json", json.dumps({"teacher": cfg.pretrain, **figures}, indent=2))
    print(f"imitated {cfg.pretrain}: accuracy {figures['accuracy']:.4f} in {figures['seconds']} s")


def _callbacks(
    cfg: TrainConfig,
    run_dir: Path,
    resume: bool,
    guard: SignalGuard,
    opp: Opponents,
    extra: tuple[Any, ...],
) -> tuple[EvalCallback, list[Any]]:
    """The evaluator and every SB3 callback of a run, in the order they run."""
    rows = eval_rows(run_dir) if resume else []
    wall = rows[-1]["train_seconds"] if rows else 0.0  # training seconds of the earlier sessions
    evaluator = EvalCallback(cfg, run_dir, wall_offset=wall, guard=guard)
    callbacks: list[Any] = [StopOnSignal(guard)]
    if cfg.average_from > 0:  # before the evaluator: the run's last evaluation scores the average
        callbacks.append(WeightAverageCallback(cfg, guard))
    callbacks += [evaluator, *extra]
    if opp.pool is not None:
        callbacks.append(SelfPlayCallback(cfg, run_dir, opp.pool))
    if opp.exploiter is not None:
        callbacks.append(ExploiterCallback(cfg, opp.exploiter))
    if cfg.ent_schedule == "linear":
        callbacks.append(EntropyScheduleCallback(cfg))
    return evaluator, callbacks


def report(cfg: TrainConfig, run_dir: Path, evaluator: EvalCallback) -> None:
    """Print where the run is and its last evaluation (exact exploitability per seat in 2-player)."""
    last = evaluator.rows[-1] if evaluator.rows else {}
    print(f"run directory: {run_dir}")
    print(
        f"trained {int(last.get('timesteps', 0))} steps in {last.get('train_seconds', 0.0):.1f} s "
        f"(evaluation time excluded)"
    )
    for key, value in last.items():
        if key.endswith("_mean") and "exploit" not in key:
            bot = key[: -len("_mean")]
            low, high = last.get(bot + "_low", float("nan")), last.get(bot + "_high", float("nan"))
            print(f"  vs {bot:<10} mean return {value:+.4f} [{low:+.4f}, {high:+.4f}]")
    if "exploit_mean" in last:
        print("exact regret against the best response (chips per round):")
        print(f"  seat 0 (rolls first):  {last['exploit_first']:.5f}")
        print(f"  seat 1 (rolls second): {last['exploit_second']:.5f}")
        print(f"  mean over seats:       {last['exploit_mean']:.5f}")
    if "game_exploit_mean" in last:
        print("exact game exploitability (win probability a best response gains):")
        print(f"  seat 0 (rolls first):  {last['game_exploit_first']:.6f}")
        print(f"  seat 1 (rolls second): {last['game_exploit_second']:.6f}")
        print(f"  mean over seats:       {last['game_exploit_mean']:.6f}")


def _start(args: argparse.Namespace, argv: list[str] | None) -> tuple[TrainConfig, Path]:
    """The config and run directory: a checked ``--resume`` (nothing written) or a new run."""
    if not args.resume:
        cfg = load_config(args.config, args.overrides)
        check_writable_dir(cfg.runs_dir, what="runs_dir")
        return cfg, new_run(cfg, list(sys.argv[1:] if argv is None else argv))
    if args.config:
        raise ValueError("--config cannot be used with --resume (the run keeps its config; use --set)")
    run_dir = Path(args.resume)
    cfg = resume_config(run_dir, args.overrides)
    note = check_run_stamp(run_dir, cfg)
    if note:
        print(note, file=sys.stderr)
    check_writable_dir(run_dir, what="--resume")
    return cfg, run_dir


def main(argv: list[str] | None = None) -> int:
    """``python -m train.ppo``; exit 0, 1 (a disk error while training), 2 (bad config or --resume), 130/143."""
    pin_cpu_kernels()  # torch's CPU kernels, as every command's (zanzibar_env.train.results.repro)
    args = parse_args(argv)
    guard = SignalGuard()
    with guard:
        try:
            preflight("train")  # its extras, before the config is read or a run directory made
            cfg, run_dir = _start(args, argv)
        except (ValueError, OSError) as e:  # OSError: e.g. a file name too long for the file system
            print(
                f"error: {disk_error(e, getattr(e, 'filename', '') or '') if isinstance(e, OSError) else e}",
                file=sys.stderr,
            )
            return 2
        try:
            with lock_run_dir(run_dir):
                return _run(cfg, run_dir, bool(args.resume), guard)
        except ValueError as e:  # another process trains there, or the model does not fit the config
            print(f"error: {e}", file=sys.stderr)
            return 2
        except OSError as e:  # a full or read-only disk while training
            print(f"error: {disk_error(e, getattr(e, 'filename', None) or run_dir)}", file=sys.stderr)
            return 1


def _run(cfg: TrainConfig, run_dir: Path, resume: bool, guard: SignalGuard) -> int:
    print(
        f"training {cfg.algo} on {cfg.env_id} ({cfg.ruleset}, {cfg.num_players} players) vs "
        f"{cfg.opponents}{' + self-play pool' if cfg.self_play else ''} for {cfg.total_timesteps} steps"
        + ("; rounds pay their expected result (expected_reward)" if cfg.expected_reward else "")
    )
    model, evaluator = train(cfg, run_dir, resume=resume, guard=guard)
    if guard.caught:
        print(
            f"interrupted by {guard.name} at step {model.num_timesteps}: checkpoint saved to "
            f"{run_dir / 'model.zip'}; continue with: {command_prog('zanzibar_env.train.ppo')} --resume {run_dir}",
            file=sys.stderr,
        )
        return guard.exit_code
    plot_eval_csv(run_dir / EVAL_CSV, run_dir / "learning_curve.png", title=run_dir.name)
    report(cfg, run_dir, evaluator)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main, "train"))
