"""The opponents of a training run: fixed bots, the self-play checkpoint pool and exact exploiters.

:func:`build_opponents` turns a config's ``opponents``, ``self_play`` and ``exploiter_frac`` into what
:func:`zanzibar_env.envs.sb3.make_sb3_env` takes; the callbacks in
:mod:`zanzibar_env.train.sb3.callbacks` keep the pool and
the exploiters up to date while training.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.agents.ppo_agent import ModelAgent, load_model
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.registry import make_agent
from zanzibar_env.train.config import TrainConfig


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

    The training envs are split into ``groups`` env groups; each plays a :class:`SwitchAgent` in all
    other seats. Before every rollout each group draws its opponent: a checkpoint from the pool with
    probability ``cfg.self_play_prob`` (when the pool has any), else one of the fixed bots. Draws use
    an RNG seeded from ``cfg.seed``. (Per rollout and group rather than per episode: the batched env
    plays one opponents object per env group.)
    """

    def __init__(self, cfg: TrainConfig, groups: int) -> None:
        self.cfg = cfg
        self.rng = np.random.default_rng(cfg.seed + 104729)
        self.bots = [make_agent(b, seed=cfg.seed + 31 * k) for k, b in enumerate(cfg.opponents)]
        self.checkpoints: deque[tuple[Path, BaseAgent]] = deque(maxlen=cfg.self_play_pool)
        first = self.bots[0] if self.bots else None
        self.switches = [SwitchAgent(first) for _ in range(groups)]  # type: ignore[arg-type]  # no bot: self-play only

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

    Holds two :class:`zanzibar_env.agents.exact.BestResponse` objects, one rolling first (against the learner
    rolling second) and one rolling second; :meth:`update` recomputes both from a live model. Until
    the first update it plays ``optimal``. Envs playing it put the learner in exactly the states where
    it loses most to a best response, which training against ``optimal`` alone rarely visits.
    """

    name = "exploiter"

    def __init__(self) -> None:
        self.first: BaseAgent = make_agent("optimal")
        self.second: BaseAgent = self.first

    def update(self, model: Any, ruleset: str) -> None:
        from zanzibar_env.agents.exact import best_response

        learner = ModelAgent(model)
        self.first = best_response(learner, ruleset, seat=0)
        self.second = best_response(learner, ruleset, seat=1)

    def act(self, view: View) -> int:
        return int(self.act_batch(ViewBatch.from_views([view]))[0])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        if self.first is self.second:  # before the first update: one agent in both seats
            return self.first.act_batch(batch)
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


def _exploiter(cfg: TrainConfig) -> Any:
    """A round exploiter, or in full games (``Zanzibar-v1``) the game one (:mod:`zanzibar_env.train.sb3.game_learn`)."""
    if cfg.env_id == "Zanzibar-v1":
        from zanzibar_env.train.sb3.game_learn import GameExploiterAgent

        return GameExploiterAgent()
    return ExploiterAgent()


@dataclass
class Opponents:
    """What :func:`zanzibar_env.envs.sb3.make_sb3_env` and the callbacks need to set up a run's opponents."""

    opponents: Any = None  # one spec for every other seat, or one per seat (no groups)
    groups: list[Any] | None = None  # one opponents spec per env group, or None
    pool: SelfPlayPool | None = None
    exploiter: Any = None  # an ExploiterAgent, or a game_learn.GameExploiterAgent in full games
    #: ``(opponents, groups)`` of the envs where the learner always rolls second, when
    #: ``second_seat_opponents`` names them; None: those envs play ``opponents``/``groups`` too
    second: tuple[Any, list[Any] | None] | None = None


def build_opponents(cfg: TrainConfig, run_dir: Path | None) -> Opponents:
    """The opponents of a run.

    Without self-play or exploiters, a single name plays every other seat and a list with one name per
    other seat plays them clockwise after the learner; any other list splits the envs into one group
    per name. With self-play, the envs are split into ``min(8, num_envs)`` groups of a
    :class:`SelfPlayPool` (loaded with the run's existing ``pool/`` checkpoints when resuming). With
    ``exploiter_frac > 0`` (2 players), that fraction of 8 groups plays an :class:`ExploiterAgent`
    (in ``Zanzibar-v1``: :class:`zanzibar_env.train.sb3.game_learn.GameExploiterAgent`, the best response in the game)
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
        k = _exploiter_groups(cfg)
        base = out.groups if out.groups is not None else [out.opponents]
        out.exploiter = _exploiter(cfg)
        out.groups = [base[g % len(base)] for g in range(8 - k)] + [out.exploiter] * k
    out.second = _second_seat(cfg, out.exploiter)
    return out


def _second_seat(cfg: TrainConfig, exploiter: Any) -> tuple[Any, list[Any] | None] | None:
    """The opponents of the second-seat envs under ``second_seat_opponents``: one group per name, and
    with exploiters the same share of 8 groups playing the exploiter as in the other envs."""
    names = list(cfg.second_seat_opponents)
    if not names:
        return None
    if exploiter is None:
        return (names[0], None) if len(names) == 1 else (None, names)
    k = _exploiter_groups(cfg)
    return None, [names[g % len(names)] for g in range(8 - k)] + [exploiter] * k


def _exploiter_groups(cfg: TrainConfig) -> int:
    """How many of the 8 env groups play the exploiter under ``exploiter_frac`` (1-7)."""
    return min(7, max(1, round(8 * cfg.exploiter_frac)))
