"""Baseline agents: registry, legality, act vs act_batch, pickling, and that each heuristic beats random."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import zanzibar_env as zz
from zanzibar_env.agents import EscapeAgent, GreedyAgent, ThresholdAgent, available_agents, make_agent
from zanzibar_env.agents.heuristics import throw_quantile, transitions
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch

HEURISTICS = ["greedy", "threshold", "escape"]
RULESETS = ["classic", "lives", "simple_scoring", "alt_chips"]


def _variants() -> list[zz.Ruleset]:
    out = []
    for name in RULESETS:
        r = zz.load_ruleset(name)
        out += [r, r.replace(holds_allowed=False), r.replace(max_rolls=4)]
    return out


def _collect_views(ruleset: zz.Ruleset, rounds: int, seed: int) -> list[View]:
    """Views met while random players play ``rounds`` rounds at tables of 2-8 with varied stacks."""
    views: list[View] = []
    rand = make_agent("random", seed=seed)

    def policy(view: View) -> int:
        views.append(view)
        return rand.act(view)

    rng = np.random.default_rng(seed)
    for i in range(rounds):
        n = int(rng.integers(2, 9))
        stacks = [int(s) for s in rng.integers(1, ruleset.starting_stack + 1, size=n)]
        zz.play_round(ruleset, policy, stacks=stacks, starting_seat=int(rng.integers(n)), seed=seed + i)
    return views


def test_registry_names_and_errors() -> None:
    assert {"random", "optimal", *HEURISTICS} <= set(available_agents())
    for name in HEURISTICS:
        assert make_agent(name).name == name
    with pytest.raises(ValueError, match=r"available: .*escape"):
        make_agent("nope")
    with pytest.raises(ValueError, match="available"):
        make_agent("ppo:/no/such/model.zip")
    with pytest.raises(ValueError, match="bar"):
        make_agent("threshold", bar=1.5)
    with pytest.raises(ValueError, match="bad options"):
        make_agent("greedy", colour="red")
    agent = GreedyAgent()
    assert make_agent(agent) is agent


def _variant_id(r: zz.Ruleset) -> str:
    return f"{r.name}-holds{r.holds_allowed}-rolls{r.max_rolls}"


@pytest.mark.parametrize("ruleset", _variants(), ids=_variant_id)
def test_act_matches_act_batch_and_is_legal(ruleset: zz.Ruleset) -> None:
    views = _collect_views(ruleset, rounds=60, seed=11)
    assert len(views) > 100
    batch = ViewBatch.from_views(views)
    legal = set(range(8)) if ruleset.holds_allowed else {0, 7}
    for name in HEURISTICS:
        agent = make_agent(name)
        single = np.array([agent.act(v) for v in views])
        batched = agent.act_batch(batch)
        assert batched.dtype == np.int64 and batched.shape == (len(views),)
        np.testing.assert_array_equal(single, batched, err_msg=name)
        assert set(single.tolist()) <= legal
        assert len(set(single.tolist())) > 1, f"{name} always plays the same action"


def test_transitions_are_distributions() -> None:
    t = transitions()
    np.testing.assert_allclose(t.sum(axis=2), 1.0)
    np.testing.assert_array_equal(t[7], np.eye(56))
    assert t[0, 0, zz.MULTISETS.index((4, 5, 6))] == pytest.approx(6 / 216)
    q = throw_quantile(zz.load_ruleset("classic").table)
    assert q[zz.MULTISETS.index((4, 5, 6))] == pytest.approx(1 - 6 / 216)
    assert q.min() == 0.0


def test_heuristics_play_as_documented() -> None:
    rules = zz.load_ruleset("classic")
    table = rules.table
    greedy, threshold, escape = GreedyAgent(), ThresholdAgent(bar=0.7), EscapeAgent()

    def view(dice: tuple[int, int, int], rolls_used: int = 1, lowest: zz.Hand | None = None) -> View:
        return View(
            rules,
            0,
            2,
            dice,
            rolls_used,
            3,
            lowest is None,
            1 if lowest is None else 0,
            lowest,
            0 if lowest is None else 1,
            lowest,
            0,
            (20, 20),
            (True, True),
        )

    assert greedy.act(view((4, 5, 6))) == 7  # nothing beats standing on Zanzibar
    assert greedy.act(view((1, 1, 4))) == 0b011  # holds the two 100-point ones
    assert threshold.act(view((1, 1, 6))) == 7  # 260 points clears the bar
    assert threshold.act(view((2, 3, 4))) != 7
    low = table.score((2, 2, 3))
    assert escape.act(view((2, 3, 5), lowest=low)) == 7  # 10 > 7 points: safe, stop
    assert escape.act(view((2, 2, 3), lowest=table.score((2, 3, 5)))) != 7  # below: keep rolling


def test_agents_pickle_and_reseed() -> None:
    views = _collect_views(zz.load_ruleset("classic"), rounds=10, seed=3)
    for name in [*HEURISTICS, "random"]:
        agent = make_agent(name, seed=5)
        agent.act(views[0])
        clone = pickle.loads(pickle.dumps(agent))
        agent.seed(9)
        clone.seed(9)
        assert [agent.act(v) for v in views] == [clone.act(v) for v in views]


def _round_edge(rec: zz.RoundRecord, seat: int, rules: zz.Ruleset) -> float:
    """Seat's result minus the other's: chips shed (given minus received) or lives kept."""
    gain = np.array(rec.transfers, float) * (-1.0 if rules.stake == "chips" else 1.0)
    return float(gain[seat] - np.delete(gain, seat).mean())


@pytest.mark.parametrize("ruleset", ["classic", "lives"])
@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristic_beats_random(name: str, ruleset: str) -> None:
    """Duplicate 2-player rounds (each deal played with seats swapped): the edge is > 4 standard errors."""
    rules = zz.load_ruleset(ruleset)
    hero, rand = make_agent(name), make_agent("random", seed=0)
    edges = []
    for i in range(1000):
        a = zz.play_round(rules, [hero, rand], seed=i)
        b = zz.play_round(rules, [rand, hero], seed=i)
        edges.append((_round_edge(a, 0, rules) + _round_edge(b, 1, rules)) / 2)
    x = np.array(edges)
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert x.mean() > 4 * se, (name, ruleset, x.mean(), se)


def _save_tiny_model(path: Path, maskable: bool) -> Path:
    """An untrained SB3 model with the Zanzibar observation/action spaces, saved to ``path``."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    from zanzibar_env.core.observation import OBS_SIZE

    class Dummy(gym.Env):
        observation_space = gym.spaces.Box(-10.0, 10.0, (OBS_SIZE,), np.float32)
        action_space = gym.spaces.Discrete(8)

        def reset(self, *, seed=None, options=None):  # type: ignore[no-untyped-def]
            return np.zeros(OBS_SIZE, np.float32), {}

        def step(self, action):  # type: ignore[no-untyped-def]
            return np.zeros(OBS_SIZE, np.float32), 0.0, True, False, {}

        def action_masks(self) -> np.ndarray:
            return np.ones(8, bool)

    cls = MaskablePPO if maskable else PPO
    cls("MlpPolicy", Dummy(), n_steps=16, batch_size=16, seed=0, device="cpu").save(path)
    return path


