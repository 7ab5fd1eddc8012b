"""SB3 callbacks used by :mod:`zanzibar_env.train.ppo`: periodic evaluation (CSV, TensorBoard, best model, checkpoint),
the entropy schedule, exploiter updates and self-play checkpoints (the opponents themselves live in
:mod:`zanzibar_env.train.sb3.opponents`).
"""

from __future__ import annotations

import time
from pathlib import Path

import torch
from stable_baselines3.common.callbacks import BaseCallback

from zanzibar_env.train.config import TrainConfig
from zanzibar_env.train.evaluate import evaluate_model
from zanzibar_env.train.results import EVAL_CSV, read_eval_csv, write_eval_csv
from zanzibar_env.train.sb3.faults import SignalGuard, save_model
from zanzibar_env.train.sb3.opponents import ExploiterAgent, SelfPlayPool


class EvalCallback(BaseCallback):
    """Evaluate every ``cfg.eval_freq`` env steps and at the end of training.

    Each evaluation appends a row to ``eval.csv`` (timesteps, training wall time in seconds, then the
    figures of :func:`zanzibar_env.train.evaluate.evaluate_model`), logs them to TensorBoard under ``eval/``, saves
    ``model.zip`` (a resumable checkpoint) and, when the score improves, ``best_model.zip``. The score
    is minus the mean exploitability when exact figures exist (the game's, with ``eval_game_exact``),
    else the win rate at the training table (``eval_table_games``), else the mean return over the bots.
    Bot-match seeds depend only on ``cfg.seed`` and the evaluation index, so the curve is reproducible.
    """

    def __init__(
        self,
        cfg: TrainConfig,
        run_dir: Path,
        wall_offset: float = 0.0,
        verbose: int = 0,
        guard: SignalGuard | None = None,
    ) -> None:
        super().__init__(verbose)
        self.guard = guard or SignalGuard()
        self.cfg = cfg
        self.run_dir = run_dir
        self.csv_path = run_dir / EVAL_CSV
        self.wall_offset = wall_offset  # training seconds of earlier sessions (for --resume)
        self.next_eval = 0
        self.best = -float("inf")
        self.rows: list[dict[str, float]] = []
        self._t0 = 0.0
        self._eval_seconds = 0.0
        self._weights_at_eval: tuple[int, tuple[float, ...]] | None = None

    def _on_training_start(self) -> None:
        self._t0 = time.perf_counter()
        if self.csv_path.is_file():  # resumed run: keep history and best score
            self.rows = read_eval_csv(self.csv_path)
            self.best = max((self._score(r) for r in self.rows), default=-float("inf"))
        freq = self.cfg.eval_freq
        self.next_eval = (self.num_timesteps // freq + 1) * freq if freq else 1 << 62
        if not self.rows and not self.guard.caught:
            self._evaluate()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval and not self.guard.caught:
            self._evaluate()
            self.next_eval += self.cfg.eval_freq
        return True

    def _on_training_end(self) -> None:
        if self.guard.caught:  # interrupted: zanzibar_env.train.ppo saves the checkpoint and exits at once
            return
        if not self.rows or self.rows[-1]["timesteps"] != self.num_timesteps:
            self._evaluate()
        elif self._stale():  # taken during the final rollout, before its update (or the averaging)
            self.rows.pop()
            self._evaluate()

    def _stale(self) -> bool:
        """Whether the weights changed since the last evaluation (an update, or the averaging)."""
        return self._weights_at_eval != self._weights_now()

    def _weights_now(self) -> tuple[int, tuple[float, ...]]:
        sums = tuple(float(p.detach().double().sum()) for p in self.model.policy.parameters())
        return int(getattr(self.model, "_n_updates", 0)), sums

    def train_seconds(self) -> float:
        """Wall-clock seconds spent training (evaluation time excluded), across resumed sessions."""
        return self.wall_offset + time.perf_counter() - self._t0 - self._eval_seconds

    def _score(self, row: dict[str, float]) -> float:
        if "game_exploit_mean" in row:
            return -row["game_exploit_mean"]
        if "exploit_mean" in row:
            return -row["exploit_mean"]
        if "table_win" in row:
            return row["table_win"]
        means = [v for k, v in row.items() if k.endswith("_mean")]
        return sum(means) / len(means) if means else 0.0

    def _evaluate(self) -> None:
        t = time.perf_counter()
        trained = self.train_seconds()  # before this evaluation's own time
        self._weights_at_eval = self._weights_now()
        k = len(self.rows)
        figures = evaluate_model(
            self.model,
            self.cfg,
            self.cfg.eval_games,
            self.cfg.seed * 7919 + 17 * k,
            exact=self.cfg.eval_exact,
        )
        row = {
            "timesteps": float(self.num_timesteps),
            "train_seconds": round(trained, 3),
            **figures,
        }
        self.rows.append(row)
        write_eval_csv(self.csv_path, self.rows)  # every row, atomically
        for key, value in figures.items():
            self.logger.record(f"eval/{key}", value)
        save_model(self.model, self.run_dir / "model.zip")
        if self._score(row) > self.best:
            self.best = self._score(row)
            save_model(self.model, self.run_dir / "best_model.zip")
        if self.verbose:
            print(" ".join(f"{k}={v:.4g}" for k, v in row.items()))
        self._eval_seconds += time.perf_counter() - t


class EntropyScheduleCallback(BaseCallback):
    """Decay ``model.ent_coef`` linearly from ``cfg.ent_coef`` to 0 over ``cfg.total_timesteps``.

    A large early entropy bonus keeps the policy from collapsing onto "stop at once" (a safe but
    poor first-seat strategy) before it has learnt which dice to hold; the decay lets it become exact.
    """

    def __init__(self, cfg: TrainConfig) -> None:
        super().__init__(0)
        self.cfg = cfg

    def _on_rollout_start(self) -> None:
        left = max(0.0, 1.0 - self.num_timesteps / self.cfg.total_timesteps)
        self.model.ent_coef = self.cfg.ent_coef * left  # type: ignore[attr-defined]  # PPO and A2C have it

    def _on_step(self) -> bool:
        return True


class WeightAverageCallback(BaseCallback):
    """Average the policy's weights over the last part of a run (``cfg.average_from`` of its steps on).

    From the first rollout that starts at or after ``average_from * total_timesteps`` env steps, the
    weights left by each update are added to a uniform running mean (every parameter of the policy:
    features, both networks, the heads); when training ends the model takes the mean, before the
    final evaluation and save. The idea: late PPO updates may move near-tie actions back and forth
    (the step size has decayed, the noise of the advantage estimates has not), and the mean would
    keep what the last updates agree on. On the default config it measured no better (README,
    "Training": ``average_from: 0.8`` on two seeds), so it is off by default. Interrupted runs keep
    their live weights. A resumed run averages what its own session sees.
    """

    def __init__(self, cfg: TrainConfig, guard: SignalGuard | None = None) -> None:
        super().__init__(0)
        self.start = cfg.average_from * cfg.total_timesteps
        self.guard = guard
        self.mean: list[torch.Tensor] | None = None
        self.count = 0

    def _add(self) -> None:
        params = [p.detach() for p in self.model.policy.parameters()]
        if self.mean is None:
            self.mean = [p.clone() for p in params]
            self.count = 1
            return
        self.count += 1
        for m, p in zip(self.mean, params, strict=True):
            m.add_(p - m, alpha=1.0 / self.count)

    def _on_rollout_start(self) -> None:
        if self.num_timesteps >= self.start and self.num_timesteps > 0:
            self._add()  # the weights after the previous rollout's update

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        if self.guard is not None and self.guard.caught:
            return
        if self.num_timesteps >= self.start:
            self._add()  # the last update's weights
        if self.mean is None:
            return
        with torch.no_grad():
            for p, m in zip(self.model.policy.parameters(), self.mean, strict=True):
                p.copy_(m)


class ExploiterCallback(BaseCallback):
    """Recompute the exploiter's best responses at the start and every ``cfg.exploiter_freq`` env steps."""

    def __init__(self, cfg: TrainConfig, exploiter: ExploiterAgent) -> None:
        super().__init__(0)
        self.cfg = cfg
        self.exploiter = exploiter
        self.next_update = 0

    def _on_training_start(self) -> None:
        self.exploiter.update(self.model, self.cfg.ruleset)
        freq = self.cfg.exploiter_freq
        self.next_update = (self.num_timesteps // freq + 1) * freq

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_update:
            self.exploiter.update(self.model, self.cfg.ruleset)
            self.next_update += self.cfg.exploiter_freq
        return True


class SelfPlayCallback(BaseCallback):
    """Every ``cfg.self_play_freq`` env steps save the policy to ``pool/step_<N>.zip`` and add it to
    the pool; before every rollout, re-draw the groups' opponents.
    """

    def __init__(self, cfg: TrainConfig, run_dir: Path, pool: SelfPlayPool) -> None:
        super().__init__(0)
        self.cfg = cfg
        self.pool_dir = run_dir / "pool"
        self.pool = pool
        self.next_save = 0

    def _on_training_start(self) -> None:
        self.pool_dir.mkdir(exist_ok=True)
        freq = self.cfg.self_play_freq
        self.next_save = (self.num_timesteps // freq + 1) * freq

    def _on_rollout_start(self) -> None:
        self.pool.resample()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_save:
            path = self.pool_dir / f"step_{self.num_timesteps}.zip"
            save_model(self.model, path)
            self.pool.add(path)
            self.next_save += self.cfg.self_play_freq
        return True
