"""The single-agent Gymnasium env: checkers, encoding, rewards, determinism, bad input."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import zanzibar_env  # noqa: F401  (registers the ids)
from tests.oracles import reference_obs
from zanzibar_env.core.dice import RandomDice
from zanzibar_env.core.game import GameState
from zanzibar_env.core.observation import decode, encode
from zanzibar_env.core.rules import available_rulesets, load_ruleset
from zanzibar_env.envs.env import RoundEncoder, ZanzibarEnv

IDS = ("Zanzibar-v1", "ZanzibarRound-v1")


@pytest.mark.parametrize("ruleset", ["classic", "simple_scoring", "alt_chips", "lives", "penalty"])
@pytest.mark.parametrize("env_id", IDS)
def test_checkers_pass(env_id: str, ruleset: str) -> None:
    assert ruleset in available_rulesets()
    check_env(gym.make(env_id, ruleset=ruleset).unwrapped, skip_render_check=True)
    sb3_check_env(gym.make(env_id, ruleset=ruleset), warn=False)


def test_make_with_prefix_in_a_fresh_interpreter() -> None:
    import subprocess
    import sys

    code = (
        "import gymnasium as gym; e = gym.make('zanzibar_env:ZanzibarRound-v1', num_players=3); "
        "print(e.reset(seed=0)[0].shape)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(33,)"


@pytest.mark.parametrize("ruleset", ["classic", "alt_chips", "lives", "simple_scoring"])
def test_fast_encoding_is_identical(ruleset: str) -> None:
    rules = load_ruleset(ruleset)
    rng = np.random.default_rng(0)
    checked, fast = 0, RoundEncoder(rules)
    for n in (2, 3, 5, 8):
        g = GameState(rules, n, RandomDice(1), max_rounds=30)
        while g.current_seat is not None:
            v = g.view()
            np.testing.assert_array_equal(fast(g.round), encode(v))
            np.testing.assert_array_equal(encode(v), reference_obs(v))  # the independent oracle
            checked += 1
            g.apply(int(rng.integers(8)))
    assert checked > 300
    env = ZanzibarEnv(ruleset=rules, num_players=4, max_rounds=30)  # the env's cached encoder
    obs, _ = env.reset(seed=3)
    for _ in range(400):
        if env.game is not None and not env._ended:
            np.testing.assert_array_equal(obs, encode(env.game.round.view()))
        obs, _, te, tr, _ = env.step(int(rng.integers(8)))
        if te or tr:
            obs, _ = env.reset()


def test_same_seed_same_trajectory() -> None:
    def run() -> list[object]:
        env = gym.make("Zanzibar-v1", num_players=4, ruleset="lives")
        env.action_space.seed(5)
        out: list[object] = [env.reset(seed=42)]
        for _ in range(1000):
            o, r, te, tr, info = env.step(env.action_space.sample())
            out.append((o.tolist(), r, te, tr, info["action_mask"].tolist(), info["rounds"]))
            if te or tr:
                out.append(env.reset())
        return out

    a, b = run(), run()
    assert repr(a) == repr(b)


def _play_out(env: gym.Env, seed: int, action: int = 7) -> tuple[float, np.ndarray, int]:
    env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        obs, r, te, tr, _info = env.step(action)
        total, steps = total + r, steps + 1
        if te or tr:
            return total, obs, steps


@pytest.mark.parametrize("ruleset", ["classic", "alt_chips", "lives"])
def test_chips_reward_sums_to_stack_change(ruleset: str) -> None:
    rules = load_ruleset(ruleset)
    for seed in range(5):
        env = ZanzibarEnv(ruleset=rules, num_players=3, max_rounds=25)
        total, obs, _ = _play_out(env, seed)
        final = decode(obs, rules)["stacks"][0]
        sign = -1 if rules.stake == "lives" else 1  # chips given away count +, lives lost count -
        assert total == sign * (rules.starting_stack - final)


def test_win_reward_values() -> None:
    seen = set()
    for seed in range(12):
        env = ZanzibarEnv(ruleset=load_ruleset("classic", starting_stack=3), num_players=3, reward="win")
        total, _, _ = _play_out(env, seed)
        seen.add(total)
        assert total in (-1.0, 1.0, 0.5, 1 / 3)
    assert -1.0 in seen and 1.0 in seen


def test_hand_traced_round() -> None:
    # seat 0 (agent) throws 4-5-6 and stops (limit 1); seat 1 throws 2-3-4 (9 points) and receives 4 chips
    env = ZanzibarEnv(
        num_players=2, seat=0, opponents="random", dice=[6, 5, 4, 4, 3, 2, 1, 1, 1], episode="round"
    )
    obs, info = env.reset(seed=0)
    d = decode(obs, env.rules)
    assert d["dice"] == (4, 5, 6) and d["is_first"] and d["rolls_used"] == 1 and d["players_after"] == 1
    obs, r, te, tr, info = env.step(7)
    assert (r, te, tr) == (4.0, True, False)
    rec = info["rounds"][0]
    assert rec.losers == [1] and rec.transfers == [-4, 4]
    assert decode(obs, env.rules)["stacks"] == (16, 24)


def test_round_env_pass_state() -> None:
    # seat 0 (bot, always stops) sets a limit of one roll: the agent at seat 1 has no decision
    class Stop:
        def act(self, view: object) -> int:
            return 7

    env = ZanzibarEnv(num_players=2, seat=1, opponents=Stop(), dice=[1, 1, 1, 2, 3, 5], episode="round")
    obs, info = env.reset()
    assert info["action_mask"].tolist() == [1] * 8 and (obs[:16] == 0).all()
    obs, r, te, _tr, info = env.step(3)
    assert te and r == -3.0  # 1-1-1 (three of a kind) beat 2-3-5: the agent gives 3 chips
    with pytest.raises(RuntimeError, match="reset"):
        env.step(7)


def test_masks_and_illegal_actions() -> None:
    rules = load_ruleset("classic", holds_allowed=False)
    env = ZanzibarEnv(ruleset=rules, seat=0)
    _obs, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [1, 0, 0, 0, 0, 0, 0, 1]
    assert env.action_masks().tolist() == [True] + [False] * 6 + [True]
    with pytest.raises(ValueError, match="illegal action 3"):
        env.step(3)
    with pytest.raises(ValueError, match="illegal action 8"):
        _step(ZanzibarEnv(seat=0), 8)
    with pytest.raises(ValueError, match="integer"):
        _step(ZanzibarEnv(seat=0), 1.5)


def _step(env: ZanzibarEnv, action: object) -> None:
    env.reset(seed=0)
    env.step(action)


@pytest.mark.filterwarnings("ignore:.*render_mode")
def test_errors_before_reset_and_bad_arguments() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        ZanzibarEnv().step(0)
    bad = [
        (dict(ruleset="nope"), "ruleset"),
        (dict(opponents="nobody"), "unknown agent"),
        (dict(seat=2), "seat"),
        (dict(seat="left"), "seat"),
        (dict(num_players=1), "num_players"),
        (dict(num_players=9), "num_players"),
        (dict(num_players=3, opponents=["random"]), "opponents"),
        (dict(opponents="models/missing.zip"), "not found"),
        (dict(opponents="ppo:missing.zip"), "not found"),
        (dict(reward="money"), "reward"),
        (dict(render_mode="video"), "render_mode"),
        (dict(max_rounds=0), "max_rounds"),
    ]
    for kwargs, match in bad:
        with pytest.raises(ValueError, match=match):
            ZanzibarEnv(**kwargs)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=match):
            gym.make("Zanzibar-v1", **kwargs)


def test_opponents_forms_and_truncation() -> None:
    from zanzibar_env.agents import RandomAgent

    env = ZanzibarEnv(num_players=3, opponents=[RandomAgent(1), "random"], max_rounds=2)
    _, _, steps = _play_out(env, 0)
    assert env._trunc and len(env.game.record.rounds) == 2  # type: ignore[union-attr]
    assert steps >= 1


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make("Zanzibar-v1", render_mode="human")
    env.reset(seed=0)
    env.step(7)
    assert capsys.readouterr().out.strip()
    env = gym.make("Zanzibar-v1", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text
    env = gym.make("ZanzibarRound-v1", render_mode="rgb_array", num_players=3)
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.dtype == np.uint8
