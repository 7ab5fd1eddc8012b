"""The hostile-input suite: every input gives a clear one-line error or is valid and used;
no traceback, nothing wrongly accepted, nothing written or changed. ``python -m tests.hostile.hostile_report``
runs the same generators with a larger budget and prints the counts."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .hostile import Case, Tally, classify, run_cases
from .hostile_all import GENERATORS
from .hostile_cases import _replay, _sane_config, _sane_ruleset

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


def _assert_clean(tally: Tally) -> None:
    assert tally.tried > 0
    assert not tally.failures, "\n".join(tally.failures[:10])


@pytest.mark.parametrize("gen", GENERATORS, ids=lambda g: g.__name__)
def test_generated_hostile_inputs(gen: object, tmp_path: Path) -> None:
    tally = run_cases(gen(np.random.default_rng(11), tmp_path, 8))  # type: ignore[operator]
    _assert_clean(tally)
    assert tally.counts["clear"] > 0


def _check(case: Case) -> None:
    outcome, detail = classify(case)
    assert outcome in ("clear", "accepted"), f"{outcome}: {detail}"


@SETTINGS
@given(st.binary(max_size=400))
def test_random_bytes_as_replay_file(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("bytes") / "r.jsonl"
    path.write_bytes(data)
    _check(Case("bytes replay", lambda: _replay(path), bad=False))


@SETTINGS
@given(st.binary(max_size=400))
def test_random_bytes_as_ruleset_and_config(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    from zanzibar_env import load_ruleset
    from zanzibar_env.train.config.training import load_config

    path = tmp_path_factory.mktemp("bytes") / "x.yaml"
    path.write_bytes(data)
    _check(Case("bytes ruleset", lambda: load_ruleset(path), bad=False, valid=_sane_ruleset))
    _check(Case("bytes config", lambda: load_config(path), bad=False, valid=_sane_config))


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@SETTINGS
@given(st.sampled_from(["starting_stack", "max_rolls", "payments", "max_rounds", "stake", "name"]), JSONISH)
def test_any_value_for_a_ruleset_option(key: str, value: object) -> None:
    from zanzibar_env import load_ruleset

    d = load_ruleset("classic").to_dict()
    d[key] = value
    _check(Case(f"ruleset {key}={value!r}", lambda: load_ruleset(d), bad=False, valid=_sane_ruleset))


@SETTINGS
@given(st.sampled_from(["num_envs", "learning_rate", "seat", "eval_bots", "exp_name", "net_arch"]), JSONISH)
def test_any_value_for_a_config_key(key: str, value: object) -> None:
    from zanzibar_env.train.config.training import load_config

    override = f"{key}={json.dumps(value, allow_nan=True)}"
    _check(
        Case(f"--set {override}", lambda: load_config(overrides=[override]), bad=False, valid=_sane_config)
    )


@SETTINGS
@given(st.data())
def test_mutated_record_never_replays_as_valid(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    from zanzibar_env.core.game import play_game

    from .hostile_cases import _paths, _set, harmless_change

    good = play_game("classic", num_players=2, seed=3, max_rounds=3).to_dict()
    d = copy.deepcopy(good)
    where = data.draw(st.sampled_from(_paths(good)))
    new = data.draw(JSONISH)
    old = _set(d, where, new)
    benign = harmless_change(where, old, new, len(good["rounds"]))
    path = tmp_path_factory.mktemp("rec") / "r.jsonl"
    path.write_text(json.dumps(d))
    _check(Case(f"record {where}={new!r}", lambda: _replay(path), bad=not benign))


def test_every_game_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ruleset under which no chip moves is refused; anything long is truncated at the hard cap."""
    from zanzibar_env import load_ruleset
    from zanzibar_env.core.rules import MAX_GAME_ROUNDS
    from zanzibar_env.train import tournament
    from zanzibar_env.train.tournament import deals

    zero = dict.fromkeys(load_ruleset("classic").payments, 0)
    with pytest.raises(ValueError, match="no game could ever end"):
        load_ruleset("classic", payments=zero)
    with pytest.raises(ValueError, match="max_rounds"):
        load_ruleset("classic", max_rounds=MAX_GAME_ROUNDS + 1)
    monkeypatch.setattr(deals, "MAX_GAME_ROUNDS", 3)
    huge = load_ruleset("classic", starting_stack=10_000)
    result = tournament.run_tournament(["random", "greedy"], players=2, games=2, ruleset=huge, progress=False)
    assert all(g["rounds"] == 3 and g["truncated"] for g in result.games)


