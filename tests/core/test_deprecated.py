"""The old names kept for one release warn and behave as the new ones (``zanzibar_env.core.deprecated``)."""

from __future__ import annotations

import pytest

from zanzibar_env import GameState, RandomDice, RoundState, ScriptedDice, load_ruleset

DICE = [1, 1, 5, 1, 2, 5, 6, 1, 2, 3, 4, 5, 6, 4, 4, 2, 5, 1, 3, 6] * 4
ACTIONS = [0b011, 7, 0, 7, 7, 6, 7] * 8


def _play(state: RoundState | GameState, old: bool) -> list[object]:
    """Feed the same holds through ``act`` (old) or ``apply`` (new); the views seen along the way."""
    seen: list[object] = []
    for a in ACTIONS:
        if state.current_seat is None:
            break
        seen.append(state.view())
        if a not in state.legal_actions():
            a = 7
        if old:
            with pytest.warns(DeprecationWarning, match=r"\.act is deprecated.*use \w+\.apply"):
                state.act(a)
        else:
            state.apply(a)
    seen.append(state.current_seat)
    return seen


@pytest.mark.parametrize("make", ["round", "game"])
def test_state_act_warns_and_matches_apply(make: str) -> None:
    rules = load_ruleset("classic")

    def fresh() -> RoundState | GameState:
        if make == "round":
            return RoundState(rules, [5, 5, 5], 0, ScriptedDice(DICE))
        return GameState(rules, 3, RandomDice(11))

    new, old = fresh(), fresh()
    assert _play(old, old=True) == _play(new, old=False)


def test_the_warning_points_at_the_caller() -> None:
    state = RoundState(load_ruleset("classic"), [5, 5], 0, ScriptedDice(DICE))
    with pytest.warns(DeprecationWarning) as caught:
        state.act(7)
    assert caught[0].filename == __file__


def test_openspiel_round_act_warns_and_matches_apply() -> None:
    pytest.importorskip("pyspiel")
    from zanzibar_env.envs.openspiel import RoundMachine

    old, new = (RoundMachine(load_ruleset("classic"), [5, 5], 0) for _ in range(2))
    for m in (old, new):
        m.chance(m.chance_outcomes()[0][0])
    with pytest.warns(DeprecationWarning, match=r"RoundMachine\.act is deprecated.*RoundMachine\.apply"):
        old.act(7)
    new.apply(7)
    assert old.where() == new.where() and old.current_seat == new.current_seat


def test_jax_env_core_warns_and_is_the_engine() -> None:
    pytest.importorskip("jax")
    from zanzibar_env.jax import Env

    env = Env("classic", num_players=2)
    with pytest.warns(DeprecationWarning, match=r"Env\.core is deprecated.*Env\.games"):
        assert env.core is env.games
