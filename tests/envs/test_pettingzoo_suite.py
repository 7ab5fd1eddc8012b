"""PettingZoo's whole ``pettingzoo.test`` suite on the AEC and parallel envs, laid out as PettingZoo's own
envs are (``env``, ``raw_env`` and ``parallel_env`` in one module)."""

from __future__ import annotations

import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)

from zanzibar_env.envs import multiagent
from zanzibar_env.envs.parallel import parallel_env


def test_the_module_holds_env_raw_env_and_parallel_env() -> None:
    assert multiagent.parallel_env is parallel_env
    assert isinstance(multiagent.env().unwrapped, multiagent.raw_env)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        multiagent.nope  # noqa: B018


@pytest.mark.parametrize("players", [2, 4])
def test_api_tests(players: int) -> None:
    api_test(multiagent.env(num_players=players), num_cycles=300)
    parallel_api_test(parallel_env(num_players=players), num_cycles=300)


def test_seed_tests() -> None:
    seed_test(multiagent.env, num_cycles=200)
    parallel_seed_test(parallel_env, num_cycles=200)


def test_max_cycles_test() -> None:
    max_cycles_test(multiagent)


@pytest.mark.parametrize("players", [2, 3])
def test_max_cycles_counts_each_agents_decisions(players: int) -> None:
    """AEC: every agent decides exactly max_cycles times, then truncates; parallel: max_cycles steps."""
    env = multiagent.env(num_players=players, max_cycles=5)
    env.reset(seed=1)
    decisions = dict.fromkeys(env.possible_agents, 0)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if not (term or trunc):
            decisions[agent] += 1
        env.step(None if term or trunc else 7)
    assert set(decisions.values()) == {5}
    par = parallel_env(num_players=players, max_cycles=5)
    par.reset(seed=1)
    for step in range(1, 6):
        _, _, terms, truncs, _ = par.step(dict.fromkeys(par.agents, 7))
        assert all(truncs.values()) == (step == 5) and not any(terms.values())
    assert par.agents == []


def test_render_test() -> None:
    render_test(multiagent.env)


def test_state_test() -> None:
    state_test(multiagent.env(), parallel_env())


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_max_cycles_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(ValueError, match="max_cycles must be None or a positive integer"):
        multiagent.raw_env(max_cycles=bad)
    with pytest.raises(ValueError, match="max_cycles must be None or a positive integer"):
        parallel_env(max_cycles=bad)
