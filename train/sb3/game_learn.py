"""Learning the full game (``Zanzibar-v1``): a game exploiter and imitation of a bot before PPO.

- the exact game figures of the training curve (the columns ``game_*`` of ``eval.csv`` with
  ``eval_game_exact``) are :func:`zanzibar_env.train.exact_eval.game_figures`.
- :class:`GameExploiterAgent`: the exact best response *in the game* to the learner's current greedy
  policy (:func:`zanzibar_env.agents.exact.game_best_response`), what ``exploiter_frac`` plays in ``Zanzibar-v1``.
- :func:`pretrain`: supervised imitation of the config's ``pretrain`` bot before PPO. The policy head is
  fitted to the bot's actions (cross-entropy) on every decision of the 2-player game from the starting
  stacks (each stack state, each roll, dice and earlier hand: enumerated exactly), or at larger tables on
  the decisions of ``pretrain_games`` games of the bot against itself; the value head is fitted to the
  result of those games (the ``win`` reward: +1/k for the k winners, -1 for the others). With
  ``pretrain: table_game`` the teacher is :func:`zanzibar_env.agents.exact.table_game_response` solved for the run's
  table (its ``opponents``, clockwise after the learner): it plays the learner's seat in
  ``pretrain_games`` games against those opponents (the first roller rotating), and only its decisions
  and results are learned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from zanzibar_env.agents.exact import (
    GameSpec,
    Pairs,
    decision_batch,
    decision_rows,
    game_best_response,
)
from zanzibar_env.agents.ppo_agent import ModelAgent
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.game import Policy, play_game
from zanzibar_env.core.kernel import legal_mask
from zanzibar_env.core.observation import ViewBatch, encode, encode_batch
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import Ruleset, load_ruleset
from zanzibar_env.train.config import TrainConfig
from zanzibar_env.train.config.checks import TABLE_TEACHER, table_opponents
from zanzibar_env.train.exact_eval import start_stacks

BATCH = 1024  # minibatch of the imitation steps
LEARNING_RATE = 1e-3  # Adam step size of the imitation (PPO keeps its own optimizer)


class GameExploiterAgent(BaseAgent):
    """The exact game best response to the learner's greedy policy, in either seat (2-player games).

    Plays ``optimal_game`` until the first :meth:`update`; each update recomputes the best response from
    a live model (a few seconds at 20-20 chips).
    """

    name = "game_exploiter"
    table_sizes = (2,)

    def __init__(self) -> None:
        self.current: BaseAgent = make_agent("optimal_game")

    def update(self, model: Any, ruleset: str) -> None:
        rules = load_ruleset(ruleset)
        self.current = game_best_response(ModelAgent(model), rules, start_stacks(rules))

    def act(self, view: View) -> int:
        return int(self.current.act(view))

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return self.current.act_batch(batch)


# ---- imitation ------------------------------------------------------------------------------------
@dataclass
class ImitationData:
    """Observations with the teacher's actions (policy rows) and with game results (value rows)."""

    obs: np.ndarray  # float32[N, 33]
    actions: np.ndarray  # int64[N]
    value_obs: np.ndarray  # float32[M, 33]
    value_target: np.ndarray  # float32[M]


def exact_decisions(teacher: BaseAgent, rules: Ruleset) -> tuple[np.ndarray, np.ndarray]:
    """Every decision of the 2-player game from the starting stacks, and the teacher's action there."""
    spec = GameSpec.of(rules)
    pairs = Pairs.reachable(spec, start_stacks(rules))
    batch = decision_batch(spec, pairs, decision_rows(spec, pairs))
    return encode_batch(batch).astype(np.float32), np.asarray(teacher.act_batch(batch), np.int64)


class _Recorder:
    """A policy for :func:`play_game` that plays the teacher and records each decision."""

    def __init__(self, teacher: BaseAgent) -> None:
        self.teacher = teacher
        self.seen: list[tuple[int, np.ndarray, int]] = []  # (seat, observation, action)

    def __call__(self, view: View) -> int:
        action = int(self.teacher.act(view))
        self.seen.append((view.seat, encode(view), action))
        return action


