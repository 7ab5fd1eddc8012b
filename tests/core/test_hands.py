"""Hands and their ranking: every scoring example of seed 000 and each ruleset's ranking order."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import zanzibar_env as zz
from zanzibar_env.core.hands import MULTISETS, THROWS, hand_table

# ---- seed 000, "Scoring Example": each throw and its points ---------------------------------------
SEED_000_EXAMPLES = [((1, 4, 5), 109), ((2, 3, 6), 65), ((1, 5, 5), 110), ((2, 4, 5), 11), ((3, 2, 2), 7)]


@pytest.mark.parametrize(("dice", "points"), SEED_000_EXAMPLES)
@pytest.mark.parametrize("ruleset", ["classic", "alt_chips"])
def test_seed_000_scoring_examples(ruleset: str, dice: tuple[int, int, int], points: int) -> None:
    hand = zz.score(dice, ruleset)
    assert hand.category == "points"
    assert hand.points == points


@pytest.mark.parametrize(
    ("dice", "points"),
    # "Ones and sixes are only worth 1 point and 6 points respectively"
    [((1, 4, 5), 10), ((2, 3, 6), 11), ((1, 5, 5), 11), ((2, 4, 5), 11), ((3, 2, 2), 7), ((1, 1, 6), 8)],
)
def test_simple_scoring_face_values(dice: tuple[int, int, int], points: int) -> None:
    hand = zz.score(dice, "simple_scoring")
    assert (hand.category, hand.points) == ("points", points)


def test_seed_000_round_example_1_3_6_scores_163_not_the_seeds_161() -> None:
    # "Player 5 rolls 1,3,6 and scores 161 points.": the seed's own slip; its table gives 100 + 3 + 60.
    assert zz.score((1, 3, 6)).points == 163
    assert zz.score((4, 4, 5)) < zz.score((1, 3, 6)), "player 4's 13 points stay the round's lowest"


def test_seed_000_examples_order_among_themselves() -> None:
    hands = [zz.score(d) for d, _ in SEED_000_EXAMPLES]
    by_points = sorted(hands, key=lambda h: h.points)
    assert sorted(hands) == by_points
    assert zz.score((1, 5, 5)) > zz.score((1, 4, 5)) > zz.score((2, 3, 6)) > zz.score((2, 4, 5))


CLASSIC_TOP = [(4, 5, 6), (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4), (5, 5, 5), (6, 6, 6), (1, 2, 3)]


@pytest.mark.parametrize("ruleset", ["classic", "simple_scoring", "alt_chips"])
def test_456_ranking_top_categories(ruleset: str) -> None:
    """4-5-6 > 1-1-1 > 2-2-2 > ... > 6-6-6 > 1-2-3 > every points hand."""
    top = [zz.score(d, ruleset) for d in CLASSIC_TOP]
    assert all(a > b for a, b in itertools.pairwise(top))
    assert [h.category for h in top] == ["zanzibar"] + ["three_of_a_kind"] * 6 + ["one_two_three"]
    best_points = max(zz.score(m, ruleset) for m in MULTISETS if zz.score(m, ruleset).category == "points")
    assert top[-1] > best_points
    expected = ((1, 1, 6), 260) if ruleset != "simple_scoring" else ((5, 6, 6), 17)
    assert (best_points.dice, best_points.points) == expected


def test_classic_points_order_and_ties() -> None:
    # 1-1-6 = 260 is the best points hand; 2-2-3 = 7 the worst
    assert zz.score((1, 1, 6)).points == 260
    pts = sorted(h for h in (zz.score(m) for m in MULTISETS) if h.category == "points")
    assert pts[-1].dice == (1, 1, 6) and pts[0].dice == (2, 2, 3)
    # equal points are equal hands, whatever the dice
    assert zz.score((2, 4, 5)) == zz.score((3, 3, 5)) == zz.score((3, 4, 4))
    assert zz.score((2, 4, 5)) != zz.score((2, 4, 4))


LIVES_TOP = [(1, 2, 4), (6, 6, 6), (5, 5, 5), (4, 4, 4), (3, 3, 3), (2, 2, 2), (1, 1, 1)]


def test_lives_ranking() -> None:
    """4-2-1 > 6-6-6 > ... > 1-1-1 > pairs (by pair face, then kicker) > sums (equal sums equal)."""
    s = lambda d: zz.score(d, "lives")  # noqa: E731
    top = [s(d) for d in LIVES_TOP]
    assert all(a > b for a, b in itertools.pairwise(top))
    assert top[0].category == "zanzibar" and {h.category for h in top[1:]} == {"three_of_a_kind"}
    pairs = [s((p, p, k)) for p in range(6, 0, -1) for k in range(6, 0, -1) if k != p]
    assert all(h.category == "pair" for h in pairs)
    assert all(a > b for a, b in itertools.pairwise(pairs)), "pairs by the pair's face, then the kicker"
    assert s((1, 1, 1)) > pairs[0] and pairs[-1] > s((3, 5, 6))
    assert s((6, 6, 1)) > s((5, 5, 6)) and s((2, 2, 3)) > s((2, 2, 1)) > s((4, 5, 6))
    assert s((1, 3, 5)) == s((2, 3, 4)) and s((1, 3, 5)).points == 9
    assert s((3, 5, 6)) > s((2, 5, 6)) > s((1, 2, 3))
    assert min(s(m) for m in MULTISETS).dice == (1, 2, 3)
    # 1-2-3 and 4-5-6 are ordinary sums here
    assert s((4, 5, 6)).category == "sum" and s((1, 2, 3)).category == "sum"


def test_category_counts_and_num_ranks() -> None:
    classic = zz.load_ruleset("classic").table
    cats = [h.category for h in classic.hands]
    assert cats.count("zanzibar") == 1 and cats.count("three_of_a_kind") == 6
    assert cats.count("one_two_three") == 1 and cats.count("points") == 48
    points_values = {h.points for h in classic.hands if h.category == "points"}
    assert classic.num_ranks == 8 + len(points_values)
    lives = zz.load_ruleset("lives").table
    cats = [h.category for h in lives.hands]
    assert (cats.count("zanzibar"), cats.count("three_of_a_kind"), cats.count("pair")) == (1, 6, 30)
    sums = {h.points for h in lives.hands if h.category == "sum"}
    assert sums == set(range(6, 16)) - {7} and lives.num_ranks == 1 + 6 + 30 + 9  # 7 = 1+2+4 only


@pytest.mark.parametrize("ruleset", ["classic", "simple_scoring", "lives"])
def test_throw_table_matches_score(ruleset: str) -> None:
    table = zz.load_ruleset(ruleset).table
    assert len(THROWS) == 216 and len(MULTISETS) == 56
    for i, t in enumerate(THROWS):
        assert i == 36 * (t[0] - 1) + 6 * (t[1] - 1) + (t[2] - 1)
        assert table.rank_of_throw[i] == zz.score(t, ruleset).rank == zz.score(t[::-1], ruleset).rank
    assert np.array_equal(np.sort(np.unique(table.rank_of_multiset)), np.arange(table.num_ranks))
    for r in range(table.num_ranks):
        assert table.hand_of_rank(r).rank == r


def test_hand_is_hashable_named_and_table_bound() -> None:
    assert len({zz.score((2, 4, 5)), zz.score((5, 4, 2)), zz.score((3, 3, 5))}) == 1
    assert zz.score((6, 5, 4)).dice == (4, 5, 6)
    assert zz.score((4, 5, 6)).describe() == "4-5-6 Zanzibar"
    assert zz.score((1, 2, 3)).describe() == "1-2-3"
    assert zz.score((2, 2, 2)).describe() == "2-2-2 three of a kind"
    assert zz.score((1, 4, 5)).describe() == "1-4-5 (109 points)"
    assert zz.score((2, 2, 5), "lives").describe() == "2-2-5 pair"
    assert zz.score((1, 2, 4), "lives").describe() == "1-2-4 Zanzibar"
    assert zz.score((np.int64(1), 2, 4), "lives").category == "zanzibar"
    with pytest.raises(TypeError, match="different tables"):
        _ = zz.score((1, 2, 3)) < zz.score((1, 2, 3), "lives")
    assert zz.score((1, 2, 3)) != "1-2-3"


@pytest.mark.parametrize(
    "dice",
    [(0, 1, 2), (1, 2, 7), (1, 2), (1, 2, 3, 4), (), "123", None, 5, (1.0, 2, 3), (True, 2, 3), (-1, 2, 3)],
)
def test_bad_dice_raise_value_error(dice: object) -> None:
    with pytest.raises(ValueError, match=r"dice|die"):
        zz.score(dice)


def test_unknown_ranking_raises() -> None:
    with pytest.raises(ValueError, match="unknown hand ranking"):
        hand_table("zanzibar_999")
