"""Rounds and games traced by hand with scripted dice and scripted holds (seed 000's round example first)."""

from __future__ import annotations

from pathlib import Path

import pytest

import zanzibar_env as zz
from zanzibar_env import STOP, GameState, RoundState, ScriptedDice, View, mask_from_keep


class Script:
    """A scripted hold policy for every seat: returns the acting seat's next action; fails if none is left."""

    def __init__(self, actions: dict[int, list[int]]) -> None:
        self.actions = {seat: list(a) for seat, a in actions.items()}
        self.views: list[View] = []

    def __call__(self, view: View) -> int:
        self.views.append(view)
        queue = self.actions.get(view.seat)
        assert queue, f"seat {view.seat} was asked to act on {view.dice} but has no scripted action"
        return queue.pop(0)

    def finished(self) -> bool:
        return all(not q for q in self.actions.values())


# ---- seed 000, "Round Example" (players 1-5 are seats 0-4) ------------------------------------------
# P1 rolls 1,1,5, keeps the 1s, rolls a 1: 1-1-1 in two rolls, then stops (the limit becomes 2).
# P2 rolls 2,5,6, re-throws all, rolls 1,2,3 on his second roll (the last allowed: no decision).
# P3 rolls 4,5,6 and stops. P4 rolls 2,4,4, keeps the 4s, rolls a 5: 4-4-5 = 13. P5 rolls 1,3,6, stops.
EXAMPLE_DICE = [1, 1, 5, 1, 2, 5, 6, 1, 2, 3, 4, 5, 6, 4, 4, 2, 5, 1, 3, 6]
EXAMPLE_ACTIONS = {0: [mask_from_keep((1, 1, 5), [1, 1]), STOP], 1: [0], 2: [STOP], 3: [6], 4: [STOP]}


def _example(ruleset: str) -> tuple[zz.RoundRecord, Script]:
    script = Script(EXAMPLE_ACTIONS)
    rec = zz.play_round(ruleset, script, num_players=5, dice=EXAMPLE_DICE)
    assert script.finished()
    return rec, script


def test_seed_000_round_example_classic() -> None:
    rec, script = _example("classic")
    assert [t.hand for t in rec.turns] == [[1, 1, 1], [1, 2, 3], [4, 5, 6], [4, 4, 5], [1, 3, 6]]
    assert [len(t.rolls) for t in rec.turns] == [2, 2, 1, 2, 1]
    cats = ["three_of_a_kind", "one_two_three", "zanzibar", "points", "points"]
    assert [t.category for t in rec.turns] == cats
    assert rec.roll_limit == 2, "player 1 used two rolls"
    assert rec.losers == [3], "player 4 (13 points) is the loser"
    assert rec.transfers == [-4, -4, -4, 16, -4], "4 chips from each player: the highest roll was a Zanzibar"
    assert rec.stacks_after == [16, 16, 16, 36, 16]
    assert rec.winner == 2, "player 3 reached the top hand first"
    p4 = next(v for v in script.views if v.seat == 3)  # what player 4 knew at her decision
    assert (p4.dice, p4.rolls_used, p4.roll_limit) == ((2, 4, 4), 1, 2)
    assert (p4.is_first, p4.players_after) == (False, 1)
    assert (p4.highest.dice, p4.lowest.dice, p4.lowest_count) == ((4, 5, 6), (1, 2, 3), 1)  # type: ignore[union-attr]
    assert script.views[0].is_first and script.views[0].roll_limit == 3


def test_seed_000_round_example_alt_chips() -> None:
    rec, _ = _example("alt_chips")
    # "three chips from Player 1 ..., two chips from Player 2, four chips from Player 3, and one chip ..."
    assert rec.transfers == [-3, -2, -4, 3 + 2 + 4 + 1, -1]


def test_seed_000_round_example_simple_scoring() -> None:
    rec, _ = _example("simple_scoring")
    # with face values player 5's 1-3-6 is 10 points, below player 4's 13: player 5 receives
    assert rec.losers == [4] and rec.transfers == [-4, -4, -4, -4, 16]