def sampled_games(
    teacher: BaseAgent,
    rules: Ruleset,
    players: int,
    games: int,
    seed: int,
    max_rounds: int | None,
    bots: list[BaseAgent] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The decisions of ``games`` games of the teacher in every seat, or with ``bots`` (seats 1.., clockwise)
    in seat 0 only against them, game ``g`` started by seat ``g % players``: observations, actions and the
    deciding seat's ``win`` result (games cut off by ``max_rounds`` are left out)."""
    obs: list[np.ndarray] = []
    acts: list[int] = []
    result: list[float] = []
    for g in range(games):
        rec = _Recorder(teacher)
        seats: Policy | list[Policy] = rec if bots is None else [rec, *(b.act for b in bots)]
        game = play_game(
            rules,
            seats,
            num_players=players,
            seed=seed + g,
            first_seat=0 if bots is None else g % players,
            max_rounds=max_rounds,
        )
        if game.truncated or not game.winners:
            continue
        share = 1.0 / len(game.winners)
        for seat, o, a in rec.seen:
            obs.append(o)
            acts.append(a)
            result.append(share if seat in game.winners else -1.0)
    if not obs:
        raise ValueError(f"none of the {games} imitation games ended within max_rounds={max_rounds}")
    return np.asarray(obs, np.float32), np.asarray(acts, np.int64), np.asarray(result, np.float32)


def imitation_data(cfg: TrainConfig) -> ImitationData:
    """The imitation set of ``cfg`` (its ``pretrain`` teacher, table size and ``pretrain_games``)."""
    rules = load_ruleset(cfg.ruleset)
    seed = cfg.seed * 1_000_003 + 7
    if cfg.pretrain == TABLE_TEACHER:
        from zanzibar_env.agents.exact import table_game_response

        names = table_opponents(cfg)
        bots = [make_agent(name, seed=cfg.seed + i) for i, name in enumerate(names)]
        obs, acts, target = sampled_games(
            table_game_response(names, rules),
            rules,
            cfg.num_players,
            cfg.pretrain_games,
            seed,
            cfg.max_rounds,
            bots,
        )
        return ImitationData(obs, acts, obs, target)
    teacher = make_agent(str(cfg.pretrain), seed=cfg.seed)
    obs, acts, target = sampled_games(
        teacher, rules, cfg.num_players, cfg.pretrain_games, seed, cfg.max_rounds
    )
    if cfg.num_players == 2:
        exact_obs, exact_acts = exact_decisions(teacher, rules)
        return ImitationData(exact_obs, exact_acts, obs, target)
    return ImitationData(obs, acts, obs, target)


def pretrain(model: Any, cfg: TrainConfig) -> dict[str, float]:
    """Fit ``model``'s policy to the teacher's actions and its value to the game results (module doc);
    returns the imitation figures (rows, epochs, final accuracy on the policy rows, seconds)."""
    t0 = time.perf_counter()
    data = imitation_data(cfg)
    policy = model.policy
    legal = torch.as_tensor(np.array(legal_mask(load_ruleset(cfg.ruleset).holds_allowed), bool))
    x, y = torch.as_tensor(data.obs), torch.as_tensor(data.actions)
    vx, vy = torch.as_tensor(data.value_obs), torch.as_tensor(data.value_target)
    opt = torch.optim.Adam(policy.parameters(), lr=LEARNING_RATE)
    gen = torch.Generator().manual_seed(cfg.seed)
    policy.set_training_mode(True)
    for _ in range(cfg.pretrain_epochs):
        perm = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), BATCH):
            rows = perm[i : i + BATCH]
            vrows = torch.randint(len(vy), (len(rows),), generator=gen)
            logits = _logits(policy, x[rows]).masked_fill(~legal, -1e9)
            loss = torch.nn.functional.cross_entropy(logits, y[rows])
            loss = loss + 0.5 * torch.nn.functional.mse_loss(
                policy.predict_values(vx[vrows]).flatten(), vy[vrows]
            )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        pred = torch.cat(
            [
                _logits(policy, x[i : i + 8192]).masked_fill(~legal, -1e9).argmax(1)
                for i in range(0, len(y), 8192)
            ]
        )
    return {
        "policy_rows": float(len(y)),
        "value_rows": float(len(vy)),
        "epochs": float(cfg.pretrain_epochs),
        "accuracy": float((pred == y).float().mean()),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def _logits(policy: Any, obs: torch.Tensor) -> torch.Tensor:
    """The action logits of an SB3 actor-critic policy (before masking)."""
    return policy.get_distribution(obs).distribution.logits
