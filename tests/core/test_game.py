"""play_game infers the table size from the policies it is given."""

from __future__ import annotations

import pytest

import zanzibar_env as zz


def test_four_policies_make_a_four_player_game() -> None:
    bots = [zz.make_agent(name) for name in ("greedy", "threshold", "escape", "random")]
    record = zz.play_game("classic", bots, seed=0)
    assert len(record.final_stacks) == 4


def test_one_policy_still_means_two_seats_and_num_players_still_wins() -> None:
    assert len(zz.play_game("classic", zz.make_agent("greedy"), seed=0).final_stacks) == 2
    with pytest.raises(ValueError, match="got 3 policies for 2 players"):
        zz.play_game("classic", [lambda v: 7] * 3, num_players=2)


@pytest.mark.parametrize("count", [1, 9])
def test_a_table_size_out_of_range_names_the_policies(count: int) -> None:
    with pytest.raises(ValueError, match=f"got {count} policies: give one per seat"):
        zz.play_game("classic", [lambda v: 7] * count)
