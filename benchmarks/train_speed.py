"""Training speed: env steps per second of the default PPO setup, beside plain SB3 PPO on CartPole-v1.

Zanzibar runs the default training setup exactly as ``python -m train.ppo`` builds it
(``configs/ppo_classic_2p.yaml``: the batched vector env through :class:`zanzibar_env.envs.sb3.SB3VecEnv`
against ``optimal`` and the exploiter, MaskablePPO with the one-hot features extractor), once more with
plain PPO, and once as its SB3 part alone (the same MaskablePPO on the env's first 64 steps replayed at
almost no cost: the ceiling SB3's own rollout and update loop sets). CartPole-v1 runs SB3's
``make_vec_env`` (a ``DummyVecEnv`` of ``num_envs`` Gymnasium envs) with plain PPO and the same
``n_steps``, ``batch_size``, ``n_epochs``, network and learning rate (its plain 4-float observation
needs no features extractor). One torch thread each, the same fixed
budget of env steps, SB3's overhead (rollout collection, GAE, gradient steps) included in both;
evaluation, TensorBoard and the progress bar are off. Rates are wall-clock steps/s and, because the
machine may be shared, CPU-time steps/s of this process too (each ratio against the CartPole rate of
the same kind).

``--profile`` instead runs the default setup's MaskablePPO once under :mod:`cProfile` (after one
untimed rollout) and prints where its time goes: SB3's update (``train``), rollout collection and,
inside it, the env's step, the policy's forward pass and the exploiter's updates, each in seconds and
as a share of the whole ``learn`` call (profiling slows every Python call, so the shares are what to
read, not the seconds).

Run: ``python -m benchmarks.train_speed [--steps 100000] [--config PATH] [--set key=value ...] [--profile]``
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import pstats
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecEnv

from zanzibar_env.train.config import TrainConfig, load_config
from zanzibar_env.train.ppo import make_env, make_model, seed_everything
from zanzibar_env.train.sb3 import build_opponents


def _ppo_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    act = torch.nn.Tanh if cfg.activation == "tanh" else torch.nn.ReLU
    return {
        "n_steps": cfg.n_steps,
        "batch_size": cfg.batch_size,
        "n_epochs": cfg.n_epochs,
        "gamma": 0.99,
        "learning_rate": cfg.learning_rate,
        "seed": cfg.seed,
        "device": "cpu",
        "verbose": 0,
        "policy_kwargs": {
            "net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)},
            "activation_fn": act,
        },
    }


def _time_learn(model: Any, steps: int) -> tuple[float, float]:
    """Env steps per second of ``model.learn(steps)`` (the rollout rounding included): wall clock and
    CPU time of this process (the latter is less disturbed by other load on a shared machine)."""
    start_steps = model.num_timesteps
    t, c = time.perf_counter(), time.process_time()
    model.learn(steps, progress_bar=False)
    done = model.num_timesteps - start_steps
    return done / (time.perf_counter() - t), done / max(time.process_time() - c, 1e-9)


def zanzibar_speed(cfg: TrainConfig, steps: int, algo: str) -> tuple[float, float]:
    """Env steps/s of the default training setup: :func:`zanzibar_env.train.ppo.make_model` on the training env
    (opponents as configured; exploiters, if any, play ``optimal`` as before their first update)."""
    seed_everything(cfg.seed, cfg.torch_threads)
    run_cfg = dataclasses.replace(cfg, algo=algo, tensorboard=False)
    opp = build_opponents(run_cfg, run_dir=None)
    env = make_env(run_cfg, opp.opponents, opp.groups, opp.second)
    model = make_model(run_cfg, env, Path("."))
    speed = _time_learn(model, steps)
    env.close()
    return speed


class _Replay(VecEnv):
    """The training env's first ``k`` steps (random legal actions), replayed in a loop at almost no
    cost: what SB3 alone (rollouts, masks, the features extractor, updates) allows on this setup."""

    def __init__(self, env: VecEnv, k: int = 64) -> None:
        super().__init__(env.num_envs, env.observation_space, env.action_space)
        rng = np.random.default_rng(0)
        self._first: np.ndarray = env.reset()  # type: ignore[assignment]
        self._steps: list[tuple[Any, ...]] = []
        for _ in range(k):
            masks = env.env_method("action_masks")
            out = env.step(np.argmax(rng.random((env.num_envs, 8)) * np.stack(masks), 1))
            self._steps.append((masks, *out))
        self._t = 0

    def reset(self) -> np.ndarray:
        self._t = 0
        return self._first

    def step_async(self, actions: np.ndarray) -> None:
        pass

    def step_wait(self) -> Any:
        _, obs, rew, done, infos = self._steps[self._t % len(self._steps)]
        self._t += 1
        return obs, rew.copy(), done, infos

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        return list(self._steps[self._t % len(self._steps)][0])  # only "action_masks" is asked for

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [None] * self.num_envs

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        pass

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs

    def close(self) -> None:
        pass


def sb3_only_speed(cfg: TrainConfig, steps: int) -> tuple[float, float]:
    """Env steps/s of :func:`zanzibar_speed`'s MaskablePPO on :class:`_Replay` (the env's cost removed)."""
    seed_everything(cfg.seed, cfg.torch_threads)
    run_cfg = dataclasses.replace(cfg, algo="maskable_ppo", tensorboard=False)
    opp = build_opponents(run_cfg, run_dir=None)
    env = _Replay(make_env(run_cfg, opp.opponents, opp.groups))
    return _time_learn(make_model(run_cfg, env, Path(".")), steps)


def cartpole_speed(cfg: TrainConfig, steps: int) -> tuple[float, float]:
    seed_everything(cfg.seed, cfg.torch_threads)
    env = make_vec_env("CartPole-v1", n_envs=cfg.num_envs, seed=cfg.seed)
    model = PPO("MlpPolicy", env, **_ppo_kwargs(cfg))
    speed = _time_learn(model, steps)
    env.close()
    return speed


#: Rows of ``--profile``: a label and the (file suffix, function name) pairs whose cumulative time it sums.
PROFILE_PARTS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("learn (everything)", (("ppo_mask.py", "learn"),)),
    ("update (MaskablePPO.train)", (("ppo_mask.py", "train"),)),
    ("collecting rollouts", (("ppo_mask.py", "collect_rollouts"),)),
    ("  env step (SB3VecEnv.step_wait)", (("sb3.py", "step_wait"),)),
    ("  policy forward (rollouts)", (("maskable/policies.py", "forward"),)),
    ("exploiter updates (best responses)", (("opponents.py", "update"),)),
)


def profile_parts(cfg: TrainConfig, steps: int) -> dict[str, float]:
    """Seconds of each :data:`PROFILE_PARTS` row in ``steps`` env steps of the default MaskablePPO setup
    (cumulative times from :mod:`cProfile`, after one untimed rollout)."""
    seed_everything(cfg.seed, cfg.torch_threads)
    run_cfg = dataclasses.replace(cfg, algo="maskable_ppo", tensorboard=False)
    opp = build_opponents(run_cfg, run_dir=None)
    env = make_env(run_cfg, opp.opponents, opp.groups, opp.second)
    model = make_model(run_cfg, env, Path("."))
    callback = None
    if opp.exploiter is not None:
        from zanzibar_env.train.sb3 import ExploiterCallback

        callback = ExploiterCallback(run_cfg, opp.exploiter)
    model.learn(cfg.num_envs * cfg.n_steps, progress_bar=False, callback=callback)
    prof = cProfile.Profile()
    prof.enable()
    model.learn(steps, progress_bar=False, reset_num_timesteps=False, callback=callback)
    prof.disable()
    env.close()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    out = {}
    for label, keys in PROFILE_PARTS:
        out[label] = sum(
            entry[3]
            for (path, _, func), entry in stats.items()
            if any(path.replace("\\", "/").endswith(end) and func == name for end, name in keys)
        )
    return out


def print_profile(cfg: TrainConfig, steps: int) -> None:
    """Print :func:`profile_parts` as seconds and shares of the whole ``learn`` call."""
    parts = profile_parts(cfg, steps)
    total = max(parts["learn (everything)"], 1e-9)
    print(f"{'part (cProfile, cumulative)':<44} {'seconds':>9} {'share':>7}")
    for label, sec in parts.items():
        print(f"{label:<44} {sec:>9.2f} {sec / total:>7.1%}")


def main(argv: list[str] | None = None) -> int:
    doc = (__doc__ or "").split("\n\n")[0]
    ap = argparse.ArgumentParser(prog="python -m benchmarks.train_speed", description=doc)
    ap.add_argument("--steps", type=int, default=100_000, help="env steps per measurement")
    ap.add_argument("--config", help="experiment YAML (default: the default training config)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument(
        "--profile", action="store_true", help="profile one training run instead (shares of its time)"
    )
    args = ap.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    print(
        f"config: {cfg.env_id} {cfg.ruleset} {cfg.num_players}p vs {cfg.opponents}; "
        f"num_envs={cfg.num_envs} "
        f"n_steps={cfg.n_steps} batch_size={cfg.batch_size} n_epochs={cfg.n_epochs} net={cfg.net_arch} "
        f"torch_threads={cfg.torch_threads}; {args.steps} env steps each"
    )
    if args.profile:
        print_profile(cfg, args.steps)
        return 0
    z_mask = zanzibar_speed(cfg, args.steps, "maskable_ppo")
    z_plain = zanzibar_speed(cfg, args.steps, "ppo")
    z_sb3 = sb3_only_speed(cfg, args.steps)
    cart = cartpole_speed(cfg, args.steps)
    print(f"{'setup':<44} {'env steps/s':>12} {'ratio':>7} {'cpu steps/s':>12} {'cpu ratio':>10}")
    rows = [
        ("Zanzibar default (MaskablePPO, SB3VecEnv)", z_mask),
        ("Zanzibar default (plain PPO, SB3VecEnv)", z_plain),
        ("its SB3 part alone (MaskablePPO, env replayed)", z_sb3),
        ("CartPole-v1 (plain PPO, DummyVecEnv)", cart),
    ]
    for name, (wall, cpu) in rows:
        print(f"{name:<44} {wall:>12,.0f} {wall / cart[0]:>7.2f} {cpu:>12,.0f} {cpu / cart[1]:>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