def test_round_winner_rolls_first_next_round() -> None:
    state = GameState(zz.load_ruleset("classic"), 5, ScriptedDice([*EXAMPLE_DICE, 2, 3, 4]))
    script = Script(EXAMPLE_ACTIONS)
    while state.round.record.starting_seat == 0 and not state.round.done:
        assert state.current_seat is not None
        state.apply(script(state.view()))
    assert script.finished() and len(state.record.rounds) == 1
    assert state.current_seat == 2 and state.view().dice == (2, 3, 4) and state.view().is_first
    assert state.view().stacks == (16, 36, 16, 16, 16), "stacks relative to the acting seat"


# ---- roll limit -------------------------------------------------------------------------------------
def test_first_roller_sets_the_limit() -> None:
    script = Script({0: [STOP]})  # seats 1 and 2 get one roll each and are never asked
    rec = zz.play_round("classic", script, num_players=3, dice=[2, 3, 5, 1, 1, 2, 6, 6, 1])
    assert rec.roll_limit == 1 and [len(t.rolls) for t in rec.turns] == [1, 1, 1]
    script = Script({0: [0, 0], 1: [0, STOP], 2: [0, 0]})  # the first roller uses all 3: so may the others
    rec = zz.play_round("classic", script, num_players=3, dice=[1] * 9 + [2, 2, 2, 3, 3, 3] + [2, 3, 5] * 3)
    assert script.finished() and rec.roll_limit == 3 and [len(t.rolls) for t in rec.turns] == [3, 2, 3]
    assert [t.hand for t in rec.turns] == [[1, 1, 1], [3, 3, 3], [2, 3, 5]] and rec.losers == [2]


def test_lives_first_roller_does_not_set_the_limit() -> None:
    script = Script({0: [STOP], 1: [0, 0]})
    rec = zz.play_round("lives", script, num_players=2, dice=[2, 3, 5, 2, 3, 6, 2, 3, 6, 5, 6, 6])
    assert script.finished() and [len(t.rolls) for t in rec.turns] == [1, 3]
    assert rec.roll_limit == 3 and script.views[1].roll_limit == 3


# ---- holds ------------------------------------------------------------------------------------------
def test_holds_keep_dice() -> None:
    assert mask_from_keep((2, 5, 6), [5, 6]) == 0b110 and mask_from_keep((2, 5, 5), [5]) == 0b010
    assert mask_from_keep((2, 5, 5), [5, 5]) == 0b110 and mask_from_keep((1, 2, 3), []) == 0
    script = Script({0: [0b110, STOP], 1: [STOP]})
    rec = zz.play_round("classic", script, num_players=2, dice=[6, 2, 5, 4, 1, 2, 3])
    assert script.finished() and script.views[1].dice == (4, 5, 6), "the held 5 and 6 stayed"
    assert rec.turns[0].rolls == [[2, 5, 6], [4, 5, 6]] and rec.turns[0].actions == [6, STOP]
    assert rec.dice_drawn == [6, 2, 5, 4, 1, 2, 3], "only the one re-thrown die was drawn on the second roll"
    assert rec.turns[1].rolls == [[1, 2, 3]] and rec.turns[1].actions == [STOP]


def test_no_holds_option() -> None:
    rules = zz.load_ruleset("classic", holds_allowed=False)
    state = RoundState(rules, [20, 20], 0, ScriptedDice([2, 5, 6, 1, 1, 1, 3, 3, 4]))
    assert state.legal_actions() == [0, STOP]
    with pytest.raises(ValueError, match=r"illegal action 6: legal hold masks are \[0, 7\]"):
        state.apply(6)
    state.apply(0)
    assert state.dice == (1, 1, 1) and state.rolls_used == 2


# ---- ties -------------------------------------------------------------------------------------------
def test_tie_for_highest_earlier_roller_keeps_the_lead() -> None:
    # starting seat 2: order 2, 0, 1; seats 2 and 0 both roll 4-5-6
    rec = zz.play_round(
        "classic", Script({2: [STOP]}), num_players=3, starting_seat=2, dice=[4, 5, 6, 6, 5, 4, 2, 2, 3]
    )
    assert [t.seat for t in rec.turns] == [2, 0, 1]
    assert rec.winner == 2 and rec.losers == [1] and rec.transfers == [-4, 8, -4]