@pytest.mark.parametrize("maskable", [True, False])
def test_ppo_agent_loads_acts_and_pickles(tmp_path: Path, maskable: bool) -> None:
    path = _save_tiny_model(tmp_path / "model.zip", maskable)
    agent = make_agent(f"ppo:{path}")
    for ruleset in (zz.load_ruleset("classic"), zz.load_ruleset("lives").replace(holds_allowed=False)):
        views = _collect_views(ruleset, rounds=8, seed=2)
        single = np.array([agent.act(v) for v in views])
        np.testing.assert_array_equal(single, agent.act_batch(ViewBatch.from_views(views)))
        legal = set(range(8)) if ruleset.holds_allowed else {0, 7}
        assert set(single.tolist()) <= legal
    clone = pickle.loads(pickle.dumps(agent))
    assert clone.model is None  # pickled as its path, reloaded lazily
    assert [clone.act(v) for v in views] == single.tolist()


@pytest.mark.parametrize("maskable", [True, False])
def test_ppo_agent_policy_probabilities(tmp_path: Path, maskable: bool) -> None:
    agent = make_agent(f"ppo:{_save_tiny_model(tmp_path / 'model.zip', maskable)}")
    for ruleset in (zz.load_ruleset("classic"), zz.load_ruleset("lives").replace(holds_allowed=False)):
        batch = ViewBatch.from_views(_collect_views(ruleset, rounds=8, seed=3))
        probs = agent.policy_probs_batch(batch)
        assert probs.shape == (len(batch), 8)
        np.testing.assert_allclose(probs.sum(1), 1.0)
        legal = np.array([ruleset.holds_allowed or a in (0, 7) for a in range(8)])
        assert (probs[:, ~legal] == 0).all() and (probs[:, legal] > 0).all()
        if maskable:  # the greedy action is the most likely one (unmasked models may pick an illegal one)
            np.testing.assert_array_equal(probs.argmax(1), agent.act_batch(batch))


def test_ppo_agent_bad_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no SB3 model file"):
        make_agent(f"ppo:{tmp_path / 'missing.zip'}")
    junk = tmp_path / "junk.zip"
    junk.write_text("not a model")
    with pytest.raises(ValueError, match="cannot load an SB3 model"):
        make_agent(f"ppo:{junk}")


def test_optimal_is_lazy_and_missing_module_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from zanzibar_env.core import registry

    monkeypatch.setitem(sys.modules, "zanzibar_env.agents.optimal", None)  # makes the import fail
    monkeypatch.setattr(registry, "_RUNTIME", {})  # forget a factory an earlier test in this worker loaded
    with pytest.raises(ValueError, match="agent 'optimal' is not available"):
        make_agent("optimal")


def test_a_module_attr_spec_is_not_listed_as_a_registered_bot() -> None:
    """Loading ``module:Attr`` once does not make it a registered name (other code enumerates those)."""
    from zanzibar_env.core.registry import available_agents, make_agent

    before = set(available_agents())
    make_agent("tests.hostile.hostile_bots:Stopper")
    assert set(available_agents()) == before


def test_bot_lists_in_messages_come_from_the_registry() -> None:
    """Messages that list bots read them from the registry (a bot registered later is listed too)."""
    from zanzibar_env.core.registry import agents_with, available_agents, spec_help

    assert set(agents_with("policy_table")) >= {"random", "greedy", "threshold", "escape", "optimal"}
    assert set(agents_with("policy_table")) <= set(available_agents())
    assert all(name in spec_help() for name in available_agents())
