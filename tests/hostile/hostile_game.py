"""Generators of hostile arguments for the game functions (``play_game``, ``play_round``, ``decode``) and
for what reaches a terminal (``zanzibar render``, ``ansi`` rendering), for :mod:`tests.hostile.hostile`.

The same conventions as :mod:`tests.hostile.hostile_api` (which holds the env generators and the shared oracles):
curated cases first, then ``n`` random ones, each judged by the documented rule for its argument.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .hostile import Case
from .hostile_api import CONTROL, VALUES, _agents, _int, _seed_ok
from .hostile_cases import _pick


# ---- the game: play_game, play_round, decode -------------------------------------------------------
def _replays(rec: Any) -> bool:
    from zanzibar_env import replay_game

    replay_game(rec)
    return True


def _decode_bad(obs: np.ndarray) -> bool:
    """The documented limits of ``observation.decode``: 33 finite floats in ``[-1, 8]``, dice faces 1-6
    (all 0 after the episode), a table of 2-8."""
    if obs.shape != (33,) or not np.isfinite(obs).all() or obs.min() < -1 or obs.max() > 8:
        return True
    faces = obs[:3] * 6
    whole = np.abs(faces - np.round(faces)).max() < 1e-3 and abs(obs[32] * 8 - round(obs[32] * 8)) < 1e-3
    dice_ok = (np.round(faces) == 0).all() or ((np.round(faces) >= 1) & (np.round(faces) <= 6)).all()
    return not (whole and dice_ok and 2 <= round(obs[32] * 8) <= 8)


def _stacks_ok(stacks: Any, n: Any) -> bool:
    if stacks is None:
        return True
    if isinstance(stacks, np.ndarray) and stacks.ndim == 1:
        stacks = list(stacks)
    return isinstance(stacks, (list, tuple)) and len(stacks) == n and all(_int(s, 1) for s in stacks)


def game_api_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """``play_game`` / ``play_round`` arguments (seeds, policies, stacks, seats) and ``observation.decode``."""
    import zanzibar_env as zz
    from zanzibar_env.core.observation import decode, encode

    yield Case("play_game(seed='abc')", lambda: zz.play_game(seed="abc"))  # type: ignore[arg-type]
    yield Case("play_round(stacks=[0, 0])", lambda: zz.play_round(stacks=[0, 0], seed=0))
    yield Case("play_round(stacks=[0, 3])", lambda: zz.play_round(stacks=[0, 3], seed=0), bad=False)
    yield Case(
        "play_round penalty [0, 0]", lambda: zz.play_round("penalty", stacks=[0, 0], seed=0), bad=False
    )
    yield Case("play_round seed Generator", lambda: zz.play_round(seed=np.random.default_rng(1)), bad=False)
    for spec, _ in _agents():  # a function of the view or an instance with a callable act (no names)
        act = getattr(spec, "act", spec)
        ok = spec is None or (callable(act) and not isinstance(spec, (type, str)))
        yield Case(
            f"play_game policies={spec!r}",
            lambda s=spec: zz.play_game(policies=s, seed=0, max_rounds=3),
            bad=not ok,
        )
    rules = zz.load_ruleset("classic")
    good = encode(zz.GameState(rules, 3, zz.RandomDice(1)).view())
    yield Case("decode good", lambda: decode(good, rules), bad=False)
    for obs in (
        good[:32],
        np.concatenate([good, [0.0]]),
        good.reshape(1, 33),
        "x",
        None,
        [],
        ["x"] * 33,
    ):
        yield Case(f"decode {obs!r}", lambda o=obs: decode(o, rules))
    yield Case("decode ruleset='nope'", lambda: decode(good, "nope"))  # type: ignore[arg-type]
    for k in range(n):
        obs = good.astype(np.float64)
        i = int(rng.integers(33))
        obs[i] = _pick(rng, [math.nan, math.inf, -math.inf, 7 / 6, 100.0, -5.0, 0.0, 1.0, 0.5, 1 / 6, 0.25])
        yield Case(
            f"decode {k} obs[{i}]={obs[i]!r}", lambda o=obs: decode(o, rules), bad=_decode_bad(obs) or None
        )
        kw: dict[str, Any] = {}
        for _ in range(int(rng.integers(1, 3))):
            key = _pick(rng, ["seed", "num_players", "first_seat", "max_rounds", "stacks"])
            kw[key] = _pick(rng, [*VALUES, 0, 2, 3, [5, 5], [5, 5, 5], [np.int64(4), 4]])
        sized = isinstance(kw.get("stacks"), (list, tuple)) or np.ndim(kw.get("stacks")) == 1
        np_ = kw.get("num_players")
        np_ = (len(kw["stacks"]) if sized else 2) if np_ is None else np_
        oks = {
            "seed": _seed_ok(kw.get("seed")),
            "num_players": kw.get("num_players") is None or _int(kw["num_players"], 2, 8),
            "first_seat": _int(kw.get("first_seat", 0), 0, (np_ - 1) if _int(np_, 2, 8) else 1),
            "max_rounds": kw.get("max_rounds") is None or _int(kw["max_rounds"], 1),
            "stacks": _stacks_ok(kw.get("stacks"), np_),
        }
        yield Case(
            f"play_game {k} {kw!r}",
            lambda kw=kw: zz.play_game(**kw),
            bad=not all(oks.values()),
            valid=_replays,
        )
        rkw = {
            ("starting_seat" if key == "first_seat" else key): v
            for key, v in kw.items()
            if key != "max_rounds"
        }
        round_ok = all(ok for key, ok in oks.items() if key != "max_rounds")
        yield Case(f"play_round {k} {rkw!r}", lambda kw=rkw: zz.play_round(**kw), bad=not round_ok)


# ---- terminals: render, replay, ansi -----------------------------------------------------------------
def _clean(text: Any) -> bool:
    return isinstance(text, str) and not CONTROL.search(text)


def _command(module: str, argv: list[str]) -> str:
    """Run a command's ``main(argv)`` with its output captured: the text (exit 0), else ``ValueError``."""
    from rich.console import Console

    from .hostile import main_of

    buf = io.StringIO()
    kwargs: dict[str, Any] = {}
    if module.endswith("replay"):
        kwargs = {"console": Console(file=buf, width=200), "interactive": False}
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            code = main_of(module)(argv, **kwargs)
        except SystemExit as e:
            code = e.code
    text = buf.getvalue()
    if code:
        last = text.strip().splitlines()[-1] if text.strip() else ""
        if "Traceback" in text or CONTROL.search(last):
            raise RuntimeError(text[-300:])
        raise ValueError(last)
    return text