TIE_LOW = [4, 5, 6, 2, 2, 3, 3, 2, 2]  # seat 0 Zanzibar, seats 1 and 2 both 7 points


def test_tie_for_lowest_rolloff() -> None:
    rolloffs = [1, 1, 1, 1, 1, 1, 2, 3, 4, 2, 2, 3]  # tie again (1-1-1 each), then 9 points vs 7 points
    dice = ScriptedDice(TIE_LOW + rolloffs)
    rec = zz.play_round("classic", Script({0: [STOP]}), num_players=3, dice=dice)
    assert rec.rolloffs == [{1: [1, 1, 1], 2: [1, 1, 1]}, {1: [2, 3, 4], 2: [2, 2, 3]}]
    assert rec.losers == [2] and rec.transfers == [-4, -4, 8] and dice.remaining == 0
    again = zz.RoundRecord.from_dict(rec.to_dict())
    assert again == rec, "roll-offs survive the JSON form (int seat keys)"


def test_tie_for_lowest_all() -> None:
    dice = ScriptedDice(TIE_LOW)
    rules = zz.load_ruleset("classic", tie_rule="all")
    rec = zz.play_round(rules, Script({0: [STOP]}), num_players=3, dice=dice)
    assert rec.losers == [1, 2] and rec.rolloffs == [] and rec.transfers == [-8, 4, 4] and dice.remaining == 0


def test_lives_tie_for_lowest_all_lose() -> None:
    script = Script({0: [STOP], 1: [STOP], 2: [STOP]})
    rec = zz.play_round("lives", script, num_players=3, dice=[1, 2, 3, 3, 2, 1, 6, 6, 6])
    assert rec.losers == [0, 1] and rec.transfers == [-1, -1, 0] and rec.winner == 2


# ---- payments ---------------------------------------------------------------------------------------
def test_payer_gives_what_they_hold() -> None:
    rec = zz.play_round("classic", Script({0: [STOP]}), stacks=[2, 20, 20], dice=[5, 5, 6, 4, 5, 6, 2, 2, 3])
    assert rec.transfers == [-2, -4, 6] and rec.stacks_after == [0, 16, 26]


def test_several_players_reaching_zero_share_the_win() -> None:
    rules = zz.load_ruleset("classic", starting_stack=3)
    state = GameState(rules, 3, ScriptedDice([4, 5, 6, 5, 5, 6, 2, 2, 3]))
    state.apply(STOP)
    assert state.done and state.current_seat is None
    assert state.record.winners == [0, 1] and state.record.final_stacks == [0, 0, 9]
    with pytest.raises(RuntimeError, match="game is over"):
        state.apply(STOP)
    with pytest.raises(RuntimeError, match="game is over"):
        state.view()
    assert state.legal_actions() == []


# ---- lives: instant Zanzibar, elimination, the tie-breaker -----------------------------------------
ZANZIBAR_ROUND = [2, 2, 3, 4, 2, 1]  # seat 0 stops at 2-2-3, seat 1 throws 4-2-1 at once


def test_lives_421_ends_the_round_at_once_no_life_lost() -> None:
    dice = ScriptedDice(ZANZIBAR_ROUND)
    rec = zz.play_round("lives", Script({0: [STOP]}), num_players=4, dice=dice)
    assert [t.seat for t in rec.turns] == [0, 1], "seats 2 and 3 do not roll"
    assert rec.ended_by_zanzibar and rec.losers == [] and rec.transfers == [0, 0, 0, 0] and rec.winner == 1
    assert dice.remaining == 0


def test_lives_421_worst_so_far_loses_option() -> None:
    rules = zz.load_ruleset("lives", instant_zanzibar="worst_so_far_loses")
    rec = zz.play_round(rules, Script({0: [STOP]}), num_players=4, dice=ZANZIBAR_ROUND)
    assert rec.ended_by_zanzibar and rec.losers == [0] and rec.transfers == [-1, 0, 0, 0]
    rec = zz.play_round(rules, Script({}), num_players=4, dice=[1, 2, 4])  # first roller: nobody before
    assert rec.ended_by_zanzibar and rec.losers == [] and rec.transfers == [0, 0, 0, 0]


