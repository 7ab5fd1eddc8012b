"""Tournaments in lockstep: the same games as the per-game runner, byte for byte, for every kind of agent."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import zanzibar_env as zz
from zanzibar_env.agents.policy import PolicyAgent
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.dice import RandomDice
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch, encode, encode_batch
from zanzibar_env.core.rules import Ruleset
from zanzibar_env.train.tournament import run_tournament
from zanzibar_env.train.tournament.lockstep import DealDice, is_stochastic
from zanzibar_env.train.tournament.report import write_csv


class ViewOnly(BaseAgent):
    """A bot with ``act`` only, reading what the engine's view holds (hands' dice included)."""

    name = "view_only"

    def act(self, view: View) -> int:
        lo = view.lowest.dice[0] if view.lowest is not None else 0
        hi = view.highest.dice[2] if view.highest is not None else 0
        key = sum(view.dice) + lo + hi + view.rolls_used + view.players_after + sum(view.stacks[1:])
        if view.rolls_used >= view.roll_limit - 1 or key % 5 == 0:
            return 7
        return (key % 3) * 3 if view.ruleset.holds_allowed else 0


class LinearScores:
    """Random linear scores of the observation, row by row (no matrix product: the same floats whatever
    the batch size); picklable, for worker processes."""

    def __init__(self, seed: int) -> None:
        self.w = np.random.default_rng(seed).normal(size=(33, 8))

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        return (obs[:, :, None] * self.w[None]).sum(1)


def _agents(kind: str) -> list[Any]:
    greedy_net = PolicyAgent(LinearScores(1), output="logits", name="net")
    sampled = PolicyAgent(LinearScores(2), output="logits", sample=True, name="sampled")
    return {
        "bots": ["greedy", "threshold", "escape", "random"],
        "mixed": [greedy_net, sampled, ViewOnly(), "random", "escape"],
        "two": ["random", "escape"],
    }[kind]


def _files(tmp: Path, lockstep: bool, jobs: int, agents: list[Any], **kw: Any) -> tuple[bytes, str]:
    res = run_tournament(agents, lockstep=lockstep, jobs=jobs, progress=False, **kw)
    path = tmp / f"games_{lockstep}_{jobs}.csv"
    write_csv(res, path)
    return path.read_bytes(), json.dumps(res.games)


CASES = [  # ruleset, players, agents, games, max_rounds
    ("classic", 2, "bots", 24, None),
    ("classic", 4, "mixed", 24, None),
    ("lives", 2, "mixed", 16, None),
    ("lives", 4, "two", 16, 6),  # fewer agents than seats; truncated games
    ("penalty", 3, "bots", 18, None),
    ("alt_chips", 4, "mixed", 16, 3),
    ("simple_scoring", 2, "two", 16, None),
    ("no_holds", 3, "mixed", 15, None),  # re-throw all or stop: random and sampling draw otherwise
]


def _ruleset(name: str) -> Any:
    if name != "no_holds":
        return name
    classic = zz.load_ruleset("classic").to_dict()
    return Ruleset.from_dict({**classic, "holds_allowed": False, "name": "classic_no_holds"})


@pytest.mark.parametrize(("ruleset", "players", "kind", "games", "max_rounds"), CASES)
def test_lockstep_gives_the_games_of_the_per_game_runner(
    tmp_path: Path, ruleset: str, players: int, kind: str, games: int, max_rounds: int | None
) -> None:
    kw = dict(players=players, games=games, ruleset=_ruleset(ruleset), seed=11, max_rounds=max_rounds)
    old = _files(tmp_path, False, 1, _agents(kind), **kw)
    new = _files(tmp_path, True, 1, _agents(kind), **kw)
    assert new[0] == old[0]  # games.csv, byte for byte
    assert new[1] == old[1]  # results.json's games
    if max_rounds is not None:
        assert any(g["truncated"] for g in json.loads(new[1]))


def test_lockstep_in_two_jobs_and_with_records(tmp_path: Path) -> None:
    kw = dict(players=3, games=30, ruleset="classic", seed=5)
    one = _files(tmp_path, False, 1, _agents("mixed"), **kw)
    assert _files(tmp_path, True, 2, _agents("mixed"), **kw) == one
    kept = run_tournament(_agents("bots"), keep_records=True, progress=False, **kw)  # type: ignore[arg-type]
    plain = run_tournament(_agents("bots"), progress=False, **kw)  # type: ignore[arg-type]
    assert kept.games == plain.games and len(kept.records) == 30 and not plain.records


def test_deal_dice_throw_as_random_dice() -> None:
    """The vectorised streams drop a block's last faces when a throw does not fit, as RandomDice does."""
    rng = np.random.default_rng(0)
    seeds = [3, 3, 9]
    dice = DealDice(3, buffer=16)
    dice.start([0, 1, 2], seeds)
    ref = [RandomDice(s, buffer=16) for s in seeds]
    for _ in range(60):
        rows = np.flatnonzero(rng.random(3) < 0.7)
        k = rng.integers(1, 4, size=rows.size)
        got = dice.faces_of(rows, k)
        for j, (i, kk) in enumerate(zip(rows, k, strict=True)):
            assert got[j, :kk].tolist() == ref[i].roll(int(kk))
            assert (got[j, kk:] == 1).all()
    dice.start([1], [9])  # a row restarted: a new game from the first face of its stream
    ref[1] = RandomDice(9, buffer=16)
    assert dice.faces_of(np.array([1]), np.array([3]))[0].tolist() == ref[1].roll(3)


