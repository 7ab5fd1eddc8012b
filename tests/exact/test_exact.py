"""Exact 2-player evaluation: optimal is unexploitable, never loses, and agrees with a simulated match."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import zanzibar_env as zz
from tests.cache import isolated_cache  # noqa: F401  (autouse fixture)
from zanzibar_env.agents import available_agents, make_agent
from zanzibar_env.agents.exact import best_response, decision_states, exploitability, round_value
from zanzibar_env.agents.pretrained import BASELINES
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch, encode_batch
from zanzibar_env.train.exact_eval import main

RULESETS = ["classic", "simple_scoring", "alt_chips", "lives"]
CHIPS = ["classic", "simple_scoring", "alt_chips"]


def _others() -> list[str]:
    """The bots besides optimal (the shipped models are measured by their own tests)."""
    return [a for a in available_agents() if a != "optimal" and a not in BASELINES]


@pytest.mark.parametrize(
    "rules",
    [zz.load_ruleset(n) for n in RULESETS]
    + [
        zz.load_ruleset("classic", instant_zanzibar="worst_so_far_loses", tie_rule="all"),
        zz.load_ruleset("lives", holds_allowed=False, first_roller_sets_limit=True),
    ],
    ids=[*RULESETS, "classic-instant-all", "lives-noholds-limit"],
)
def test_optimal_is_unexploitable(rules: zz.Ruleset) -> None:
    ex = exploitability("optimal", rules)
    assert abs(ex["seat0"]) < 1e-9 and abs(ex["seat1"]) < 1e-9 and abs(ex["average"]) < 1e-9
    assert ex["vs_self_seat0"] == pytest.approx(ex["game_value_seat0"], abs=1e-12)
    assert ex["vs_optimal_seat1"] == pytest.approx(ex["game_value_seat1"], abs=1e-12)


@pytest.mark.parametrize("name", CHIPS)
def test_optimal_never_loses_chips(name: str) -> None:
    """Zero-sum: every other agent, in either seat, does no better against optimal than the game value."""
    for agent in _others():
        ex = exploitability(make_agent(agent, seed=0), name)
        for seat in (0, 1):
            assert ex[f"vs_optimal_seat{seat}"] <= ex[f"game_value_seat{seat}"] + 1e-9, (agent, seat)
            assert ex[f"seat{seat}"] >= -1e-9
        assert ex["vs_optimal_seat0"] + ex["vs_optimal_seat1"] <= 1e-9
    assert exploitability("random", name)["average"] > 0.5


def test_optimal_never_loses_lives() -> None:
    """Lives are not zero-sum: averaged over seats, optimal loses fewer lives than its opponent (a heuristic
    bot; optimal_game, which plays for the difference in lives, makes optimal lose more than itself)."""
    for agent in [a for a in _others() if a != "optimal_game"]:
        first = round_value("optimal", make_agent(agent, seed=0), "lives")
        second = round_value(make_agent(agent, seed=0), "optimal", "lives")
        assert first[0] + second[1] >= first[1] + second[0] - 1e-12, agent


def test_exact_value_matches_a_100k_round_simulation() -> None:
    """optimal (rolling first) against random in classic: exact value inside the 99.9% interval."""
    rules = zz.load_ruleset("classic")
    opt, rnd = make_agent("optimal"), make_agent("random", seed=7)
    exact = round_value(opt, "random", rules)
    assert exact[0] == pytest.approx(-exact[1], abs=1e-12)
    dice = zz.RandomDice(2026)
    n = 100_000
    results = np.empty(n)
    for i in range(n):
        rec = zz.play_round(rules, [opt, rnd], dice=dice)
        results[i] = -rec.transfers[0]  # chips given away minus received by seat 0
    half = 3.2905 * results.std(ddof=1) / np.sqrt(n)
    assert abs(results.mean() - exact[0]) < half, (results.mean(), exact[0], half)


class _Counting(BaseAgent):
    """Wraps an agent and counts batched queries; ``batched=False`` hides ``act_batch``."""

    def __init__(self, inner: BaseAgent, batched: bool = True) -> None:
        self.inner, self.batched, self.calls = inner, batched, 0

    def act(self, view: View) -> int:
        return self.inner.act(view)

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        if not self.batched:
            raise NotImplementedError
        self.calls += 1
        return self.inner.act_batch(batch)


class _Linear(BaseAgent):
    """A stand-in for a neural policy: a fixed random linear map of the observation, argmax."""

    def __init__(self, seed: int) -> None:
        self.w = np.random.default_rng(seed).normal(size=(33, 8))

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return np.asarray(np.argmax(encode_batch(batch) @ self.w, axis=1), np.int64)


def test_any_observation_agent_in_one_batch_and_act_fallback() -> None:
    greedy = make_agent("greedy")
    batched = _Counting(greedy)
    v = round_value(batched, "optimal", "alt_chips")
    assert batched.calls == 1
    assert round_value(_Counting(greedy, batched=False), "optimal", "alt_chips") == pytest.approx(
        v, abs=1e-12
    )
    ds = decision_states(zz.load_ruleset("alt_chips"))
    assert len(ds.batch) == len(ds.q) and set(np.unique(ds.q)) == {0, 1}
    ex = exploitability(_Linear(3), "classic")
    assert ex["average"] > 0 and ex["vs_self_seat0"] == pytest.approx(-ex["vs_self_seat1"], abs=1e-12)


def test_best_response_replays_its_value() -> None:
    ex = exploitability("greedy", "simple_scoring")
    br = best_response("greedy", "simple_scoring", seat=0)
    assert br.value == pytest.approx(ex["best_response_vs_seat1"], abs=1e-12)
    assert round_value(br, "greedy", "simple_scoring")[0] == pytest.approx(br.value, abs=1e-9)
    br1 = best_response("greedy", "simple_scoring", seat=1)
    assert br1.value == pytest.approx(ex["best_response_vs_seat0"], abs=1e-12)
    with pytest.raises(ValueError, match="seat"):
        best_response("greedy", "classic", seat=2)


class _Illegal(BaseAgent):
    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return np.full(len(batch), 3)


def test_bad_agents_and_rulesets_raise() -> None:
    with pytest.raises(ValueError, match="illegal"):
        round_value(_Illegal(), "random", zz.load_ruleset("classic", holds_allowed=False))
    with pytest.raises(ValueError, match="unknown ruleset"):
        exploitability("random", "no_such_rules")
    no_decisions = zz.load_ruleset("classic", max_rolls=1)
    assert round_value(_Illegal(), "random", no_decisions) == pytest.approx((0.0, 0.0), abs=1e-12)


def test_exact_eval_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "greedy.json"
    assert main(["--agent", "greedy", "--ruleset", "classic", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "exploitability" in printed and "seat 0 (first)" in printed
    fig = json.loads(out.read_text())
    assert fig["agent"] == "greedy" and fig["average"] == pytest.approx((fig["seat0"] + fig["seat1"]) / 2)
    assert main(["--agent", "no_such_bot"]) == 2
