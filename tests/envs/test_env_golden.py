"""The single env's exact outputs for seeded runs, pinned: observations, rewards, flags, infos, records.

Each digest below was recorded with the code of main at 6aa98d1 (before the single-env speed work) by
:func:`trajectory_digest`; a speed-up must leave every observation, reward, info and dice stream of a
seed unchanged. If a deliberate behaviour change moves a digest, bump the env version (``-vN``) and
re-record (``python -m tests.envs.test_env_golden`` prints the digests).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pytest

from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.envs.env import ZanzibarEnv

#: name -> (ZanzibarEnv keyword arguments, ruleset overrides); every ruleset and option family once.
CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "classic_2p": (dict(ruleset="classic", num_players=2), {}),
    "classic_4p_greedy_win": (dict(ruleset="classic", num_players=4, opponents="greedy", reward="win"), {}),
    "alt_chips_3p_onehot": (dict(ruleset="alt_chips", num_players=3, obs_type="onehot", seat=1), {}),
    "lives_5p": (dict(ruleset="lives", num_players=5, opponents=["greedy", "random"] * 2), {}),
    "penalty_3p_dict_win": (dict(ruleset="penalty", num_players=3, obs_type="dict", reward="win"), {}),
    "simple_round": (dict(ruleset="simple_scoring", num_players=3, episode="round"), {}),
    "round_skip_win": (dict(num_players=4, episode="round", reward="win", skip_no_decision=True), {}),
    "best_noholds_cap": (dict(num_players=3, max_rounds=3), dict(final_hand="best", holds_allowed=False)),
    "lives_worst_so_far": (
        dict(ruleset="lives", num_players=4),
        dict(instant_zanzibar="worst_so_far_loses", first_roller_sets_limit=True),
    ),
}

#: digests recorded at main 6aa98d1 (300 steps each, seed 7)
EXPECTED = {
    "classic_2p": "15f9f9c1aea6db357e9a0ef4",
    "classic_4p_greedy_win": "37336da47dbbd70c217a5116",
    "alt_chips_3p_onehot": "1ac888bf03134b7af3d12cf1",
    "lives_5p": "3d93e933938f42724d6567c8",
    "penalty_3p_dict_win": "5941644627ef026242b86bdb",
    "simple_round": "dec3b8ea3666d5cb8d37a1b3",
    "round_skip_win": "1d5500075ee828b8dd12a10e",
    "best_noholds_cap": "11787668d89e6bc8018ddd9f",
    "lives_worst_so_far": "d2944d2e122745ecce2de00e",
}


def _feed(h: Any, obs: Any, info: dict[str, Any], *rest: object) -> None:
    """Hash one reset or step output exactly (float32 bytes, reprs of the scalars, records as JSON)."""
    parts = obs.values() if isinstance(obs, dict) else [obs]
    for p in parts:
        h.update(np.asarray(p).tobytes())
    h.update(repr(rest).encode())
    mask = info["action_mask"]
    flags = (mask.dtype.str, mask.tolist(), info["seat"], info["no_decision"], info["num_rounds"])
    h.update(repr(flags).encode())
    h.update(json.dumps([r.to_dict() for r in info["rounds"]], sort_keys=True).encode())
    assert sorted(info) == ["action_mask", "no_decision", "num_rounds", "rounds", "seat"]


def trajectory_digest(name: str, steps: int = 300, seed: int = 7) -> str:
    """sha256 of a seeded run of case ``name``: masked random actions, resets as episodes end."""
    kwargs, overrides = CASES[name]
    kwargs = dict(kwargs)
    if overrides:
        kwargs["ruleset"] = load_ruleset(kwargs.get("ruleset", "classic"), **overrides)
    env = ZanzibarEnv(**kwargs)
    rng, h = np.random.default_rng(seed), hashlib.sha256()
    obs, info = env.reset(seed=seed)
    _feed(h, obs, info)
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, term, trunc, info = env.step(action)
        _feed(h, obs, info, reward, term, trunc)
        np.testing.assert_array_equal(env.action_masks(), info["action_mask"])
        if term or trunc:
            obs, info = env.reset()
            _feed(h, obs, info)
    return h.hexdigest()[:24]


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_trajectory_unchanged(name: str) -> None:
    assert trajectory_digest(name) == EXPECTED[name]


if __name__ == "__main__":
    for case in CASES:
        print(f'    "{case}": "{trajectory_digest(case)}",')
