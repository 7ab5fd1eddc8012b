"""The PettingZoo AEC env: PettingZoo's api_test and seed_test, rewards and elimination."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from zanzibar_env.core.observation import encode
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.envs.multiagent import env, raw_env


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"ruleset": "lives", "num_players": 4},
        {"ruleset": "alt_chips", "num_players": 3, "reward": "win"},
        {"num_players": 5, "episode": "round"},
        {"ruleset": load_ruleset("lives", starting_stack=2), "num_players": 3, "reward": "win"},
        # the options of RULES.md §7-§9
        {"ruleset": load_ruleset("penalty", num_rounds=3), "num_players": 3, "reward": "win"},
        {
            "ruleset": load_ruleset("lives", payment="lives_by_highest_hand", starting_stack=3),
            "num_players": 3,
        },
        {"ruleset": load_ruleset("classic", final_hand="best", starting_stack=4), "num_players": 2},
    ],
)
def test_pettingzoo_api_and_seed(kwargs: dict) -> None:
    api_test(env(**kwargs), num_cycles=300)
    seed_test(lambda: env(**kwargs), num_cycles=100)


def _play(e: raw_env, seed: int) -> dict[str, float]:
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        assert obs["action_mask"].sum() >= 2
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def test_chip_rewards_are_zero_sum_and_match_stacks() -> None:
    e = raw_env(ruleset="alt_chips", num_players=4, max_rounds=30)
    for seed in range(3):
        totals = _play(e, seed)
        assert sum(totals.values()) == 0
        assert e.game is not None
        for a, s in e._seat.items():
            assert totals[a] == 20 - e.game.stacks[s]


def test_win_rewards_and_elimination() -> None:
    e = raw_env(ruleset=load_ruleset("lives", starting_stack=2), num_players=4, reward="win")
    for seed in range(5):
        totals = _play(e, seed)
        winners = e.game.record.winners  # type: ignore[union-attr]
        k = len(winners)
        for a, s in e._seat.items():
            assert totals[a] == (pytest.approx(1 / k) if s in winners else -1.0)


def test_acting_agent_sees_single_env_encoding() -> None:
    e = raw_env(num_players=3)
    e.reset(seed=1)
    a = e.agent_selection
    obs = e.observe(a)
    np.testing.assert_array_equal(obs["observation"], encode(e.game.round.view()))  # type: ignore[union-attr]
    others = [b for b in e.agents if b != a]
    assert all(e.observe(b)["action_mask"].sum() == 0 for b in others)


def test_bad_input() -> None:
    for kwargs, match in [
        ({"num_players": 9}, "num_players"),
        ({"ruleset": "x"}, "ruleset"),
        ({"reward": "y"}, "reward"),
    ]:
        with pytest.raises(ValueError, match=match):
            raw_env(**kwargs)
    e = raw_env(ruleset=load_ruleset("classic", holds_allowed=False))
    e.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action 3"):
        e.step(3)
