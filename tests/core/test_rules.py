"""Rulesets as data: the shipped YAML files, loading by name or path, and validation of every option."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import zanzibar_env as zz
from zanzibar_env.core.rules import RULES_DIR

SHIPPED = ["alt_chips", "classic", "lives", "penalty", "simple_scoring"]


def test_available_rulesets() -> None:
    assert zz.available_rulesets() == SHIPPED


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "classic",
            dict(
                hand_ranking="zanzibar_456",
                one_points=100,
                six_points=60,
                stake="chips",
                starting_stack=20,
                max_rolls=3,
                first_roller_sets_limit=True,
                tie_rule="rolloff",
                payment="highest_hand",
                instant_zanzibar="off",
                max_rounds=None,
            ),
        ),
        ("simple_scoring", dict(one_points=1, six_points=6, payment="highest_hand", starting_stack=20)),
        (
            "penalty",
            dict(
                hand_ranking="zanzibar_421",
                stake="penalty",
                starting_stack=0,
                num_rounds=11,
                first_roller_sets_limit=False,
                tie_rule="all",
                payment="one_life",
                lives_lost=1,
                instant_zanzibar="no_loss",
                final_hand="last",
                max_rounds=None,
            ),
        ),
        ("alt_chips", dict(one_points=100, payment="own_hand", tie_rule="rolloff")),
        (
            "lives",
            dict(
                hand_ranking="zanzibar_421",
                stake="lives",
                starting_stack=11,
                max_rolls=3,
                first_roller_sets_limit=False,
                tie_rule="all",
                payment="one_life",
                lives_lost=1,
                instant_zanzibar="no_loss",
                holds_allowed=True,
                final_hand="last",
                num_rounds=None,
            ),
        ),
    ],
)
def test_shipped_values(name: str, expected: dict[str, Any]) -> None:
    rules = zz.load_ruleset(name)
    assert rules.name == name
    for key, value in expected.items():
        assert getattr(rules, key) == value, key
    assert rules.lives_table == {"zanzibar": 1, "three_of_a_kind": 1, "pair": 1, "sum": 1}
    if rules.stake == "chips":
        assert rules.final_hand == "last" and rules.num_rounds is None
        assert rules.payments == {"points": 1, "one_two_three": 2, "three_of_a_kind": 3, "zanzibar": 4}


@pytest.mark.parametrize("name", SHIPPED)
def test_load_by_path_equals_by_name(name: str) -> None:
    by_path = zz.load_ruleset(RULES_DIR / f"{name}.yaml")
    assert by_path == zz.load_ruleset(name) == zz.load_ruleset(str(RULES_DIR / f"{name}.yaml"))
    assert zz.Ruleset.from_dict(by_path.to_dict()) == by_path
    assert zz.load_ruleset(by_path) is by_path


def test_overrides_and_replace() -> None:
    r = zz.load_ruleset("classic", starting_stack=5, tie_rule="all")
    assert (r.starting_stack, r.tie_rule, r.name) == (5, "all", "classic")
    assert r.replace(max_rounds=7).max_rounds == 7
    assert zz.load_ruleset(r, max_rolls=2).max_rolls == 2
    assert zz.load_ruleset({"name": "mine", "max_rolls": 1}).max_rolls == 1
    assert r.payment_of("zanzibar") == 4 and zz.load_ruleset("lives").payment_of("zanzibar") == 1


def _write(tmp_path: Path, data: Any, text: str | None = None) -> Path:
    path = tmp_path / "rules.yaml"
    path.write_text(text if text is not None else yaml.safe_dump(data))
    return path


def _classic_with(**changes: Any) -> dict[str, Any]:
    data = yaml.safe_load((RULES_DIR / "classic.yaml").read_text())
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"colour": "red"}, r"unknown ruleset key\(s\) \['colour'\]"),
        ({"max_rolls": "three"}, r"'max_rolls' must be an integer in 1\.\.6"),
        ({"max_rolls": 0}, r"'max_rolls' must be an integer in 1\.\.6, got 0"),
        ({"max_rolls": 7}, r"'max_rolls'.*got 7"),
        ({"max_rolls": True}, r"'max_rolls'"),
        ({"max_rolls": 2.5}, r"'max_rolls'"),
        ({"starting_stack": 0}, r"'starting_stack' must be an integer in 1\.\.10000"),
        ({"starting_stack": None}, r"'starting_stack'"),
        ({"tie_rule": "coin"}, r"'tie_rule' must be one of \['rolloff', 'all'\], got 'coin'"),
        ({"stake": "money"}, r"'stake' must be one of"),
        ({"hand_ranking": "poker"}, r"'hand_ranking' must be one of"),
        ({"payment": "everyone"}, r"'payment' must be one of"),
        ({"instant_zanzibar": "yes"}, r"'instant_zanzibar' must be one of"),
        ({"instant_zanzibar": False}, r"'instant_zanzibar' must be one of .*got False"),  # unquoted `off`
        ({"holds_allowed": "yes"}, r"'holds_allowed' must be true or false"),
        ({"first_roller_sets_limit": 1}, r"'first_roller_sets_limit' must be true or false"),
        ({"max_rounds": 0}, r"'max_rounds' must be null or a positive integer"),
        ({"max_rounds": "ten"}, r"'max_rounds'"),
        ({"payments": {"points": 1}}, r"'payments' must have exactly the keys"),
        ({"payments": [1, 2, 3, 4]}, r"'payments' must be a mapping"),
        (
            {"payments": {"points": -1, "one_two_three": 2, "three_of_a_kind": 3, "zanzibar": 4}},
            r"'payments\.points' must be an integer in 0\.\.10",
        ),
        ({"one_points": 1001}, r"'one_points'"),
        ({"lives_lost": 0}, r"'lives_lost'"),
        (
            {"stake": "lives"},
            r"'payment' must be one of \['one_life', 'lives_by_highest_hand'\] exactly when",
        ),
        ({"payment": "one_life"}, r"got stake 'chips', payment 'one_life'"),
        ({"hand_ranking": "zanzibar_421"}, r"chip payments by category need hand_ranking 'zanzibar_456'"),
        ({"name": 3}, r"'name' must be a string"),
    ],
)
def test_bad_yaml_value_raises(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    path = _write(tmp_path, _classic_with(**changes))
    with pytest.raises(ValueError, match=message) as info:
        zz.load_ruleset(path)
    assert str(path) in str(info.value), "the error names the file"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("just a string\n", "must be a mapping of options"),
        ("", "must be a mapping of options"),
        ("max_rolls: [1, 2\n", "not valid YAML"),
        ("max_rolls: 2\n", "needs a 'name'"),
    ],
)
def test_bad_yaml_file_raises(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        zz.load_ruleset(_write(tmp_path, None, text))


def test_unknown_name_and_missing_file() -> None:
    with pytest.raises(ValueError, match=r"unknown ruleset 'clasic'; available: \['alt_chips', 'classic'"):
        zz.load_ruleset("clasic")
    with pytest.raises(ValueError, match="ruleset file not found"):
        zz.load_ruleset("/nonexistent/rules.yaml")
    with pytest.raises(ValueError, match="must be a name, a path, a mapping or a Ruleset"):
        zz.load_ruleset(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"unknown hand ranking|unknown ruleset"):
        zz.score((1, 2, 3), "nonsense")


def test_bad_override_raises() -> None:
    with pytest.raises(ValueError, match=r"'max_rolls' must be an integer in 1..6, got 9"):
        zz.load_ruleset("classic", max_rolls=9)
    with pytest.raises(ValueError, match=r"unknown ruleset key\(s\) \['speed'\]"):
        zz.load_ruleset("lives", speed=2)


def test_own_hand_payment_rejects_worst_so_far_loses() -> None:
    with pytest.raises(ValueError, match="worst_so_far_loses"):
        zz.load_ruleset("alt_chips", instant_zanzibar="worst_so_far_loses")


def test_payment_above_ten_is_rejected() -> None:
    pays = {"points": 1, "one_two_three": 2, "three_of_a_kind": 3, "zanzibar": 11}
    with pytest.raises(ValueError, match=r"payments\.zanzibar"):
        zz.load_ruleset("classic", payments=pays)


LIVES_TOP = {"payment": "lives_by_highest_hand"}
SEED_TABLE = {"zanzibar": 0, "three_of_a_kind": "face", "pair": 1, "sum": 1}


@pytest.mark.parametrize(
    ("base", "changes", "message"),
    [
        ("classic", {"final_hand": "first"}, r"'final_hand' must be one of \['last', 'best'\], got 'first'"),
        ("classic", {"final_hand": True}, r"'final_hand' must be one of"),
        ("classic", {"stake": "points"}, r"'stake' must be one of \['chips', 'lives', 'penalty'\]"),
        (
            "classic",
            {"payment": "lives_by_highest_hand"},
            r"got stake 'chips', payment 'lives_by_highest_hand'",
        ),
        ("classic", {"num_rounds": 5}, r"'num_rounds' is only for stake 'penalty'"),
        ("lives", {"num_rounds": 5}, r"'num_rounds' is only for stake 'penalty'"),
        (
            "classic",
            {"lives_table": SEED_TABLE},
            r"'lives_table' is only used with payment 'lives_by_highest",
        ),
        ("lives", {"lives_table": SEED_TABLE}, r"'lives_table' is only used with payment 'lives_by_highest"),
        ("lives", {**LIVES_TOP, "lives_table": {"pair": 1}}, r"'lives_table' must be a mapping with keys"),
        ("lives", {**LIVES_TOP, "lives_table": [1, 1, 1, 1]}, r"'lives_table' must be a mapping"),
        (
            "lives",
            {**LIVES_TOP, "lives_table": {**SEED_TABLE, "pair": "face"}},
            r"'lives_table\.pair' must be an integer in 0\.\.10, got 'face'",
        ),
        (
            "lives",
            {**LIVES_TOP, "lives_table": {**SEED_TABLE, "three_of_a_kind": 11}},
            r"'lives_table\.three_of_a_kind' must be an integer in 0\.\.10 or 'face', got 11",
        ),
        ("lives", {**LIVES_TOP, "lives_table": {**SEED_TABLE, "sum": -1}}, r"'lives_table\.sum'"),
        ("lives", {**LIVES_TOP, "lives_table": {**SEED_TABLE, "sum": 1.5}}, r"'lives_table\.sum'"),
        ("lives", {**LIVES_TOP, "lives_table": {**SEED_TABLE, "sum": True}}, r"'lives_table\.sum'"),
        (
            "lives",
            {**LIVES_TOP, "lives_table": dict.fromkeys(["zanzibar", "three_of_a_kind", "pair", "sum"], 0)},
            r"must cost a life somewhere",
        ),
        ("lives", {**LIVES_TOP, "lives_lost": 2}, r"'lives_lost' is unused with 'lives_by_highest_hand'"),
        ("lives", {**LIVES_TOP, "hand_ranking": "zanzibar_456"}, r"needs hand_ranking 'zanzibar_421'"),
        ("lives", {"starting_stack": 0}, r"'starting_stack' must be an integer in 1\.\.10000, got 0"),
        ("penalty", {"starting_stack": 11}, r"'starting_stack' must be 0 with stake 'penalty'"),
        ("penalty", {"starting_stack": None}, r"'starting_stack' must be 0 with stake 'penalty'"),
        (
            "penalty",
            {"num_rounds": None},
            r"stake 'penalty' needs option 'num_rounds' \(1\.\.1000, the game's",
        ),
        ("penalty", {"penalty_limit": 0}, r"'penalty_limit' must be null or a positive integer up to 1000"),
        ("penalty", {"penalty_limit": 2.5}, r"'penalty_limit' must be null or a positive integer"),
        ("classic", {"penalty_limit": 11}, r"'penalty_limit' is only for stake 'penalty'"),
        ("lives", {"penalty_limit": 11}, r"'penalty_limit' is only for stake 'penalty'"),
        ("penalty", {"num_rounds": 0}, r"'num_rounds' must be null or a positive integer up to 1000, got 0"),
        ("penalty", {"num_rounds": 1001}, r"'num_rounds'.*got 1001"),
        ("penalty", {"num_rounds": "11"}, r"'num_rounds'"),
        ("penalty", {"num_rounds": True}, r"'num_rounds'"),
        ("penalty", {"max_rounds": 11}, r"'max_rounds' must be null or below num_rounds=11"),
        ("penalty", {"payment": "highest_hand"}, r"got stake 'penalty', payment 'highest_hand'"),
    ],
)
def test_new_option_values_and_combinations_raise(base: str, changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        zz.load_ruleset(base, **changes)


def test_lives_by_rank_follows_the_table_and_the_top_hand() -> None:
    default = zz.load_ruleset("lives")
    assert set(default.lives_by_rank) == {1} and len(default.lives_by_rank) == default.table.num_ranks
    assert set(zz.load_ruleset("lives", lives_lost=3).lives_by_rank) == {3}
    same = zz.load_ruleset("lives", **LIVES_TOP)  # the default table: one life whatever the top hand
    assert same.lives_by_rank == default.lives_by_rank
    seed = zz.load_ruleset("lives", **LIVES_TOP, lives_table=SEED_TABLE)
    expect = {
        (1, 2, 4): 0,
        (6, 6, 6): 6,
        (3, 3, 3): 3,
        (1, 1, 1): 1,
        (6, 6, 5): 1,
        (1, 2, 3): 1,
        (4, 5, 6): 1,
    }
    for dice, lives in expect.items():
        assert seed.lives_lost_for(seed.score(dice)) == lives, dice
    with pytest.raises(ValueError, match="pays chips, not lives"):
        _ = zz.load_ruleset("classic").lives_by_rank


def test_stack_scale_divides_the_observation_stacks() -> None:
    assert [zz.load_ruleset(n).stack_scale for n in ("classic", "lives")] == [20, 11]
    assert zz.load_ruleset("penalty").stack_scale == 11  # 11 rounds x 1 point
    assert zz.load_ruleset("penalty", num_rounds=4, lives_lost=3).stack_scale == 12
    face = zz.load_ruleset("penalty", num_rounds=2, **LIVES_TOP, lives_table=SEED_TABLE)
    assert face.stack_scale == 12  # 6-6-6 on top costs 6 points a round


def test_new_options_round_trip_through_yaml(tmp_path: Path) -> None:
    rules = zz.load_ruleset("penalty", final_hand="best", **LIVES_TOP, lives_table=SEED_TABLE, max_rounds=3)
    path = _write(tmp_path, rules.to_dict())
    assert zz.load_ruleset(path) == rules
    assert zz.Ruleset.from_dict(rules.to_dict()) == rules
