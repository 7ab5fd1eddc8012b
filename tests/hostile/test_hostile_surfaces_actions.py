"""Hostile inputs to the one action contract and the JAX env's boundary.

An action is an integer hold mask 0-7 of an integer dtype everywhere: the exact evaluator refuses what a
tournament refuses; the JAX env treats any other integer as Pgx's illegal action (the episode ends with
``illegal_action_penalty``) eagerly, under ``jit`` and under ``vmap``; JAX states carry their env's
identity and refuse out-of-range bit fields. Each case pairs an input with the message it now gets."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from zanzibar_env.core.engine import View


class _Answers:
    """A bot with only ``act(view)`` (the documented protocol) that answers ``value``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def act(self, view: View) -> Any:
        return self.value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (6.9, r"action must be an integer hold mask 0-7 .* from agent '_Answers', got 6.9"),
        ("7", r"action must be an integer hold mask 0-7 .* got '7'"),
        (np.float64(7.0), r"action must be an integer hold mask 0-7 .* got"),
        (9, r"illegal action 9 .* legal hold masks are \[0, 1, 2, 3, 4, 5, 6, 7\]"),
        (True, r"action must be an integer hold mask 0-7 .* got True"),
    ],
)
def test_the_exact_evaluator_holds_answers_to_the_action_contract(value: Any, message: str) -> None:
    from zanzibar_env.agents.exact import exploitability

    with pytest.raises(ValueError, match=message):
        exploitability(_Answers(value), "classic")


def test_an_act_only_bot_is_evaluated_exactly() -> None:
    from zanzibar_env.agents.exact import exploitability

    stop = exploitability(_Answers(7), "classic")["average"]
    assert stop == pytest.approx(exploitability(_Answers(np.int64(7)), "classic")["average"]) and stop > 0


jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(scope="module")
def env_state() -> tuple[Any, Any]:
    from zanzibar_env.jax.env import Env

    env = Env(seat=0)
    return env, env.init(jax.random.PRNGKey(0))


@pytest.mark.parametrize("action", [np.int64(2**32 + 3), 2**32 + 3, np.int64(-(2**32) + 3), -1, 8])
def test_an_out_of_range_integer_is_illegal_eagerly_not_wrapped(env_state: Any, action: Any) -> None:
    env, state = env_state
    out = env.step(state, action)
    assert bool(out.terminated) and float(out.rewards[0]) == -1.0


def test_out_of_range_actions_are_illegal_under_jit_and_vmap(env_state: Any) -> None:
    env, state = env_state
    assert bool(jax.jit(env.step)(state, jnp.int32(2**31 - 1)).terminated)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), 3))
    out = jax.vmap(env.step)(states, jnp.array([3, -5, 2**31 - 1], jnp.int32))
    assert out.terminated.tolist() == [False, True, True]


def test_a_float_action_is_refused_at_trace_time(env_state: Any) -> None:
    env, state = env_state
    with pytest.raises(ValueError, match=r"action must be an integer hold mask 0-7, got dtype float32"):
        env.step(state, 3.0)


def test_a_foreign_state_is_refused(env_state: Any) -> None:
    from zanzibar_env.jax.env import Env

    _, state = env_state
    with pytest.raises(ValueError, match=r"the state is not one of this env's: it is of 'classic@.* 2 players"
                       r".*', this env is 'lives@.* 3 players"):  # fmt: skip
        Env(ruleset="lives", num_players=3).step(state, 3)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"lo_rank": -5}, r"State.lo_rank must hold integers -1..63, got -5"),
        ({"ms": 56}, r"State.ms must hold integers 0..55, got 56"),
        ({"pos": 2.5}, r"State.pos must hold integers 0..8, got 2.5"),
    ],
)
def test_bit_fields_out_of_range_are_refused_not_wrapped(
    env_state: Any, changes: dict[str, Any], message: str
) -> None:
    _, state = env_state
    with pytest.raises(ValueError, match=message):
        state.replace(**changes)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"illegal_action_penalty": float("nan")},
            r"illegal_action_penalty must be a finite number, got nan",
        ),
        ({"illegal_action_penalty": True}, r"illegal_action_penalty must be a finite number, got True"),
        ({"skip_no_decision": "false"}, r"skip_no_decision must be True or False, got 'false'"),
        ({"skip_no_decision": 0}, r"skip_no_decision must be True or False, got 0"),
    ],
)
def test_env_options_are_checked(kwargs: dict[str, Any], message: str) -> None:
    from zanzibar_env.jax.env import Env

    with pytest.raises(ValueError, match=message):
        Env(**kwargs)


@pytest.mark.parametrize("dice", [[0] * 9, [7, 1, 1], [1.5, 2, 3]])
def test_scripted_dice_are_faces(env_state: Any, dice: list[Any]) -> None:
    env, _ = env_state
    with pytest.raises(ValueError, match=r"dice must be die faces, integers 1..6"):
        env.init(jax.random.PRNGKey(0), dice=dice)
