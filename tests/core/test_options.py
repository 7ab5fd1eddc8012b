"""The three options the seeds still asked for (RULES.md §7-§9), played by the engine on scripted dice.

Every expectation is traced by hand in the comments, from RULES.md alone (the engine plays the options
through the rules kernel, ``zanzibar_env.core.kernel`` and ``settlement``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import zanzibar_env as zz
from zanzibar_env.core.engine import View

#: Seed 001's life table read as numbers (RULES.md §7): 4-2-1 costs 0, three n's cost n, else 1.
SEED_TABLE: dict[str, Any] = {"zanzibar": 0, "three_of_a_kind": "face", "pair": 1, "sum": 1}
LIVES_BY_TOP = dict(payment="lives_by_highest_hand", lives_table=SEED_TABLE)


def reroll_once(view: View) -> int:
    """Re-throw all three dice after the first roll, then stop."""
    return 0 if view.rolls_used == 1 else 7


def script(*actions: int) -> Callable[[View], int]:
    """A policy playing the given hold masks in order (one seat's decisions)."""
    queue = list(actions)
    return lambda view: queue.pop(0)


# ---- §7: lives lost by the round's top hand ---------------------------------------------------------


def test_three_sixes_on_top_cost_the_loser_six_lives() -> None:
    rules = zz.load_ruleset("lives", **LIVES_BY_TOP)
    # Everyone stops after one throw. Seat 0: 6-6-6 (three 6s, the round's top hand); seat 1: 6-6-5
    # (pair of 6s); seat 2: 1-2-3 (sum 6, the worst hand). Seat 2 loses lives_table[three_of_a_kind] =
    # "face" = 6 lives: 11 -> 5. With payment one_life it would lose 1.
    rec = zz.play_round(rules, stacks=[11, 11, 11], dice=[6, 6, 6, 6, 6, 5, 1, 2, 3])
    assert rec.losers == [2] and rec.winner == 0
    assert rec.transfers == [0, 0, -6]
    assert rec.stacks_after == [11, 11, 5]


def test_tied_losers_each_lose_the_top_hands_lives() -> None:
    rules = zz.load_ruleset("lives", **LIVES_BY_TOP)  # tie_rule: all
    # Seat 0: 4-4-4 (top: three 4s, cost 4); seats 1 and 2 both sum 6 (1-2-3 and 1-2-3): both lose 4.
    rec = zz.play_round(rules, stacks=[11, 11, 11], dice=[4, 4, 4, 1, 2, 3, 3, 2, 1])
    assert sorted(rec.losers) == [1, 2]
    assert rec.stacks_after == [11, 7, 7]


def test_pair_on_top_costs_one_and_a_zanzibar_under_worst_so_far_costs_the_table_entry() -> None:
    table = {**SEED_TABLE, "zanzibar": 2, "pair": 3}
    rules = zz.load_ruleset(
        "lives", payment="lives_by_highest_hand", lives_table=table, instant_zanzibar="worst_so_far_loses"
    )
    # Round A: seat 0 6-6-1 (pair of 6s, top), seat 1 2-3-5 (sum 10, worst), seat 2 1-1-2 (pair of 1s,
    # above every sum): seat 1 loses lives_table.pair = 3.
    rec = zz.play_round(rules, stacks=[11, 11, 11], dice=[6, 6, 1, 2, 3, 5, 1, 1, 2])
    assert rec.losers == [1] and rec.stacks_after == [11, 8, 11]
    # Round B: seat 0 2-3-5 (sum 10); seat 1 throws 4-2-1: the round ends at once, seat 2 never rolls,
    # the worst hand so far (seat 0) loses lives_table.zanzibar = 2 (the 4-2-1 is the round's top hand).
    rec = zz.play_round(rules, stacks=[11, 11, 11], dice=[2, 3, 5, 4, 2, 1])
    assert rec.ended_by_zanzibar and rec.losers == [0]
    assert rec.stacks_after == [9, 11, 11]


def test_a_game_where_the_cost_varies_by_round() -> None:
    rules = zz.load_ruleset("lives", **LIVES_BY_TOP)
    # Start 4 and 7 lives; everyone stops at once.
    # Round 1 (seat 0 first): seat 0 3-3-3 (top, cost 3), seat 1 1-2-3 (worst): seat 1 7 -> 4. Winner 0.
    # Round 2 (seat 0 first): seat 0 2-3-5 (sum 10, worst), seat 1 5-5-5 (top, cost 5): seat 0 4 -> 0,
    # out; seat 1 is the last player standing and wins.
    game = zz.play_game(rules, stacks=[4, 7], dice=[3, 3, 3, 1, 2, 3, 2, 3, 5, 5, 5, 5])
    assert [r.stacks_after for r in game.rounds] == [[4, 4], [0, 4]]
    assert game.winners == [1] and not game.truncated


# ---- §8: the penalty game -----------------------------------------------------------------------------


def test_penalty_game_ends_after_num_rounds_and_fewest_points_win() -> None:
    rules = zz.load_ruleset("penalty", num_rounds=3)
    # Points start at 0; everyone stops at once; the worst hand takes 1 point; nobody is out.
    # Round 1 (seat 0 first): seat 0 5-5-6 (pair of 5s), seat 1 2-3-5 (sum 10): seat 1 +1 -> [0, 1].
    # Round 2 (winner seat 0 first): seat 0 1-3-5 (sum 9), seat 1 1-6-6 (pair of 6s): seat 0 +1 -> [1, 1].
    # Round 3 (winner seat 1 first): seat 1 2-2-2 (three 2s), seat 0 3-4-6 (sum 13): seat 0 +1 -> [2, 1].
    # After 3 rounds the game ends (terminated, not truncated): seat 1 has fewest points and wins.
    dice = [5, 5, 6, 2, 3, 5, 1, 3, 5, 6, 6, 1, 2, 2, 2, 3, 4, 6]
    game = zz.play_game(rules, dice=dice)
    assert [r.starting_seat for r in game.rounds] == [0, 0, 1]
    assert [r.stacks_before for r in game.rounds] == [[0, 0], [0, 1], [1, 1]]
    assert [r.transfers for r in game.rounds] == [[0, 1], [1, 0], [1, 0]]
    assert game.final_stacks == [2, 1]
    assert game.winners == [1] and not game.truncated


def test_penalty_ties_share_points_and_the_win_and_a_zanzibar_round_counts() -> None:
    rules = zz.load_ruleset("penalty", num_rounds=3)
    # 3 players, tie_rule all, instant_zanzibar no_loss.
    # Round 1 (seat 0): 4-4-4; seat 1 2-3-5 (sum 10); seat 2 1-4-5 (sum 10): seats 1 and 2 tie for the
    #   worst hand and both take 1 -> [0, 1, 1]. Winner seat 0.
    # Round 2 (seat 0): 1-2-4 ends the round at once, nobody takes a point, seats 1 and 2 never roll;
    #   it still counts as one of the 3 rounds. Winner seat 0.
    # Round 3 (seat 0): 1-2-3 (sum 6, worst); seat 1 5-5-5; seat 2 6-6-6: seat 0 +1 -> [1, 1, 1].
    # After round 3 all three have 1 point: they share the win.
    dice = [4, 4, 4, 2, 3, 5, 1, 4, 5, 1, 2, 4, 1, 2, 3, 5, 5, 5, 6, 6, 6]
    game = zz.play_game(rules, num_players=3, dice=dice)
    assert len(game.rounds) == 3 and game.rounds[1].ended_by_zanzibar and game.rounds[1].losers == []
    assert [r.stacks_after for r in game.rounds] == [[0, 1, 1], [0, 1, 1], [1, 1, 1]]
    assert game.winners == [0, 1, 2] and not game.truncated


def test_penalty_with_points_by_the_top_hand_and_handicap_stacks() -> None:
    rules = zz.load_ruleset("penalty", num_rounds=1, **LIVES_BY_TOP)
    # Start from [0, 3] (a handicap). Seat 0 6-6-6 (top, cost 6); seat 1 1-2-3: seat 1 takes 6 -> [0, 9].
    game = zz.play_game(rules, stacks=[0, 3], dice=[6, 6, 6, 1, 2, 3])
    assert game.final_stacks == [0, 9] and game.winners == [0]


def test_penalty_limit_ends_the_game_in_the_round_a_seat_reaches_it() -> None:
    rules = zz.load_ruleset("penalty", num_rounds=None, penalty_limit=2)
    # The seed's other reading: no fixed length; the game ends after the round in which someone reaches
    # 2 points. Same dice as the 3-round game above: round 1 seat 1 +1 -> [0, 1]; round 2 seat 0 +1 ->
    # [1, 1] (nobody at 2 yet, the game goes on); round 3 seat 0 +1 -> [2, 1]: seat 0 reached the limit,
    # the game ends (terminated) and seat 1, with the fewest points, wins.
    dice = [5, 5, 6, 2, 3, 5, 1, 3, 5, 6, 6, 1, 2, 2, 2, 3, 4, 6]
    game = zz.play_game(rules, dice=dice)
    assert [r.stacks_after for r in game.rounds] == [[0, 1], [1, 1], [2, 1]]
    assert game.winners == [1] and not game.truncated


def test_penalty_limit_and_num_rounds_whichever_comes_first() -> None:
    # Rounds as above. With num_rounds 2 and limit 2 the 2 rounds come first: [1, 1], a shared win.
    dice = [5, 5, 6, 2, 3, 5, 1, 3, 5, 6, 6, 1, 2, 2, 2, 3, 4, 6]
    game = zz.play_game(zz.load_ruleset("penalty", num_rounds=2, penalty_limit=2), dice=dice)
    assert game.final_stacks == [1, 1] and game.winners == [0, 1]
    # With num_rounds 5 and limit 1 the limit comes first: seat 1 has 1 point after round 1, seat 0 wins.
    game = zz.play_game(zz.load_ruleset("penalty", num_rounds=5, penalty_limit=1), dice=dice)
    assert len(game.rounds) == 1 and game.final_stacks == [0, 1] and game.winners == [0]
    # Points by the top hand can pass the limit: 6-6-6 on top costs 1-2-3 six points, past a limit of 3.
    game = zz.play_game(
        zz.load_ruleset("penalty", num_rounds=None, penalty_limit=3, **LIVES_BY_TOP), dice=[6, 6, 6, 1, 2, 3]
    )
    assert game.final_stacks == [0, 6] and game.winners == [0]


def test_penalty_limit_scales_the_observation_to_the_most_points_a_seat_can_hold() -> None:
    # limit - 1 points, then one round's most: 10 + 1 with one point a round; 10 + 6 by the top hand.
    assert zz.load_ruleset("penalty", num_rounds=None, penalty_limit=11).stack_scale == 11
    assert zz.load_ruleset("penalty", num_rounds=None, penalty_limit=11, **LIVES_BY_TOP).stack_scale == 16
    assert zz.load_ruleset("penalty", num_rounds=3, penalty_limit=11).stack_scale == 3  # the rounds bind


def test_the_round_winner_can_lose_the_rolloff_and_still_rolls_first_next() -> None:
    rules = zz.load_ruleset("classic", starting_stack=20)
    # Both stop on 2-3-5 (10 points): seat 0 reached it first and leads (RULES.md §2), and both tie for
    # lowest. Roll-off: seat 0 throws 1-1-2 (202 points), seat 1 throws 1-1-3 (203): seat 0 loses the
    # roll-off, so the round's winner is its loser; seat 1 pays it by the highest hand (points: 1 chip).
    # Round 2 starts with seat 0, the winner: it throws 4-5-6 and stops, seat 1 stops on 1-1-1.
    dice = [2, 3, 5, 2, 3, 5, 1, 1, 2, 1, 1, 3, 4, 5, 6, 1, 1, 1]
    game = zz.play_game(rules, dice=dice, max_rounds=2)
    first = game.rounds[0]
    assert first.winner == 0 and first.losers == [0] and first.transfers == [1, -1]
    assert game.rounds[1].starting_seat == 0


def test_the_first_round_starts_with_first_seat() -> None:
    rules = zz.load_ruleset("classic")
    game = zz.play_game(rules, num_players=3, dice=[4, 5, 6, 1, 1, 1, 2, 2, 2], first_seat=2, max_rounds=1)
    # Seat 2 rolls first (4-5-6, one roll, which caps the others at one), then seats 0 and 1.
    assert game.rounds[0].starting_seat == 2 and game.rounds[0].winner == 2


def test_penalty_max_rounds_truncates_before_num_rounds() -> None:
    rules = zz.load_ruleset("penalty", num_rounds=5, max_rounds=1)
    # Seat 0 5-5-5, seat 1 1-2-3: seat 1 +1; then the cap of 1 round cuts the game: no winners.
    game = zz.play_game(rules, dice=[5, 5, 5, 1, 2, 3])
    assert game.truncated and game.winners == [] and game.final_stacks == [0, 1]


# ---- §9: a turn's hand is its best throw --------------------------------------------------------------


def test_seed_000_round_example_with_best_throws() -> None:
    rules = zz.load_ruleset("classic", final_hand="best")
    # The seed's example: player 1 (seat 0) throws 2-5-6, re-throws all, 1-1-1 in two rolls (limit 2);
    # player 2: 3-4-6 (67 points), then 1-2-3 on the second roll; player 3: 4-5-6 and stops; player 4:
    # 4-4-5 (13), then re-throws all and gets 2-2-3 (7): "her best roll is only 4,4,5 and she scores 13
    # points"; player 5: 1-3-6 (163). Hands: 1-1-1, 1-2-3, 4-5-6, 4-4-5, 1-3-6. Player 4 has the lowest
    # (13) and receives 4 chips (a Zanzibar on top) from each of the four others.
    stop = 7
    pols = [reroll_once, reroll_once, lambda v: stop, reroll_once, lambda v: stop]
    dice = [2, 5, 6, 1, 1, 1, 3, 4, 6, 1, 2, 3, 4, 5, 6, 4, 4, 5, 2, 2, 3, 1, 3, 6]
    rec = zz.play_round(rules, pols, stacks=[20] * 5, dice=dice)
    p4 = rec.turns[3]
    assert p4.rolls == [[4, 4, 5], [2, 2, 3]]
    assert (p4.hand, p4.category, p4.rank) == ([4, 4, 5], "points", rules.score((4, 4, 5)).rank)
    assert rec.turns[1].hand == [1, 2, 3]
    assert rec.losers == [3] and rec.winner == 2
    assert rec.transfers == [-4, -4, -4, 16, -4]


def test_best_throw_counts_and_holds_come_from_the_last_throw() -> None:
    rules = zz.load_ruleset("classic", final_hand="best")
    # Seat 0: 6-6-6; re-throws all: 2-5-6 (67 points); holds the 5 and the 6 (mask 0b110 = 6) of the
    # dice on the table and re-throws one die: 3 -> 3-5-6 (68 points), its 3rd roll ends the turn.
    # Its hand is its best throw, 6-6-6 (had the hold kept two dice of 6-6-6, the last throw would have
    # been 3-6-6). Seat 1 (limit 3) throws 1-4-5 (109 points) and stops: the lowest hand. It receives
    # 3 chips (three of a kind on top): [17, 23]. (With final_hand last: seat 0's 68 points lose, +1.)
    rec = zz.play_round(rules, [script(0, 6), lambda v: 7], dice=[6, 6, 6, 2, 5, 6, 3, 1, 4, 5])
    assert rec.turns[0].rolls == [[6, 6, 6], [2, 5, 6], [3, 5, 6]]
    assert rec.turns[0].hand == [6, 6, 6] and rec.turns[0].category == "three_of_a_kind"
    assert rec.losers == [1] and rec.winner == 0
    assert rec.stacks_after == [17, 23]


@pytest.mark.parametrize("final_hand", ["last", "best"])
def test_view_shows_the_best_throw_so_far(final_hand: str) -> None:
    rules = zz.load_ruleset("classic", final_hand=final_hand)
    seen: list[tuple[int, int]] = []

    def watch(view: View) -> int:
        seen.append((view.rolls_used, view.turn_best_rank))  # type: ignore[attr-defined]
        return 0 if view.rolls_used == 1 else 7

    # Seat 0: 6-6-6, then 2-5-6 and stops; seat 1: 1-4-5. turn_best_rank is the rank of the hand the
    # turn would score by stopping now: after roll 2 that is 6-6-6 under best, 2-5-6 under last.
    zz.play_round(rules, [watch, lambda v: 7], dice=[6, 6, 6, 2, 5, 6, 1, 4, 5])
    first, second = rules.score((6, 6, 6)).rank, rules.score((2, 5, 6)).rank
    assert seen == [(1, first), (2, first if final_hand == "best" else second)]


# ---- the same rules on random play: oracles for every round (RULES.md §7-§9) ----------------------------


def random_policy(seed: int) -> Callable[[View], int]:
    """Uniform over the legal hold masks (all 8, or re-throw all / stop without holds)."""
    rng = np.random.default_rng(seed)
    return lambda view: int(rng.choice(8 if view.ruleset.holds_allowed else [0, 7]))


def table_lives(rules: zz.Ruleset, top: Any) -> int:
    """Lives each loser loses for the top hand ``top``, read off ``lives_table`` (RULES.md §7)."""
    value = rules.lives_table[top.category]
    return int(top.dice[0] if value == "face" else value)


@pytest.mark.parametrize("name", ["classic", "alt_chips", "lives"])
def test_best_throw_is_every_turns_hand_in_random_games(name: str) -> None:
    rules = zz.load_ruleset(name, final_hand="best", max_rounds=30)
    for seed in range(5):
        game = zz.play_game(rules, random_policy(seed), num_players=3, seed=seed)
        for turn in (t for r in game.rounds for t in r.turns):
            ranks = [rules.score(d).rank for d in turn.rolls]
            assert turn.rank == max(ranks), turn
            assert turn.hand == turn.rolls[ranks.index(max(ranks))]  # the earliest best throw


@pytest.mark.parametrize("instant", ["no_loss", "worst_so_far_loses"])
def test_losers_lose_the_top_hands_lives_in_random_games(instant: str) -> None:
    table = {**SEED_TABLE, "zanzibar": 2}
    rules = zz.load_ruleset(
        "lives",
        payment="lives_by_highest_hand",
        lives_table=table,
        instant_zanzibar=instant,
        starting_stack=20,
    )
    for seed in range(8):
        game = zz.play_game(rules, random_policy(seed), num_players=4, seed=seed)
        assert game.winners
        for rnd in game.rounds:
            hands = [rules.score(t.hand) for t in rnd.turns]
            top = rules.score((1, 2, 4)) if rnd.ended_by_zanzibar else max(hands)
            for seat, change in enumerate(rnd.transfers):
                lost = min(rnd.stacks_before[seat], table_lives(rules, top)) if seat in rnd.losers else 0
                assert change == -lost, (rnd, seat)


@pytest.mark.parametrize("payment", ["one_life", "lives_by_highest_hand"])
def test_penalty_games_in_random_play(payment: str) -> None:
    extra = {"lives_table": SEED_TABLE} if payment == "lives_by_highest_hand" else {}
    rules = zz.load_ruleset("penalty", payment=payment, **extra)
    for seed in range(6):
        n = 2 + seed % 4
        game = zz.play_game(rules, random_policy(seed), num_players=n, seed=seed)
        assert len(game.rounds) == rules.num_rounds and not game.truncated
        for rnd in game.rounds:
            if not rnd.ended_by_zanzibar:
                assert sorted(t.seat for t in rnd.turns) == list(range(n)), "nobody is ever out"
            top = max(rules.score(t.hand) for t in rnd.turns)
            cost = 1 if payment == "one_life" else table_lives(rules, top)
            assert rnd.transfers == [cost if s in rnd.losers else 0 for s in range(n)]
        final = game.final_stacks
        assert final == [sum(r.transfers[s] for r in game.rounds) for s in range(n)]
        assert game.winners == [s for s in range(n) if final[s] == min(final)]


# ---- the options in the envs --------------------------------------------------------------------------


def test_penalty_env_episode_is_num_rounds_and_rewards_are_minus_points() -> None:
    from zanzibar_env.envs.env import ZanzibarEnv

    rules = zz.load_ruleset("penalty", num_rounds=4)
    env = ZanzibarEnv(ruleset=rules, num_players=3, opponents="random", seat=1)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        total, rounds, done = 0.0, list(info["rounds"]), False
        while not done:
            _, reward, term, trunc, info = env.step(7)
            total, done = total + reward, term or trunc
            rounds += info["rounds"]
        # terminated (not truncated) after exactly num_rounds rounds; "chips" reward = minus points taken
        assert term and not trunc and len(rounds) == 4
        assert total == -sum(r.transfers[1] for r in rounds)
        assert env.game is not None and env.game.record.winners


def test_best_throw_slot_shows_the_best_hand_so_far() -> None:
    from zanzibar_env.core.observation import decode
    from zanzibar_env.envs.env import ZanzibarEnv

    rules = zz.load_ruleset("classic", final_hand="best")
    # The agent (seat 0) throws 6-6-6, re-throws all: 2-5-6. Slot 3 (hand_rank) keeps 6-6-6's rank
    # (the hand it would score by stopping now); slots 0-2 show the dice on the table.
    env = ZanzibarEnv(ruleset=rules, seat=0, dice=[6, 6, 6, 2, 5, 6, 1, 4, 5] + [1] * 30)
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(0)
    d = decode(obs, rules)
    assert d["dice"] == (2, 5, 6) and d["hand_rank"] == rules.score((6, 6, 6)).rank
