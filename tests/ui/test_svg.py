"""SVG pictures: every state of a saved game, a View, a round record; the notebook hooks; ``render --record``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import zanzibar_env as zz
from zanzibar_env.core.dice import RandomDice, ScriptedDice
from zanzibar_env.ui import render_cli
from zanzibar_env.ui.layout import table_shapes
from zanzibar_env.ui.svg import animated_svg, game_svg, record_frames, record_snapshots, round_svg, view_svg
from zanzibar_env.ui.table import snapshot

SVG = "{http://www.w3.org/2000/svg}"


def _record(ruleset: str = "classic", n: int = 3, seed: int = 4) -> zz.GameRecord:
    rules = zz.load_ruleset(ruleset, starting_stack=4) if ruleset == "classic" else zz.load_ruleset(ruleset)
    return zz.play_game(rules, zz.make_agent("greedy", seed=seed), num_players=n, seed=seed)


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


@pytest.mark.parametrize(("ruleset", "n"), [("classic", 2), ("classic", 8), ("lives", 3)])
def test_every_state_of_a_saved_game_is_valid_svg(ruleset: str, n: int) -> None:
    rec = _record(ruleset, n)
    frames = record_frames(rec)
    decisions = sum(len(t.actions) for r in rec.rounds for t in r.turns)
    assert len(frames) == decisions + 1
    for svg in frames:
        root = ET.fromstring(svg)  # well-formed XML
        assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 640 400"
        assert len(root.findall(f"{SVG}g")) == 3  # the three dice
    assert any("win" in t for t in _texts(frames[-1]))


def test_held_dice_are_marked_in_the_svg() -> None:
    game = zz.GameState(zz.load_ruleset("classic"), 2, ScriptedDice([2, 5, 6, 1] + [3] * 60))
    game.apply(0b110)  # keep 5 and 6, rethrow one die: a 1
    root = ET.fromstring(game_svg(game))
    dice = root.findall(f"{SVG}g")
    assert [d.get("data-face") for d in dice] == ["1", "5", "6"]
    assert [d.get("class") for d in dice] == ["die", "die held", "die held"]
    assert "2  HELD" in _texts(game_svg(game))


def test_pillow_and_svg_draw_the_same_layout() -> None:
    """The PNG frame paints the shapes the SVG writes: the same dice at the same places."""
    pytest.importorskip("PIL")
    from zanzibar_env.ui.layout import Die
    from zanzibar_env.ui.render import render_rgb

    game = zz.GameState(zz.load_ruleset("classic"), 2, ScriptedDice([2, 5, 6, 1] + [3] * 60))
    game.apply(0b110)
    dice = [sh for sh in table_shapes(snapshot(game)) if isinstance(sh, Die)]
    frame = render_rgb(game)
    for die in dice:  # the gold rim of a held die sits on the die's left edge, half way down
        rim = tuple(frame[int(die.y + die.size // 2), int(die.x) + 3])
        assert (rim == (250, 200, 60)) == die.held


def test_repr_svg_of_view_round_and_game() -> None:
    rec = _record()
    assert ET.fromstring(rec._repr_svg_()).tag == f"{SVG}svg"
    assert "Round of 3 players" in " ".join(_texts(rec.rounds[0]._repr_svg_()))
    game = zz.GameState(zz.load_ruleset("classic"), 4, RandomDice(1))
    view = game.view()
    texts = _texts(view._repr_svg_())
    assert "Player 1 to play" in texts and view_svg(view) == view._repr_svg_()
    assert ET.fromstring(round_svg(rec.rounds[-1]))


def test_a_record_that_does_not_replay_is_refused() -> None:
    rec = _record()
    bad = zz.GameRecord.from_dict(rec.to_dict())
    bad.rounds[0].dice_drawn[0] = 7 - bad.rounds[0].dice_drawn[0]
    with pytest.raises(ValueError, match="does not replay"):
        list(record_snapshots(bad))
    with pytest.raises(ValueError, match="frames"):
        animated_svg([])


def test_animated_svg_holds_every_state() -> None:
    rec = _record(n=2)
    snaps = list(record_snapshots(rec))
    root = ET.fromstring(animated_svg(snaps, 0.5))
    assert len(root.findall(f"{SVG}g/{SVG}animate")) == len(snaps)


def test_render_record_writes_svg_frames_and_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = _record(n=2)
    path = tmp_path / "game.jsonl"
    rec.save(path)
    out, frames = tmp_path / "game.svg", tmp_path / "frames"
    assert render_cli.main(["--record", str(path), "--out", str(out), "--frames", str(frames)]) == 0
    n = len(list(record_snapshots(rec)))
    assert len(list(frames.glob("frame_*.svg"))) == n
    assert ET.parse(out).getroot().tag == f"{SVG}svg"
    assert f"{n} states" in capsys.readouterr().out
    one = tmp_path / "one.json"  # a single record, indented
    one.write_text(json.dumps(rec.to_dict(), indent=2))
    pytest.importorskip("PIL")
    gif = tmp_path / "game.gif"
    assert render_cli.main(["--record", str(one), "--out", str(gif)]) == 0
    from PIL import Image

    assert Image.open(gif).n_frames == n


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("not json\n", [], "not a game record"),
        ("", [], "no game"),
        ('{"num_players": 2}\n', [], "not a game record"),
        (None, ["--game", "3"], "game must be 1-1"),
        (None, ["--out", "x.png"], "must end in .svg or .gif"),
    ],
)
def test_bad_record_files_get_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, args: list[str], message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    if content is None:
        _record(n=2).save(path)
    else:
        path.write_text(content)
    argv = ["--record", str(path), *args]
    if "--out" not in args:
        argv += ["--out", str(tmp_path / "o.svg")]
    with pytest.raises(SystemExit) as e:
        render_cli.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_missing_record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        render_cli.main(["--record", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o.svg")])
    assert "record file not found" in capsys.readouterr().err
