"""The PettingZoo parallel env, ``state()``, observation types and numpy actions in both APIs."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, state_test

from zanzibar_env.core.onehot import onehot, ruleset_dims
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.envs.multiagent import env, raw_env
from zanzibar_env.envs.parallel import parallel_env

CONFIGS = [
    {},
    {"ruleset": "lives", "num_players": 4},  # agents leave one by one
    {"ruleset": "alt_chips", "num_players": 3, "reward": "win"},
    {"num_players": 5, "episode": "round"},
    {"ruleset": load_ruleset("classic", holds_allowed=False), "num_players": 2},
]


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_parallel_api_seed_and_state(kwargs: dict) -> None:
    parallel_api_test(parallel_env(**kwargs), num_cycles=300)
    parallel_seed_test(lambda: parallel_env(**kwargs), num_cycles=100)
    if raw_env(**kwargs).rules.holds_allowed:  # PettingZoo's state_test samples actions without the mask
        state_test(raw_env(**kwargs), parallel_env(**kwargs))


def _mask_policy(obs: dict, rng: np.random.Generator) -> dict:
    return {
        a: np.array(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else 0
        for a, o in obs.items()
    }


def test_parallel_equals_aec_and_takes_numpy_actions() -> None:
    par, aec = parallel_env(num_players=3, ruleset="lives"), raw_env(num_players=3, ruleset="lives")
    obs, _ = par.reset(seed=4)
    aec.reset(seed=4)
    rng_p, rng_a = np.random.default_rng(0), np.random.default_rng(0)
    totals_p = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        assert par.state().shape == par.state_space.shape
        acting = [a for a in par.agents if obs[a]["action_mask"].sum() > 1]  # the others: WAIT_MASK
        assert len(acting) == 1 and np.argmax(par.state()[33:]) == int(acting[0][-1])
        obs, rew, *_ = par.step(_mask_policy(obs, rng_p))
        for a, r in rew.items():
            totals_p[a] += r
    totals_a = dict.fromkeys(aec.possible_agents, 0.0)
    for _agent in aec.agent_iter():
        o, _, term, trunc, _ = aec.last()
        for a in aec.agents:
            totals_a[a] += aec.rewards[a]
        if term or trunc:
            aec.step(None)
            continue
        aec.step(np.array(rng_a.choice(np.flatnonzero(o["action_mask"]))))  # a 0-d numpy int
    assert totals_p == pytest.approx(totals_a)


def test_missing_or_bad_actions() -> None:
    par = parallel_env()
    par.reset(seed=0)
    with pytest.raises(ValueError, match="acting agent"):
        par.step({})
    with pytest.raises(ValueError, match="action"):
        par.step(dict.fromkeys(par.agents, np.array([1, 2])))


def test_onehot_obs_type_in_both_apis() -> None:
    api_test(env(obs_type="onehot"), num_cycles=100)
    e, flat = raw_env(obs_type="onehot"), raw_env()
    e.reset(seed=1)
    flat.reset(seed=1)
    a = e.agent_selection
    got, want = e.observe(a)["observation"], flat.observe(a)["observation"]
    np.testing.assert_array_equal(got, onehot(want, *ruleset_dims(load_ruleset("classic"))))
    par = parallel_env(obs_type="onehot")
    obs, _ = par.reset(seed=1)
    assert all(par.observation_space(a).contains(o) for a, o in obs.items())
    with pytest.raises(ValueError, match="obs_type"):
        raw_env(obs_type="image")