def test_ruleset_is_immutable_hashable_and_takes_numpy_ints() -> None:
    import pickle

    from zanzibar_env import load_ruleset

    rules = load_ruleset("classic")
    with pytest.raises(TypeError, match="read-only"):
        rules.payments["points"] = 0  # type: ignore[index]
    assert load_ruleset("classic").payments["points"] == 1
    assert hash(rules) == hash(load_ruleset("classic").replace(description=rules.description))
    assert {rules: 1}[pickle.loads(pickle.dumps(rules))] == 1
    assert rules.to_dict()["payments"] == dict(rules.payments) and type(rules.to_dict()["payments"]) is dict
    small = load_ruleset("classic", starting_stack=np.int64(9))
    assert small.starting_stack == 9 and type(small.starting_stack) is int
    for bad in (True, np.float64(9.0), 9.5, "9"):
        with pytest.raises(ValueError, match="starting_stack"):
            load_ruleset("classic", starting_stack=bad)


def test_numpy_seed_in_a_record_and_strict_dice() -> None:
    from zanzibar_env import load_ruleset
    from zanzibar_env.core.game import play_game

    rec = play_game("classic", seed=np.int64(4), max_rounds=2)
    assert json.loads(rec.to_json())["seed"] == 4
    rules = load_ruleset("classic")
    assert rules.score(np.array([6, 5, 4])).category == "zanzibar"
    for dice in ([4.9, 5, 6], "456", {4: 1, 5: 1, 6: 1}, {4, 5, 6}, [True, 5, 6]):
        with pytest.raises(ValueError, match=r"dice|die"):
            rules.score(dice)


def test_tournament_outputs_are_checked_first_and_never_stale(tmp_path: Path) -> None:
    from zanzibar_env.train.tournament import main

    base = ["--agents", "random,greedy", "--players", "2", "--games", "2", "--no-progress"]
    existing = tmp_path / "file.txt"
    existing.write_text("keep")
    assert main([*base, "--out", str(existing)]) == 2 and existing.read_text() == "keep"
    out = tmp_path / "res"
    assert main([*base, "--out", str(out), "--save-games"]) == 0 and (out / "games.jsonl").is_file()
    before = (out / "results.json").read_bytes()
    assert main([*base, "--out", str(out)]) == 2 and (out / "results.json").read_bytes() == before
    assert main([*base, "--out", str(out), "--force"]) == 0
    assert not (out / "games.jsonl").exists()  # no stale games beside the new results
    assert sorted(p.name for p in out.iterdir()) == [
        "games.csv",
        "results.json",
        "run.json",
        "tournament.png",
    ]


@SETTINGS
@given(
    st.lists(
        st.sampled_from(["--game", "--step", "0", "1", "2", "-1", "99", "x", "FILE", "DIR", "--"]), max_size=5
    )
)
def test_any_replay_command_line(tmp_path_factory: pytest.TempPathFactory, argv: list[str]) -> None:
    from zanzibar_env.core.game import play_game

    from .hostile import main_of

    tmp = tmp_path_factory.mktemp("argv")
    games = tmp / "g.jsonl"
    games.write_text(play_game("classic", seed=1, max_rounds=2).to_json() + "\n")
    argv = [str(games) if a == "FILE" else str(tmp) if a == "DIR" else a for a in argv]

    def run() -> int:
        import io

        from rich.console import Console

        buf = io.StringIO()
        code = main_of("zanzibar_env.ui.replay")(argv, console=Console(file=buf), interactive=False)
        if code:
            raise ValueError(buf.getvalue().strip().splitlines()[-1])
        return int(code)

    _check(Case(f"replay {argv}", run, bad=False, watch=[games]))


def test_engine_and_env_edges_named_by_the_hostile_suite() -> None:
    """Seats must be ints (not bools), numpy ints are welcome, over-long model paths are clear errors,
    and every game has a hard round cap even when the ruleset sets none."""
    import gymnasium as gym
    import numpy as np

    import zanzibar_env as zz
    from zanzibar_env.core.rules import MAX_GAME_ROUNDS

    with pytest.raises(ValueError, match="starting seat"):
        zz.play_round("classic", num_players=2, starting_seat=True, seed=0)  # type: ignore[arg-type]
    rec = zz.play_round("classic", stacks=[np.int64(5), np.int64(5)], starting_seat=np.int64(1), seed=0)
    assert rec.starting_seat == 1 and type(rec.stacks_before[0]) is int
    with pytest.raises(ValueError, match="not found"):
        gym.make("Zanzibar-v1", opponents="x" * 5000 + ".zip")
    assert zz.load_ruleset("classic").round_cap == MAX_GAME_ROUNDS
    assert zz.GameState(zz.load_ruleset("classic"), 2, zz.RandomDice(0)).max_rounds == MAX_GAME_ROUNDS
