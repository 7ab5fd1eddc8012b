"""The JAX env (zanzibar_env.jax) against the numpy vector env: the same game, step by step.

Both play the same scripted dice and actions (``skip_no_decision`` on and off, the same in both, the
vector env's ``SAME_STEP`` autoreset against ``Env.step_autoreset``); observations, masks, rewards and
episode ends must agree exactly (rewards to 1e-6: the JAX env sums them in float32).
Compiled functions are cached per configuration (compilation dominates the run time on 2 CPUs).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from zanzibar_env.core.dice import ScriptedDice  # noqa: E402
from zanzibar_env.core.rules import load_ruleset  # noqa: E402
from zanzibar_env.envs.vector import ZanzibarVectorEnv  # noqa: E402
from zanzibar_env.jax import Env, State, auto_reset  # noqa: E402

ROWS, STEPS, FACES = 6, 30, 3000

# (ruleset, overrides, players, opponents, learner seat, reward, episode, max_rounds): every shipped
# ruleset, every option value at least once, 2/3/5 players.
CASES: list[tuple[str, dict[str, Any], int, Any, int, str, str, int | None]] = [
    ("classic", {}, 2, "optimal", 1, "chips", "round", None),
    ("classic", {}, 3, "escape", 0, "win", "game", 4),
    ("alt_chips", {}, 5, "greedy", 2, "chips", "game", None),
    ("simple_scoring", {"final_hand": "best", "tie_rule": "all"}, 3, "optimal", 2, "chips", "round", None),
    ("lives", {}, 3, "threshold", 1, "win", "game", None),
    ("lives", {"payment": "lives_by_highest_hand", "instant_zanzibar": "worst_so_far_loses", "starting_stack": 2},
     5, "escape", 4,
     "chips", "game", None),
    ("penalty", {"penalty_limit": 4}, 2, "escape", 0, "win", "game", None),
    ("classic", {"holds_allowed": False, "first_roller_sets_limit": False, "max_rolls": 4}, 2, "greedy", 1,
     "win", "round", None),
    ("classic", {"instant_zanzibar": "worst_so_far_loses", "final_hand": "best"}, 5,
     ["greedy", "escape", "threshold", "greedy"], 3, "chips", "round", None),
    ("alt_chips", {"instant_zanzibar": "no_loss", "tie_rule": "all"}, 3, "escape", 1, "win", "round", None),
]  # fmt: skip


def _skips(case: int) -> bool:
    """Half the cases begin again episodes without a decision (``skip_no_decision``), half report them."""
    return case % 2 == 0


@cache
def _compiled(case: int, loops: str = "while") -> tuple[Env, Any, Any]:
    name, over, n, opp, seat, reward, episode, max_rounds = CASES[case]
    rules = load_ruleset(name, **over)
    env = Env(
        rules, n, opponents=opp, seat=seat, reward=reward, episode=episode, max_rounds=max_rounds,
        skip_no_decision=_skips(case), loops=loops,
    )  # fmt: skip
    return env, jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step_autoreset))


#: Cases run by ``make test``; the rest compile for ~20-40 s each and run with ``make test-slow``.
FAST_CASES = (0, 1)


@pytest.mark.parametrize("loops", ["while", "fixed"])  # the CPU's loops, and the accelerators' (forced)
@pytest.mark.parametrize(
    "case", [c if c in FAST_CASES else pytest.param(c, marks=pytest.mark.slow) for c in range(len(CASES))]
)
def test_jax_env_plays_the_vector_envs_game(case: int, loops: str) -> None:
    name, over, n, opp, seat, reward, episode, max_rounds = CASES[case]
    _env, init, step = _compiled(case, loops)
    faces = np.random.default_rng(case).integers(1, 7, (ROWS, FACES))
    vec = ZanzibarVectorEnv(
        ROWS, load_ruleset(name, **over), n, opponents=opp, seat=seat, reward=reward, episode=episode,
        max_rounds=max_rounds, skip_no_decision=_skips(case),
    )  # fmt: skip
    vec.set_dice_sources([ScriptedDice(f.tolist()) for f in faces])
    obs, info = vec.reset()
    state = init(jax.random.split(jax.random.PRNGKey(case), ROWS), jnp.asarray(faces))
    rng, ends, passes = np.random.default_rng(100 + case), 0, 0
    for t in range(STEPS):
        np.testing.assert_array_equal(np.asarray(state.observation), obs, err_msg=f"observation, step {t}")
        np.testing.assert_array_equal(np.asarray(state.legal_action_mask), info["action_mask"])
        waiting = ~np.asarray(state.terminated | state.truncated) | (np.asarray(state.passing) == 0)
        assert (np.asarray(state.current_player)[waiting] == seat).all()
        legal = info["action_mask"]
        act = np.array([rng.choice(np.flatnonzero(m)) for m in legal])
        obs, rew, term, trunc, info = vec.step(act)
        state = step(state, jnp.asarray(act, jnp.int32))
        got = np.asarray(state.rewards)[np.arange(ROWS), np.asarray(state.seat)]
        np.testing.assert_allclose(got, rew, rtol=0, atol=1e-6, err_msg=f"rewards, step {t}")
        np.testing.assert_array_equal(np.asarray(state.terminated), term, err_msg=f"terminated, step {t}")
        np.testing.assert_array_equal(np.asarray(state.truncated), trunc, err_msg=f"truncated, step {t}")
        ends += int((term | trunc).sum())
        passes += int((np.asarray(state.passing) > 0).sum())
    np.testing.assert_array_equal(np.asarray(state.observation), obs)
    assert ends > 0  # the comparison crossed episode ends
    if not _skips(case) and episode == "round" and over.get("first_roller_sets_limit", True):
        assert passes > 0  # and episodes that ended before the learner's decision (a limit of one roll)


@pytest.mark.slow
def test_rewards_are_zero_sum_in_chip_rulesets_and_random_opponents_play_legal_masks() -> None:
    env = Env("classic", 3, opponents="random", episode="game", reward="chips", skip_no_decision=False)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step_autoreset))
    state = init(jax.random.split(jax.random.PRNGKey(0), 64))
    total = np.zeros(64)
    for _ in range(40):
        state = step(state, jnp.full(64, 7, jnp.int32))
        total += np.asarray(state.rewards).sum(1)
    np.testing.assert_allclose(total, 0.0)  # the learner's gains are the bots' losses: chips conserved


@cache
def _small(holds: bool = True) -> tuple[Env, Any, Any]:
    """A 2-player env (greedy opponent, learner at seat 0, penalty -5) with its jitted init and step."""
    rules = load_ruleset("classic", holds_allowed=holds)
    env = Env(rules, 2, opponents="greedy", seat=0, illegal_action_penalty=-5.0)
    return env, jax.jit(env.init), jax.jit(env.step)


def test_illegal_action_ends_the_episode_with_the_penalty() -> None:
    _, init, step = _small()
    s = init(jax.random.PRNGKey(1))
    for bad in (8, -1):
        out = step(s, jnp.int32(bad))
        assert bool(out.terminated) and out.rewards.tolist() == [-5.0, 0.0]
        assert bool(out.legal_action_mask.all())
    again = step(out, jnp.int32(0))  # a finished state: unchanged, zero rewards (Pgx)
    assert bool(again.terminated) and not np.asarray(again.rewards).any()
    _, init2, step2 = _small(holds=False)
    s2 = init2(jax.random.PRNGKey(1))
    assert s2.legal_action_mask.tolist() == [True] + [False] * 6 + [True]
    out = step2(s2, jnp.int32(3))  # a hold where holds are not allowed
    assert bool(out.terminated) and float(out.rewards[0]) == -5.0


@pytest.mark.slow
def test_wrong_actions_are_reported_when_traced() -> None:
    env, init, step = _small()
    s = init(jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="shape"):
        step(s, jnp.zeros(2, jnp.int32))
    with pytest.raises(ValueError, match="integer"):
        step(s, 1.0)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 4))
    with pytest.raises(ValueError):
        jax.vmap(env.step)(states, jnp.zeros(5, jnp.int32))  # a batch of the wrong size


@pytest.mark.slow
def test_self_play_every_seat_acts_and_pgx_auto_reset_runs() -> None:
    env = Env("classic", 3, opponents=None, episode="round")
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 16))
    assert isinstance(state, State)
    seen, ends = set(), 0
    for k in range(12):
        seen |= set(np.asarray(state.current_player).tolist())
        state = step(state, jnp.zeros(16, jnp.int32), jax.random.split(jax.random.PRNGKey(k), 16))  # re-throw
        ends += int(np.asarray(state.terminated).sum())
        assert not np.asarray(state.terminated).any() or np.asarray(state.rewards).any()
    assert seen == {0, 1, 2} and ends > 0


def test_bad_arguments_name_the_problem() -> None:
    with pytest.raises(ValueError, match="num_players"):
        Env("classic", 9)

    class ActsOnly:  # a bot that acts in Python only: it cannot play inside the compiled step
        def act(self, view: Any) -> int:
            return 7

    with pytest.raises(ValueError, match="policy_table"):
        Env("classic", 2, opponents=ActsOnly())
    with pytest.raises(ValueError, match="opponents"):
        Env("classic", 3, opponents=["greedy"])
    with pytest.raises(ValueError, match="max_rolls"):
        Env(load_ruleset("classic", max_rolls=1), 2)
    with pytest.raises(ValueError, match="loops must be one of"):
        Env("classic", 2, loops="gpu")
    assert Env("classic", 2).loops == ("while" if jax.default_backend() == "cpu" else "fixed")


def test_bit_fields_hold_their_whole_ranges_and_leave_their_neighbours_alone() -> None:
    from zanzibar_env.jax._state import BITS, RANGES, empty_state

    s = empty_state(8, 33, 8, jnp.zeros(0, jnp.int32), jnp.uint32(1))
    assert (
        int(s.lo_rank) == int(s.hi_seat) == int(s.best_rank) == -1 and (np.asarray(s.hand_rank) == -1).all()
    )
    ranges = RANGES  # (the module checks each fits its bits; here every field at both ends)
    assert set(ranges) == set(BITS)
    rng = np.random.default_rng(0)
    for trial in range(40):
        values = {
            k: rng.integers(lo, hi + 1, 8 if BITS[k].word == "hands" else ())
            if trial > 1
            else np.full(8 if BITS[k].word == "hands" else (), (lo, hi)[trial])
            for k, (lo, hi) in ranges.items()
        }  # (the first two trials: every field at its lowest, then its highest value)
        t = s.replace(**values)
        for k, v in values.items():
            np.testing.assert_array_equal(
                np.asarray(getattr(t, k)), v.astype(bool) if k == "turn_over" else v, k
            )
        one = rng.choice(sorted(ranges))
        u = t.replace(**{one: values[one] * 0 + ranges[one][0]})
        for k, v in values.items():
            want = v * 0 + ranges[k][0] if k == one else v
            np.testing.assert_array_equal(np.asarray(getattr(u, k)).astype(int), want, k)
    with pytest.raises(TypeError):
        s.replace(no_such_field=1)
    assert State.ms is BITS["ms"]  # on the class: the field's description (help, docs)
