"""Hostile inputs to the OpenSpiel games and bots: no code from a string, clear Python errors, not C++ checks.

Each case pairs an input with the message it now gets. A crafted state string with a pickle that would
create a file is given to ``game.deserialize_state`` and ``pyspiel.deserialize_game_and_state``: the
file must not appear."""

from __future__ import annotations

import base64
import os
import pickle
import random
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

import zanzibar_env.envs.openspiel  # noqa: E402,F401  (registers the games)
from zanzibar_env.core.registry import make_agent  # noqa: E402
from zanzibar_env.envs.openspiel.serial import HEADER  # noqa: E402

from .hostile import Case, classify  # noqa: E402


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def _played(name: str = "python_zanzibar", players: int = 3, moves: int = 40, seed: int = 1) -> Any:
    game = pyspiel.load_game(name, {"players": players})
    state, rng = game.new_initial_state(), random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        options = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(options))
    return game, state


def _pickled_state(marker: Path) -> str:
    return "history=\nmove_number=0\n__dict__=" + base64.b64encode(pickle.dumps(_Payload(marker))).decode()


def test_a_state_round_trips_as_its_action_history() -> None:
    game, state = _played()
    text = state.serialize()
    assert text.startswith(HEADER + "\nhistory=") and "__dict__" not in text
    again = game.deserialize_state(text)
    assert str(again) == str(state) and again.history() == state.history()
    full = pyspiel.serialize_game_and_state(game, state)
    assert "__dict__" not in full
    game2, state2 = pyspiel.deserialize_game_and_state(full)
    assert str(game2) == str(game) and str(state2) == str(state)


@pytest.mark.parametrize("via", ["game.deserialize_state", "pyspiel.deserialize_game_and_state"])
def test_a_pickle_payload_is_never_run(tmp_path: Path, via: str) -> None:
    marker = tmp_path / "ran"
    game, state = _played("python_zanzibar_round", 2, 3)
    crafted = _pickled_state(marker)
    if via == "game.deserialize_state":
        run = lambda: game.deserialize_state(crafted)  # noqa: E731
    else:
        full = pyspiel.serialize_game_and_state(game, state).replace(state.serialize(), crafted)
        run = lambda: pyspiel.deserialize_game_and_state(full)  # noqa: E731
    with pytest.raises(ValueError, match=r"holds a pickle .* nothing was unpickled"):
        run()
    assert not marker.exists()


BAD_STATE_STRINGS = {
    "garbage": r"not a Zanzibar state string: expected 'zanzibar-state 1'",
    "": r"not a Zanzibar state string",
    f"{HEADER}\nhistory=5,x": r"not a Zanzibar state string",
    f"{HEADER}\nhistory=-1:5": r"not a Zanzibar state string",
    f"{HEADER}\nhistory=99999": r"not a Zanzibar state string",
    f"{HEADER}\nhistory=200": r"action 0 of the state string \(200\) is not legal for chance",
    f"{HEADER}\nhistory=5,100": r"action 1 of the state string \(100\) is not legal for seat 0",
    f"{HEADER}\nhistory=" + ",".join(["5"] * 5000): r"has 5000 actions; this game ends within",
}


@pytest.mark.parametrize("text", sorted(BAD_STATE_STRINGS))
def test_malformed_state_strings_get_one_clear_error(text: str) -> None:
    game = pyspiel.load_game("python_zanzibar_round")
    with pytest.raises(ValueError, match=BAD_STATE_STRINGS[text]):
        game.deserialize_state(text)
    assert classify(Case(f"deserialize {text[:20]!r}", lambda: game.deserialize_state(text)))[0] == "clear"


def test_a_state_built_from_a_view_refuses_to_serialize() -> None:
    from zanzibar_env.envs.openspiel.bots import state_from_view, view_of

    game, played = _played("python_zanzibar_round", 2, 1)
    state = state_from_view(view_of(played.round), game)
    with pytest.raises(ValueError, match=r"state built from a view .* no action history"):
        state.serialize()


def test_a_foreign_game_string_is_named() -> None:
    game, state = _played("python_zanzibar_round", 2, 3)
    full = pyspiel.serialize_game_and_state(game, state).replace("players=2", "players=99")
    with pytest.raises(ValueError, match=r"players"):
        pyspiel.deserialize_game_and_state(full)


PLAYER_CALLS = {
    "observation_tensor(5)": (
        lambda s: s.observation_tensor(5),
        r"observation_tensor: player must be a seat 0..1",
    ),
    "observation_tensor(-3)": (lambda s: s.observation_tensor(-3), r"player must be a seat 0..1 .* got -3"),
    "observation_tensor() at chance": (lambda s: s.observation_tensor(), r"no seat acts: pass a seat 0..1"),
    "observation_string(9)": (lambda s: s.observation_string(9), r"observation_string: player must be"),
    "information_state_tensor(2.0)": (lambda s: s.information_state_tensor(2.0), r"got 2.0"),
    "information_state_string('0')": (lambda s: s.information_state_string("0"), r"got '0'"),
    "legal_actions(5)": (lambda s: s.legal_actions(5), r"legal_actions: player must be a seat"),
    "apply_action(-1)": (
        lambda s: s.clone().apply_action(-1),
        r"action must be an integer id 0..383, got -1",
    ),
    "apply_action(2.5)": (lambda s: s.clone().apply_action(2.5), r"action must be an integer id"),
    "action_to_string(0, 99)": (lambda s: s.action_to_string(0, 99), r"action 99 is not a hold mask 0..7"),
}


@pytest.mark.parametrize("call", sorted(PLAYER_CALLS))
def test_bad_players_and_actions_get_python_errors_not_cpp_checks(call: str) -> None:
    state = pyspiel.load_game("python_zanzibar_round").new_initial_state()
    fn, message = PLAYER_CALLS[call]
    with pytest.raises(ValueError, match=message):
        fn(state)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"simulations": 0}, r"openspiel:mcts simulations must be an integer 1..1000000, got 0"),
        ({"rollouts": 0}, r"openspiel:mcts rollouts must be an integer 1..10000, got 0"),
        ({"simulations": 2.5}, r"simulations must be an integer .* got 2.5"),
        ({"uct_c": float("nan")}, r"uct_c must be a finite number >= 0.0, got nan"),
    ],
)
def test_mcts_options_are_refused_when_the_agent_is_made(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent("openspiel:mcts", **options)