def test_421_after_a_hold_ends_the_turn() -> None:
    script = Script({0: [STOP], 1: [mask_from_keep((1, 2, 6), [1, 2])]})
    rec = zz.play_round("lives", script, num_players=3, dice=[2, 2, 3, 6, 1, 2, 4])
    assert script.finished() and rec.turns[1].rolls == [[1, 2, 6], [1, 2, 4]] and rec.ended_by_zanzibar


def test_classic_456_does_not_end_the_turn() -> None:
    script = Script({0: [STOP]})
    zz.play_round("classic", script, num_players=2, dice=[4, 5, 6, 1, 1, 1])
    assert script.views[0].dice == (4, 5, 6), "the player is asked even holding 4-5-6"


def test_elimination_and_last_player_standing() -> None:
    rules = zz.load_ruleset("lives", starting_stack=1)
    # round 1: 5-5-5, 1-2-3 (seat 1 out), 6-6-6 wins; round 2 starts at seat 2, seat 1 skipped
    dice = [5, 5, 5, 1, 2, 3, 6, 6, 6, 1, 2, 3, 2, 2, 2]
    rec = zz.play_game(rules, num_players=3, dice=dice)
    r1, r2 = rec.rounds
    assert r1.losers == [1] and r1.stacks_after == [1, 0, 1] and r1.winner == 2
    assert r2.starting_seat == 2 and [t.seat for t in r2.turns] == [2, 0]
    assert r2.losers == [2] and rec.final_stacks == [1, 0, 0] and rec.winners == [0] and not rec.truncated


def test_out_player_is_not_active_in_views() -> None:
    script = Script({1: [STOP], 2: [STOP]})
    zz.play_round("lives", script, stacks=[0, 3, 3], starting_seat=1, dice=[1, 2, 3, 2, 3, 5])
    assert script.views[0].active == (True, True, False) and script.views[0].stacks == (3, 3, 0)


@pytest.mark.parametrize(
    ("stacks", "winners"),
    [([0, 1, 2], [2]), ([2, 2], [0, 1]), ([1, 2, 2], [1, 2]), ([1, 1, 5], [2]), ([5, 5], [])],
)
def test_all_remaining_out_same_round(stacks: list[int], winners: list[int]) -> None:
    """All tie (everyone loses 2 lives): if all still in go out, the most lives at the round's start
    survive and a tie shares the win; otherwise the last standing wins, or the game goes on."""
    rules = zz.load_ruleset("lives", lives_lost=2)
    first = next(i for i, s in enumerate(stacks) if s > 0)
    rec = zz.play_game(rules, stacks=stacks, first_seat=first, dice=[1, 2, 3] * 3, max_rounds=1)
    assert len(rec.rounds) == 1 and rec.rounds[0].losers == [i for i, s in enumerate(stacks) if s > 0]
    assert rec.winners == winners and rec.truncated == (winners == [])


def test_max_rounds_truncation() -> None:
    rec = zz.play_game("lives", num_players=3, seed=0, max_rounds=2)
    assert rec.truncated and len(rec.rounds) == 2 and rec.winners == []
    rec = zz.play_game(zz.load_ruleset("classic", max_rounds=3), num_players=2, seed=0)
    assert rec.truncated and len(rec.rounds) == 3 and rec.winners == []
    with pytest.raises(ValueError, match="max_rounds must be None or a positive integer"):
        zz.play_game("classic", max_rounds=0)


# ---- bad input --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 9, 2.0, True, "4"])
def test_bad_player_count(n: object) -> None:
    with pytest.raises(ValueError, match="num_players must be an integer 2-8"):
        zz.play_game("classic", num_players=n)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="num_players must be an integer 2-8"):
        GameState(zz.load_ruleset("classic"), n, ScriptedDice([]))  # type: ignore[arg-type]