def test_which_agents_are_stochastic() -> None:
    from zanzibar_env.agents import make_agent

    assert is_stochastic(make_agent("random"))
    assert not any(is_stochastic(make_agent(a)) for a in ("greedy", "threshold", "escape"))
    assert not is_stochastic(PolicyAgent(lambda o: np.zeros(len(o), int)))
    assert is_stochastic(PolicyAgent(lambda o: np.zeros((len(o), 8)), output="logits", sample=True))


def test_lockstep_checks_actions() -> None:
    class Bad(BaseAgent):
        def act(self, view: View) -> int:
            return 9

        def act_batch(self, batch: Any) -> np.ndarray:
            return np.full(len(batch), 9)

    with pytest.raises(ValueError, match="9"):
        run_tournament([Bad(), "greedy"], players=2, games=4, progress=False)
    with pytest.raises(TypeError, match="lockstep"):
        run_tournament(["greedy", "random"], games=2, lockstep="yes", progress=False)


class EncodingSpy(BaseAgent):
    """Greedy by a fixed linear score of the observation; checks, at every batch, that the lazy batch's
    direct observations (the game's state arrays) are the floats ``encode_batch`` makes from its fields."""

    name = "spy"

    def __init__(self) -> None:
        self.w = np.random.default_rng(0).normal(size=(33, 8))
        self.rows = 0

    def act(self, view: View) -> int:
        return int(np.argmax(encode(view) @ self.w))

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        fields = {f.name: getattr(batch, f.name) for f in dataclasses.fields(ViewBatch)}
        direct = encode_batch(batch)
        assert type(batch).direct_observations is not ViewBatch.direct_observations  # the lazy batch
        np.testing.assert_array_equal(direct, encode_batch(ViewBatch(**fields)))
        self.rows += len(batch)
        return np.argmax(direct @ self.w, axis=1)


@pytest.mark.parametrize(("ruleset", "players"), [("classic", 4), ("lives", 3), ("penalty", 2), ("odd", 3)])
def test_lockstep_batches_encode_the_state_arrays_as_the_fields(ruleset: Any, players: int) -> None:
    if ruleset == "odd":  # the best hand of the turn counts, instant Zanzibar, no limit set by the first
        ruleset = zz.load_ruleset(
            "classic", final_hand="best", instant_zanzibar="worst_so_far_loses", first_roller_sets_limit=False
        )
    spy = EncodingSpy()
    res = run_tournament([spy, "greedy", "random"], players=players, games=12, ruleset=ruleset, seed=3)
    assert len(res.games) == 12 and spy.rows > 100
    per_game = run_tournament(
        [EncodingSpy(), "greedy", "random"],
        players=players,
        games=12,
        ruleset=ruleset,
        seed=3,
        lockstep=False,
    )
    assert per_game.games == res.games


def test_lockstep_with_learned_agents_gives_the_games_of_the_per_game_runner(tmp_path: Path) -> None:
    """Shipped PPO baselines (the numpy greedy pass: a batch per step in lockstep, one view at a time
    game by game) play the same games either way."""
    pytest.importorskip("torch")
    for agents, players in [
        (["ppo:ppo_classic_2p", "optimal"], 2),
        (["ppo:ppo_game_4p_teacher", "greedy"], 4),
    ]:
        kw = dict(players=players, games=2 * players, seed=7, max_rounds=40)
        assert _files(tmp_path, True, 1, agents, **kw) == _files(tmp_path, False, 1, agents, **kw)  # type: ignore[arg-type]
