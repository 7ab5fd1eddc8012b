"""Pictures of the table: rgb frames for every ruleset and finished games, held dice, text form, video."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pytest
from PIL import Image

import zanzibar_env as zz
from zanzibar_env.agents import make_agent
from zanzibar_env.core.dice import RandomDice, ScriptedDice
from zanzibar_env.ui.render import (
    DIE,
    GOLD,
    HEIGHT,
    WIDTH,
    held_mask,
    main,
    render_ansi,
    render_rgb,
    snapshot,
)


def _game(ruleset: str, n: int, seed: int, decisions: int | None = None) -> zz.GameState:
    """A game after ``decisions`` random decisions (``None``: played to the end)."""
    game = zz.GameState(zz.load_ruleset(ruleset), n, RandomDice(seed))
    bot = make_agent("random", seed=seed)
    k = 0
    while not game.done and (decisions is None or k < decisions):
        game.apply(bot.act(game.view()))
        k += 1
    return game


@pytest.mark.parametrize("ruleset", zz.available_rulesets())
@pytest.mark.parametrize("n", [2, 8])
def test_rgb_shape_and_dtype_mid_game_and_finished(ruleset: str, n: int) -> None:
    for game in (_game(ruleset, n, seed=n, decisions=7), _game(ruleset, n, seed=n)):
        frame = render_rgb(game, seat=0)
        assert frame.shape == (HEIGHT, WIDTH, 3) == (400, 640, 3)
        assert frame.dtype == np.uint8
        colours = frame.reshape(-1, 3).astype(np.int64) @ np.array([1 << 16, 1 << 8, 1])
        assert len(np.unique(colours)) > 20  # text, dice and panels, not a blank
        assert np.array_equal(frame, render_rgb(game, seat=0))  # a pure function of the state
    assert game.done
    text = render_ansi(game, seat=0)
    assert "win" in text and "\x1b" not in text


def test_held_dice_are_tracked_and_drawn_gold() -> None:
    # seat 0 throws 2-5-6, keeps 5 and 6 (mask 0b110), rethrows one die: a 1 -> dice 1-5-6
    game = zz.GameState(zz.load_ruleset("classic"), 2, ScriptedDice([2, 5, 6, 1] + [3] * 60))
    assert held_mask(game.round) == 0
    game.apply(0b110)
    assert game.round.dice == (1, 5, 6)
    assert held_mask(game.round) == 0b110
    s = snapshot(game, seat=1)
    assert s.held == 0b110 and s.rolls_used == 2 and s.roll_limit == 3
    assert s.players[1].highlight and s.players[0].to_act
    frame = render_rgb(game, seat=1)
    rim_y = 78 + DIE // 2  # left edge of each die, half way down: gold rim only if held
    rims = [tuple(frame[rim_y, 24 + i * 118 + 3]) for i in range(3)]
    assert rims[0] != GOLD and rims[1] == GOLD and rims[2] == GOLD
    text = render_ansi(game, seat=1)
    assert "[1] 1   [2] 5*  [3] 6*" in text
    assert "Player 2 (agent)" in text


def test_ansi_shows_the_hand_to_beat_and_last_round() -> None:
    dice = [4, 4, 5, 5, 1, 3, 6, 2, 3, 4] + [4, 5, 6] * 40
    game = zz.GameState(zz.load_ruleset("classic"), 3, ScriptedDice(dice))
    game.apply(0b011)  # Player 1 keeps 4 4, rethrows a 5: 4-4-5 (13 points)
    game.apply(7)  # ... and stops after 2 rolls, which sets the roll limit to 2
    game.apply(7)  # Player 2 stops on 1-3-6 (163 points)
    text = render_ansi(game)
    assert "Player 3 to play" in text and "(roll 1 of 2" in text
    assert "To beat (lowest so far): Player 1: 4-4-5 (13 points)" in text
    assert "Highest so far: Player 2: 1-3-6 (163 points)" in text
    game.apply(7)  # Player 3 stops on 2-3-4 (9 points): lowest, pays nothing, receives 1 from each
    text = render_ansi(game)
    assert "round 2 | Player 2 to play" in text
    assert (
        "Last round: Player 3 had the lowest hand, 2-3-4 (9 points); the highest was Player 2's "
        "1-3-6 (163 points), so everyone else pays Player 3 1 chip. "
        "Chips: Player 1 -1, Player 2 -1, Player 3 +2."
    ) in text
    with pytest.raises(ValueError, match="seat must be"):
        render_ansi(game, seat=3)


def test_screenshot_command_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, final = tmp_path / "frame.png", tmp_path / "final.png"
    assert main(["--out", str(out), "--final", str(final), "--seed", "3", "--agent", "random"]) == 0
    for path in (out, final):
        with Image.open(path) as img:
            assert img.size == (WIDTH, HEIGHT) and img.mode == "RGB"
    printed = capsys.readouterr().out
    assert "ms/frame" in printed and "HELD" not in printed and "*" in printed


def test_record_video_of_a_game(tmp_path: Path) -> None:
    if "Zanzibar-v1" not in gymnasium.registry:
        pytest.skip("Zanzibar-v1 is not registered yet (the env is another issue)")
    moviepy = pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    rules = zz.load_ruleset("classic", starting_stack=6)  # a whole game, kept short
    env = gymnasium.make("zanzibar_env:Zanzibar-v1", render_mode="rgb_array", ruleset=rules)
    folder = tmp_path / "videos"
    env = RecordVideo(env, str(folder), episode_trigger=lambda episode: True, disable_logger=True)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    terminated = truncated = False
    steps = 0
    while not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        steps += 1
    env.close()
    assert terminated and steps > 5
    (video,) = folder.glob("*.mp4")
    clip = moviepy.VideoFileClip(str(video))
    try:
        assert tuple(clip.size) == (WIDTH, HEIGHT)
        assert round(clip.duration * clip.fps) == steps + 1  # the reset frame and one per step
    finally:
        clip.close()