def terminal_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """``zanzibar render`` arguments and record text (ruleset names with escape codes) on a terminal."""
    import zanzibar_env as zz

    out = str(tmp / "frame.png")
    render = "zanzibar_env.ui.render"
    for argv in (["--agent", "nope"], ["--round", "-5"], ["--round", "0"], ["--agent", "ppo:/nope.zip"],
                 ["--agent", "no_such_module_xyz:Bot"], ["--players", "1"]):  # fmt: skip
        yield Case(f"render {argv}", lambda a=argv: _command(render, [*a, "--out", out, "--force"]))
    yield Case(
        "replay escape file name", lambda: _command("zanzibar_env.ui.replay", [str(tmp / "\x1b[2Jx.jsonl")])
    )
    yield Case(
        "zanzibar replay escape file name",
        lambda: _command("zanzibar_env.ui.cli", ["replay", "\x1b]0;x\x07"]),
    )
    yield Case("render ok", lambda: _command(render, ["--out", out, "--force"]), bad=False, valid=_clean)
    names = ["\x1b[31mred\x1b[0m", "bell\x07", "\x9b2J", "clear\x1b[2J\x1b[H", "nul\x00", "ok name"]
    for k in range(n):
        name = names[k % len(names)] if k < len(names) else "".join(
            chr(int(c)) for c in rng.integers(0, 0xA0, size=int(rng.integers(1, 12))))  # fmt: skip
        rec = zz.play_game(num_players=2, seed=k, max_rounds=2).to_dict()
        rec["ruleset"]["name"] = name
        rec["ruleset"]["description"] = name
        path = tmp / f"escape_{k}.jsonl"
        path.write_text(json.dumps(rec) + "\n")
        yield Case(
            f"replay name {name!r}",
            lambda p=path: _command("zanzibar_env.ui.replay", [str(p)]),
            bad=False,
            valid=_clean,
        )
        rules = zz.load_ruleset("classic").to_dict()
        rules["name"] = name
        yield Case(f"ansi name {name!r}", lambda r=rules: _ansi(r), bad=False, valid=_clean)


def _ansi(rules: dict[str, Any]) -> str:
    from zanzibar_env.envs.env import ZanzibarEnv

    env = ZanzibarEnv(ruleset=rules, render_mode="ansi")
    env.reset(seed=0)
    return env.render()  # type: ignore[no-any-return]


GENERATORS = (game_api_cases, terminal_cases)
