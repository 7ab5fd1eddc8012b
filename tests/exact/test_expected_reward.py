"""``expected_reward``: the tables of ``agents.exact.turn_end``, the env's ``final_info`` they read, the wrapper."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from zanzibar_env.agents.exact import agent_policy, best_response, decision_states
from zanzibar_env.agents.exact.round import lookup, position_turns, seat_values, solve, successor_keys
from zanzibar_env.agents.exact.turn_end import turn_end_values
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.envs.sb3 import SB3VecEnv, make_sb3_env
from zanzibar_env.envs.vector import ZanzibarVectorEnv
from zanzibar_env.train.config.training import TrainConfig, load_config
from zanzibar_env.train.ppo import make_env
from zanzibar_env.train.sb3.expected_reward import ExpectedRoundReward
from zanzibar_env.train.sb3.opponents import build_opponents

RULESETS = ("classic", "simple_scoring", "alt_chips", "lives", "penalty")


def _rounds(ruleset: str, steps: int, seed: int = 1) -> dict[str, np.ndarray]:
    """Finished 2-player rounds of a learner acting at random against ``optimal``: sampled rewards and the
    ``final_info`` of each."""
    env = ZanzibarVectorEnv(
        128, ruleset=ruleset, opponents=make_agent("optimal"), episode="round", seed=seed,
        skip_no_decision=True,
    )  # fmt: skip
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    keys = ("hand_ranks", "first_roller", "roll_limit")
    out: dict[str, list[np.ndarray]] = {k: [] for k in ("reward", *keys)}
    for _ in range(steps):
        u = rng.random(info["action_mask"].shape) * info["action_mask"]
        _, rew, term, _, info = env.step(u.argmax(1))
        e = np.flatnonzero(term)
        out["reward"].append(rew[e])
        for k in keys:
            assert info["_final_info"][e].all()
            out[k].append(info["final_info"][k][e])
    return {k: np.concatenate(v) for k, v in out.items()}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rolling_second_the_table_is_the_reward_itself_unless_a_rolloff_is_left(ruleset: str) -> None:
    r = _rounds(ruleset, 60)
    x = turn_end_values(ruleset).expected(r["hand_ranks"], r["first_roller"], r["roll_limit"])
    second = r["first_roller"] == 1
    tie = r["hand_ranks"][:, 0] == r["hand_ranks"][:, 1]
    had_hand = r["hand_ranks"][:, 0] >= 0
    assert np.isnan(x[~had_hand]).all() and not np.isnan(x[had_hand]).any()
    sel = second & ~tie & had_hand
    assert sel.sum() > 500
    np.testing.assert_array_equal(x[sel], r["reward"][sel])  # nothing left to chance: exactly the result


@pytest.mark.parametrize("ruleset", ["classic", "lives"])
def test_rolling_first_the_table_is_the_mean_of_the_reward(ruleset: str) -> None:
    r = _rounds(ruleset, 200, seed=3)
    x = turn_end_values(ruleset).expected(r["hand_ranks"], r["first_roller"], r["roll_limit"])
    first = r["first_roller"] == 0
    diff = r["reward"][first] - x[first]  # zero mean if the table is the expectation given the hand
    se = diff.std() / np.sqrt(first.sum())
    assert first.sum() > 5000 and abs(diff.mean()) < 4 * se
    assert x[first].std() < 0.8 * r["reward"][first].std()  # and less noise
    assert (r["roll_limit"][first] >= 1).all() and (r["roll_limit"][first] <= 3).all()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_best_response_rolling_second_has_the_values_of_optimal(ruleset: str) -> None:
    """Why the exploiter may join: the first roller's stop values against any best response rolling second
    are the table's (here the best response to ``greedy`` rolling first), in every ruleset (lives rounds
    are not zero-sum, but the ties are broken alike)."""
    rules = load_ruleset(ruleset)
    ds = decision_states(rules)
    br = best_response(make_agent("greedy"), rules, seat=1)
    levels = solve(ds.spec, fixed={1: agent_policy(br, ds)[1]})
    start = levels[0].keys
    nxt = lookup(levels[1].keys, successor_keys(ds.spec, 0, start))
    stop = position_turns(ds.spec, 0, start, nxt, levels[1]).stop[0]  # [rolls or 1, 56]
    table = turn_end_values(rules).first
    m = np.array([k for k in range(56) if k != ds.spec.instant_m])  # (an instant hand ends the round)
    stop = np.broadcast_to(stop, (table.shape[0], 56))
    np.testing.assert_allclose(stop[:, m], table[:, ds.spec.rank_of_m[m]], atol=1e-9)
    both = solve(ds.spec, fixed={0: agent_policy(make_agent("greedy"), ds)[0], 1: agent_policy(br, ds)[1]})
    assert seat_values(ds.spec, both)[1] == pytest.approx(br.value, abs=1e-9)  # (it is that best response)


def test_final_info_joins_the_vector_envs_and_names_bad_keys() -> None:
    venv = make_sb3_env("ZanzibarRound-v1", 8, opponents="optimal", seed=0, skip_no_decision=True)
    both = SB3VecEnv([venv.venv, make_sb3_env("ZanzibarRound-v1", 4, opponents="optimal", seed=9).venv])
    both.reset()
    assert both.final_info("hand_ranks") is None  # nothing ended yet
    for _ in range(8):
        both.step_async(np.full(12, 7))  # stop at once
        _, _, done, _ = both.step_wait()
        if done.any():
            break
    ranks = both.final_info("hand_ranks")
    assert ranks is not None and ranks.shape == (12, 2)
    assert (ranks[done] >= 0).all() and (ranks[~done] == 0).all()
    with pytest.raises(KeyError):
        both.final_info("no_such_key")


def _cfg(*sets: str) -> TrainConfig:
    return load_config(overrides=list(sets))


def test_the_wrapper_pays_table_values_and_keeps_the_sampled_episode_return() -> None:
    cfg = _cfg("num_envs=16", "second_seat_frac=0.5", "expected_reward=true", "exploiter_frac=0")
    opp = build_opponents(cfg, run_dir=None)
    env = make_env(cfg, opp.opponents, opp.groups, opp.second)
    assert isinstance(env, ExpectedRoundReward)
    tv = turn_end_values("classic")
    allowed = set(np.round(tv.first, 6).ravel()) | set(np.round(tv.second[~np.isnan(tv.second)], 6).ravel())
    env.reset()
    paid, sampled = [], []
    for _ in range(40):
        env.step_async(np.full(16, 7))  # stop at once: first rollers end on one roll
        _, rew, done, infos = env.step_wait()
        for i in np.flatnonzero(done):
            paid.append(round(float(rew[i]), 6))
            sampled.append(infos[i]["episode"]["r"])
    assert len(paid) > 100 and set(paid) <= allowed
    assert set(sampled) <= {-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0}  # whole chips: sampled results
    assert paid != sampled


@pytest.mark.parametrize(
    "sets, names",
    [
        (["opponents=[greedy]"], "opponents"),
        (["num_players=3", "exploiter_frac=0", "second_seat_frac=0"], "num_players"),
        (["env_id=Zanzibar-v1", "second_seat_frac=0"], "env_id"),
        (["self_play=true"], "self_play"),
    ],
)
def test_configs_it_would_not_be_exact_for_are_refused(sets: list[str], names: str) -> None:
    with pytest.raises(ValueError, match=f"expected_reward.*{names}"):
        _cfg("expected_reward=true", *sets)


def test_a_tiny_run_trains_with_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.cli_args import set_args
    from tests.train.test_train import TINY
    from zanzibar_env.train import ppo

    args = [*TINY, "expected_reward=true", "total_timesteps=2048", "eval_freq=2048", f"runs_dir={tmp_path}"]
    assert ppo.main(set_args(args)) == 0
    assert "rounds pay their expected result (expected_reward)" in capsys.readouterr().out
    (run_dir,) = tmp_path.iterdir()
    assert load_config(run_dir / "config.yaml").expected_reward is True


def test_reward_noise_benchmark_prints_a_row_per_agent_and_seat(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import reward_noise

    assert reward_noise.main(["--agents", "optimal", "--rounds", "3000"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("optimal")]
    assert [r[1] for r in rows] == ["first", "second"]
    first = [float(x) for x in rows[0][2:6]]  # mean, sd sampled, sd expected, variance ratio
    assert first[2] < first[1] and first[3] > 1.5  # rolling first, the expectation removes half the variance
