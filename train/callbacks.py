"""SB3 callbacks used by :mod:`train.ppo`: periodic evaluation (CSV, TensorBoard, best model, checkpoint),
the opponents of a run and the self-play checkpoint pool.
"""

from __future__ import annotations

import csv
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.base import BaseAgent
from agents.registry import make_agent
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch

from .config import TrainConfig
from .evaluate import ModelAgent, evaluate_model, load_model


class EvalCallback(BaseCallback):
    """Evaluate every ``cfg.eval_freq`` env steps and at the end of training.

    Each evaluation appends a row to ``eval.csv`` (timesteps, training wall time in seconds, then the
    figures of :func:`train.evaluate.evaluate_model`), logs them to TensorBoard under ``eval/``, saves
    ``model.zip`` (a resumable checkpoint) and, when the score improves, ``best_model.zip``. The score
    is minus the mean exploitability when exact figures exist, else the mean return over the bots.
    Bot-match seeds depend only on ``cfg.seed`` and the evaluation index, so the curve is reproducible.
    """

    def __init__(self, cfg: TrainConfig, run_dir: Path, wall_offset: float = 0.0, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.cfg = cfg
        self.run_dir = run_dir
        self.csv_path = run_dir / "eval.csv"
        self.wall_offset = wall_offset  # training seconds of earlier sessions (for --resume)
        self.next_eval = 0
        self.best = -float("inf")
        self.rows: list[dict[str, float]] = []
        self._t0 = 0.0
        self._eval_seconds = 0.0

    def _on_training_start(self) -> None:
        self._t0 = time.perf_counter()
        if self.csv_path.is_file():  # resumed run: keep history and best score
            with self.csv_path.open() as fh:
                self.rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)]
            self.best = max((self._score(r) for r in self.rows), default=-float("inf"))
        freq = self.cfg.eval_freq
        self.next_eval = (self.num_timesteps // freq + 1) * freq if freq else 1 << 62
        if not self.rows:
            self._evaluate()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self._evaluate()
            self.next_eval += self.cfg.eval_freq
        return True

    def _on_training_end(self) -> None:
        if not self.rows or self.rows[-1]["timesteps"] != self.num_timesteps:
            self._evaluate()

    def train_seconds(self) -> float:
        """Wall-clock seconds spent training (evaluation time excluded), across resumed sessions."""
        return self.wall_offset + time.perf_counter() - self._t0 - self._eval_seconds

    def _score(self, row: dict[str, float]) -> float:
        if "exploit_mean" in row:
            return -row["exploit_mean"]
        means = [v for k, v in row.items() if k.endswith("_mean")]
        return sum(means) / len(means) if means else 0.0

    def _evaluate(self) -> None:
        t = time.perf_counter()
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
            "train_seconds": round(self.train_seconds(), 3),
            **figures,
        }
        self.rows.append(row)
        self._write_row(row)
        for key, value in figures.items():
            self.logger.record(f"eval/{key}", value)
        self.model.save(self.run_dir / "model.zip")
        if self._score(row) > self.best:
            self.best = self._score(row)
            self.model.save(self.run_dir / "best_model.zip")
        if self.verbose:
            print(" ".join(f"{k}={v:.4g}" for k, v in row.items()))
        self._eval_seconds += time.perf_counter() - t

    def _write_row(self, row: dict[str, float]) -> None:
        new = not self.csv_path.is_file()
        with self.csv_path.open("a", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)


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
        self.model.ent_coef = self.cfg.ent_coef * left  # type: ignore[attr-defined]

    def _on_step(self) -> bool:
        return True


class SwitchAgent(BaseAgent):
    """Plays as whichever member agent it currently holds; :class:`SelfPlayPool` swaps the member."""

    name = "switch"

    def __init__(self, member: BaseAgent) -> None:
        self.member = member

    def act(self, view: View) -> int:
        return int(self.member.act(view))

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return self.member.act_batch(batch)