def test_bad_player_count_in_rounds() -> None:
    with pytest.raises(ValueError, match="num_players must be an integer 2-8, got 1"):
        zz.play_round("classic", num_players=1)
    with pytest.raises(ValueError, match="got 9"):
        zz.play_round("classic", stacks=[20] * 9)
    with pytest.raises(ValueError, match="num_players=3 but 2 stacks"):
        zz.play_round("classic", num_players=3, stacks=[20, 20])


@pytest.mark.parametrize("action", [8, -1, 1.5, True, "3", None])
def test_bad_action(action: object) -> None:
    state = RoundState(zz.load_ruleset("classic"), [20, 20], 0, ScriptedDice([1, 2, 3]))
    with pytest.raises(ValueError, match="hold mask"):
        state.apply(action)  # type: ignore[arg-type]
    assert state.rolls_used == 1 and state.record.turns == [], "a rejected action changes nothing"


def test_mask_of_missing_die() -> None:
    with pytest.raises(ValueError, match=r"cannot hold a 3: no such unheld die in \(2, 5, 6\)"):
        mask_from_keep((2, 5, 6), [3])
    with pytest.raises(ValueError, match="cannot hold a 5"):
        mask_from_keep((2, 5, 5), [5, 5, 5])


def test_scripted_dice_run_out_or_bad() -> None:
    with pytest.raises(ValueError, match="scripted dice ran out: 3 more needed after 3 of 5"):
        zz.play_round("classic", num_players=2, dice=[1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="scripted die #1 is 7"):
        ScriptedDice([1, 7])


def test_acting_after_the_round_ended() -> None:
    state = RoundState(zz.load_ruleset("classic"), [20, 20], 0, ScriptedDice([1, 2, 3, 4, 5, 6]))
    state.apply(STOP)
    assert state.done and state.legal_actions() == []
    with pytest.raises(RuntimeError, match="round is over"):
        state.apply(STOP)
    with pytest.raises(RuntimeError, match="round is over"):
        state.view()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(stacks=[20, -1]), "non-negative integers"),
        (dict(stacks=[20, 20], starting_seat=2), "starting seat 2 is not an active seat"),
        (dict(ruleset="lives", stacks=[0, 5]), "not an active seat"),
        (dict(ruleset="lives", stacks=[5, 0]), "two or more players with lives left"),
        (dict(num_players=2, policies=[lambda v: 7]), "got 1 policies for 2 players"),
        (dict(num_players=2, policies=42), "a policy must be a function of the view"),
    ],
)
def test_bad_round_setup(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        zz.play_round(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(stacks=[20, 20, 20], num_players=2), "got 3 starting stacks for 2 players"),
        (dict(stacks=[20, 0]), "every chip stack must be positive"),
        (dict(ruleset="lives", stacks=[3, 0, 0]), "at least two players with lives left"),
        (dict(first_seat=5), "first_seat must be a seat 0-1"),
    ],
)
def test_bad_game_setup(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        zz.play_game(**kwargs)  # type: ignore[arg-type]


# ---- records ----------------------------------------------------------------------------------------
def test_records_save_load_and_replay(tmp_path: Path) -> None:
    games = [zz.play_game(r, num_players=3, seed=s, max_rounds=40) for r, s in [("classic", 1), ("lives", 2)]]
    path = tmp_path / "games.jsonl"
    for g in games:
        g.save(path)
    loaded = zz.load_games(path)
    assert [g.to_dict() for g in loaded] == [g.to_dict() for g in games]
    for g in loaded:
        assert zz.replay_game(g).to_dict() == g.to_dict()


def test_replay_detects_a_tampered_record() -> None:
    rec = zz.play_game("classic", num_players=2, seed=3, max_rounds=5)
    bad = zz.GameRecord.from_json(rec.to_json())
    bad.final_stacks = [s + 1 for s in bad.final_stacks]
    with pytest.raises(ValueError, match="replay does not reproduce the record"):
        zz.replay_game(bad)


def test_load_games_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="replay file not found"):
        zz.load_games(tmp_path / "none.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"not": "a game"}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:1: not a game record"):
        zz.load_games(tmp_path / "bad.jsonl")