class SelfPlayPool:
    """Fixed bots plus the learner's most recent checkpoints, drawn per env group and rollout.

    The training envs are split into ``groups`` vector envs; each plays a :class:`SwitchAgent` in all
    other seats. Before every rollout each group draws its opponent: a checkpoint from the pool with
    probability ``cfg.self_play_prob`` (when the pool has any), else one of the fixed bots. Draws use
    an RNG seeded from ``cfg.seed``. (Per rollout and group rather than per episode: the batched env
    plays one opponents object per vector env.)
    """

    def __init__(self, cfg: TrainConfig, groups: int) -> None:
        self.cfg = cfg
        self.rng = np.random.default_rng(cfg.seed + 104729)
        self.bots = [make_agent(b, seed=cfg.seed + 31 * k) for k, b in enumerate(cfg.opponents)]
        self.checkpoints: deque[tuple[Path, BaseAgent]] = deque(maxlen=cfg.self_play_pool)
        first = self.bots[0] if self.bots else None
        self.switches = [SwitchAgent(first) for _ in range(groups)]  # type: ignore[arg-type]

    def add(self, path: Path) -> None:
        """Put the checkpoint saved at ``path`` into the pool (dropping the oldest past the size)."""
        self.checkpoints.append((path, ModelAgent(load_model(path), name=f"self:{path.stem}")))

    def resample(self) -> None:
        """Draw each group's opponent for the next rollout."""
        for switch in self.switches:
            draw = self.rng.random()
            use_pool = bool(self.checkpoints) and (not self.bots or draw < self.cfg.self_play_prob)
            members: list[Any] = [a for _, a in self.checkpoints] if use_pool else self.bots
            switch.member = members[int(self.rng.integers(len(members)))]


class ExploiterAgent(BaseAgent):
    """The exact best response to the learner's greedy policy, in whichever seat it sits (2-player rounds).

    Holds two :class:`agents.exact.BestResponse` objects, one rolling first (against the learner
    rolling second) and one rolling second; :meth:`update` recomputes both from a live model. Until
    the first update it plays ``optimal``. Envs playing it put the learner in exactly the states where
    it loses most to a best response, which training against ``optimal`` alone rarely visits.
    """

    name = "exploiter"

    def __init__(self) -> None:
        self.first: BaseAgent = make_agent("optimal")
        self.second: BaseAgent = self.first

    def update(self, model: Any, ruleset: str) -> None:
        from agents.exact import best_response

        learner = ModelAgent(model)
        self.first = best_response(learner, ruleset, seat=0)
        self.second = best_response(learner, ruleset, seat=1)

    def act(self, view: View) -> int:
        return int(self.act_batch(ViewBatch.from_views([view]))[0])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        first = np.asarray(batch.is_first, bool)
        out = np.zeros(len(batch), np.int64)
        for rows, agent in ((np.flatnonzero(first), self.first), (np.flatnonzero(~first), self.second)):
            if rows.size:
                out[rows] = agent.act_batch(_take(batch, rows))
        return out


def _take(batch: ViewBatch, rows: np.ndarray) -> ViewBatch:
    """The rows ``rows`` of a view batch."""
    fields = {f: getattr(batch, f)[rows] for f in batch.__dataclass_fields__ if f != "ruleset"}
    return ViewBatch(ruleset=batch.ruleset, **fields)


@dataclass
class Opponents:
    """What :func:`train.sb3_vec.make_sb3_env` and the callbacks need to set up a run's opponents."""

    opponents: Any = None  # one spec for every other seat, or one per seat (no groups)
    groups: list[Any] | None = None  # one opponents spec per env group, or None
    pool: SelfPlayPool | None = None
    exploiter: ExploiterAgent | None = None


def build_opponents(cfg: TrainConfig, run_dir: Path | None) -> Opponents:
    """The opponents of a run.

    Without self-play or exploiters, a single name plays every other seat and a list with one name per
    other seat plays them clockwise after the learner; any other list splits the envs into one group
    per name. With self-play, the envs are split into ``min(8, num_envs)`` groups of a
    :class:`SelfPlayPool` (loaded with the run's existing ``pool/`` checkpoints when resuming). With
    ``exploiter_frac > 0`` (2 players), that fraction of 8 groups plays an :class:`ExploiterAgent`
    and the rest play the opponents above (drawn in turn from the list).
    """
    names = list(cfg.opponents)
    out = Opponents()
    if cfg.self_play:
        out.pool = SelfPlayPool(cfg, min(8, cfg.num_envs))
        saved = (run_dir / "pool").glob("step_*.zip") if run_dir is not None else []
        for path in sorted(saved, key=lambda p: int(p.stem[5:])):
            out.pool.add(path)
        out.pool.resample()
        out.groups = list(out.pool.switches)
    elif len(names) == 1 or len(names) == cfg.num_players - 1:
        out.opponents = names[0] if len(names) == 1 else names
    else:
        out.groups = names
    if cfg.exploiter_frac > 0:
        k = min(7, max(1, round(8 * cfg.exploiter_frac)))
        base = out.groups if out.groups is not None else [out.opponents]
        out.exploiter = ExploiterAgent()
        out.groups = [base[g % len(base)] for g in range(8 - k)] + [out.exploiter] * k
    return out


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
            self.model.save(path)
            self.pool.add(path)
            self.next_save += self.cfg.self_play_freq
        return True
