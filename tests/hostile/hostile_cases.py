"""Generators of hostile inputs for :mod:`tests.hostile.hostile`: each yields ``Case`` objects.

Every generator takes a numpy ``Generator`` (what to try), a scratch directory and a budget ``n``.
Curated cases reproduce what an earlier hostile review found; generated ones mutate valid inputs at random.
"""

from __future__ import annotations

import copy
import json
import math
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .hostile import Case

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "ppo_classic_2p.zip"
HOSTILE_VALUES: list[Any] = [
    None, True, False, 0, -1, 2.5, 4.9, math.nan, math.inf, -math.inf, 10**30, "", "x", "2.5", "1e309",
    "../../x", "[/b]", "\x00", [], {}, [1, 2, 3], {"a": 1}, [[[[]]]],
]  # fmt: skip


def _pick(rng: np.random.Generator, seq: list[Any]) -> Any:
    return copy.deepcopy(seq[int(rng.integers(len(seq)))])


# ---- rulesets -------------------------------------------------------------------------------------
def _sane_ruleset(r: Any) -> bool:
    from zanzibar_env import Ruleset
    from zanzibar_env.core.game import play_game

    if not isinstance(r, Ruleset):
        return False
    hash(r)
    ints = [r.starting_stack, r.max_rolls, r.one_points, r.six_points, r.lives_lost, *r.payments.values()]
    if any(isinstance(v, bool) or not isinstance(v, int) for v in ints):
        return False
    rec = play_game(r, seed=0, max_rounds=20)  # plays, and ends (or is truncated at the cap)
    return len(rec.rounds) <= 20


def ruleset_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Curated bad rulesets, mutated option mappings and random YAML files."""
    from zanzibar_env import load_ruleset

    base = load_ruleset("classic").to_dict()
    zero = {k: 0 for k in base["payments"]}
    curated: list[dict[str, Any]] = [
        {"payments": zero},
        {"payments": {**base["payments"], "points": 1.5}},
        {"starting_stack": True},
        {"max_rolls": 2.5},
        {"max_rounds": math.inf},
        {"max_rounds": 10**9},
        {"name": None},
        {"nope": 1},
        {"payments": {"points": 1}},
        {"payments": [1, 2, 3, 4]},
    ]
    for k, over in enumerate(curated):
        yield Case(f"ruleset curated {k} {over}", lambda o=over: load_ruleset("classic", **o))

    def mutate_shared() -> None:
        try:
            load_ruleset("classic").payments["points"] = 0  # type: ignore[index]
        except TypeError as e:
            raise ValueError(str(e)) from None

    yield Case("mutate classic payments", mutate_shared)
    keys = list(base)
    for k in range(n):
        d = copy.deepcopy(base)
        for _ in range(int(rng.integers(1, 4))):
            key = _pick(rng, [*keys, "payments.points", "unknown"])
            if key.startswith("payments.") and isinstance(d["payments"], dict):
                d["payments"][key[9:]] = _pick(rng, HOSTILE_VALUES)
            else:
                d[key] = _pick(rng, HOSTILE_VALUES)
        yield Case(f"ruleset mutation {k}", lambda d=d: load_ruleset(d), bad=False, valid=_sane_ruleset)
    for k in range(max(1, n // 4)):
        path = tmp / f"rules_{k}.yaml"
        text = (ROOT / "configs" / "rules" / "classic.yaml").read_bytes()
        path.write_bytes(_garble(rng, text))
        yield Case(f"ruleset yaml {k}", lambda p=path: load_ruleset(p), bad=False, valid=_sane_ruleset)


def _garble(rng: np.random.Generator, data: bytes) -> bytes:
    """Random bytes, a truncation, or a few flipped/inserted bytes of ``data``."""
    kind = int(rng.integers(4))
    if kind == 0:
        return rng.bytes(int(rng.integers(0, 300)))
    if kind == 1:
        return data[: int(rng.integers(len(data) + 1))]
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 6))):
        i = int(rng.integers(len(out) + 1))
        if kind == 2 and i < len(out):
            out[i] = int(rng.integers(256))
        else:
            out[i:i] = bytes(rng.choice(list(b"{}[]:-!&*%@`'\"\n\t #"), 1).tolist())
    return bytes(out)


# ---- dice -----------------------------------------------------------------------------------------
def dice_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Dice of every wrong type; numpy ints are valid."""
    from zanzibar_env import load_ruleset
    from zanzibar_env.core.dice import ScriptedDice

    rules = load_ruleset("classic")
    for dice in (
        [4.9, 5, 6],
        "456",
        "456111",
        {4: 1, 5: 1, 6: 1},
        {4, 5, 6},
        [True, 2, 3],
        [0, 1, 2],
        [1, 2],
    ):
        yield Case(f"score {dice!r}", lambda d=dice: rules.score(d))
        if dice != [1, 2]:  # two faces are a valid (short) script
            yield Case(f"scripted {dice!r}", lambda d=dice: ScriptedDice(d))
    for k in range(n):
        faces: list[Any] = [1, 2, 3, 4, 5, 6, np.int64(4), np.int32(6)]
        dice = [_pick(rng, faces) for _ in range(int(rng.integers(2, 5)))]
        if k % 2:  # half of them with one value replaced by a hostile one
            dice[int(rng.integers(len(dice)))] = _pick(rng, HOSTILE_VALUES)
        ok = len(dice) == 3 and all(_die(v) for v in dice)
        yield Case(f"dice {k} {dice!r}", lambda d=dice: rules.score(d), bad=not ok)


def _die(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 1 <= v <= 6


# ---- model files ----------------------------------------------------------------------------------
def model_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Garbled model zips for ``ppo:PATH``; a valid result must be a Zanzibar-shaped model."""
    from zanzibar_env.agents.ppo_agent import load_model

    data = MODEL.read_bytes()
    for k in range(n):
        path = tmp / f"model_{k}.zip"
        path.write_bytes(_garble(rng, data) if k % 2 else _bad_data_entry(rng))
        yield Case(f"model {k}", lambda p=path: load_model(p), bad=False, valid=lambda m: m.algo is not None)


def _bad_data_entry(rng: np.random.Generator) -> bytes:
    """The shipped model with one JSON field of ``data`` replaced by a hostile value."""
    import io

    with zipfile.ZipFile(MODEL) as z:
        members = {name: z.read(name) for name in z.namelist()}
    d = json.loads(members["data"])
    key = _pick(rng, ["policy_class", "policy_kwargs", "observation_space", "action_space", "num_timesteps"])
    sub = _pick(
        rng, [None, "net_arch", "_shape", "n", ":serialized:", "activation_fn", "features_extractor_class"]
    )
    if sub is not None and isinstance(d.get(key), dict):
        d[key][sub] = _pick(rng, [*HOSTILE_VALUES, "<class 'os.system'>", "gAWVAAAA"])
    else:
        d[key] = _pick(rng, HOSTILE_VALUES)
    members["data"] = json.dumps(d).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, blob in members.items():
            z.writestr(name, blob)
    return buf.getvalue()


# ---- replay records -------------------------------------------------------------------------------
#: Record fields whose change leaves a 4-round chips game the same game (unused by its rules).
_BENIGN = {("ruleset", "description"), ("ruleset", "name"), ("ruleset", "lives_lost")}


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside nested dicts and lists."""
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    for key in path[:-1]:
        obj = obj[key]
    old = obj[path[-1]]
    obj[path[-1]] = value
    return old


def _replay(path: Path) -> int:
    import io

    from rich.console import Console

    from zanzibar_env.ui.replay import main

    buf = io.StringIO()
    code = main([str(path)], console=Console(file=buf, width=200), interactive=False)
    text = buf.getvalue()
    if "Traceback" in text:
        raise RuntimeError(text)
    if code == 1 and "Replay check FAILED" in text:
        raise ValueError(text.strip().splitlines()[-1])
    if code == 2:
        raise ValueError(text.strip().splitlines()[-1] if text.strip() else "")
    return code


def harmless_change(where: tuple[Any, ...], old: Any, new: Any, rounds: int) -> bool:
    """Whether replacing ``old`` by ``new`` at ``where`` leaves a chips game of ``rounds`` rounds the same
    game (same value and type, an option its rules do not use, or a seed claim dropped)."""
    if type(old) is type(new) and (old == new or (isinstance(old, float) and math.isnan(old))):
        return True
    unused_cap = where == ("ruleset", "max_rounds") and type(new) is int and new >= rounds
    return tuple(where[:2]) in _BENIGN or unused_cap or (where == ("seed",) and new is None)


def record_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Curated bad replay files, then records with one value replaced (exit 0 only if harmless)."""
    from zanzibar_env.core.game import play_game

    good = play_game("classic", num_players=3, seed=5, max_rounds=4).to_dict()
    (tmp / "adir").mkdir(exist_ok=True)
    seat99 = copy.deepcopy(good)
    seat99["rounds"][0]["turns"][0]["seat"] = 99
    null_rules = {**copy.deepcopy(good), "ruleset": None}
    markup = copy.deepcopy(good)
    markup["ruleset"]["name"] = "[/b]"
    stacks = copy.deepcopy(good)
    stacks["ruleset"]["starting_stack"] = 21
    seed = {**copy.deepcopy(good), "seed": 6}
    curated = {
        "empty": "",
        "seat99": json.dumps(seat99),
        "null_ruleset": json.dumps(null_rules),
        "deep": "[" * 100_000 + "]" * 100_000,
        "starting_stack": json.dumps(stacks),
        "false_seed": json.dumps(seed),
        "not_json": "{",
        "list": "[1, 2]",
    }
    for name, text in curated.items():
        path = tmp / f"replay_{name}.jsonl"
        path.write_text(text)
        yield Case(f"replay {name}", lambda p=path: _replay(p))
    path = tmp / "replay_markup.jsonl"
    path.write_text(json.dumps(markup))
    yield Case("replay markup name", lambda p=path: _replay(p), bad=False)
    yield Case("replay directory", lambda: _replay(tmp / "adir"))
    yield Case("replay long name", lambda: _replay(tmp / ("x" * 5000)))
    paths = _paths(good)
    for k in range(n):
        d = copy.deepcopy(good)
        where = paths[int(rng.integers(len(paths)))]
        new = _pick(rng, [*HOSTILE_VALUES, 99, 7, 1, 20])
        old = _set(d, where, new)
        bad = not harmless_change(where, old, new, len(good["rounds"]))
        path = tmp / f"replay_{k}.jsonl"
        path.write_text(json.dumps(d))
        yield Case(f"replay mutation {k} {where}={new!r}", lambda p=path: _replay(p), bad=bad)


# ---- training configs -----------------------------------------------------------------------------
def _sane_config(cfg: Any) -> bool:
    from zanzibar_env.train.config.training import FIELDS, _coerce

    return all(_coerce(k, getattr(cfg, k)) == getattr(cfg, k) for k in FIELDS)


def config_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Curated bad configs and configs with random keys set to hostile values."""
    from zanzibar_env.train.config.training import FIELDS, load_config

    (tmp / "malformed.yaml").write_text("defaults: ppo_defaults.yaml\nnum_envs: [1, 2\n")
    (tmp / "selfref.yaml").write_text("defaults: selfref.yaml\nnum_envs: 2\n")
    (tmp / "loop_a.yaml").write_text("defaults: loop_b.yaml\n")
    (tmp / "loop_b.yaml").write_text("defaults: loop_a.yaml\n")
    for name in ("malformed", "selfref", "loop_a"):
        yield Case(f"config {name}", lambda p=tmp / f"{name}.yaml": load_config(p))
    for over in (
        "total_timesteps=inf",
        "learning_rate=.inf",
        "learning_rate=.nan",
        "eval_bots=[greddy]",
        "num_envs='2.5'",
        "num_envs=2.5",
        "exp_name=../../x",
        "exp_name=a/b",
        "seat=True",
        "net_arch=[]",
        "max_rounds=0",
        "opponents=[]",
        "gamma=[1]",
        "=3",
        "num_envs=[1, 2",
    ):
        yield Case(f"config --set {over}", lambda o=over: load_config(overrides=[o]))
    keys = sorted(FIELDS)
    for k in range(n):
        pool = [*HOSTILE_VALUES, 4, 0.5, 64, "random", "greedy", [64], ["random"], "1e3"]
        sets = {_pick(rng, keys): _pick(rng, pool) for _ in range(int(rng.integers(1, 3)))}
        path = tmp / f"config_{k}.yaml"
        base = str(ROOT / "configs" / "ppo_classic_2p.yaml")
        path.write_text(json.dumps({"defaults": base, **sets}))  # JSON is YAML
        yield Case(f"config {sets}", lambda p=path: load_config(p), bad=False, valid=_sane_config)


# ---- command lines --------------------------------------------------------------------------------
def _nothing_new(root: Path, before: set[Path]) -> Any:
    def check() -> str | None:
        new = sorted(set(root.rglob("*")) - before)
        return f"wrote {[str(p) for p in new[:5]]}" if new else None

    return check


def cli_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Bad command lines of every command, run in-process through their ``main(argv)``."""
    from rich.console import Console

    from .hostile import main_of

    work = tmp / "cli"
    work.mkdir(exist_ok=True)
    precious = work / "precious.json"
    precious.write_text('{"keep": true}\n')
    rules = work / "rules.yaml"
    rules.write_text((ROOT / "configs" / "rules" / "classic.yaml").read_text())
    old_out = work / "results"
    old_out.mkdir(exist_ok=True)
    (old_out / "games.csv").write_text("old\n")
    (old_out / "games.jsonl").write_text("old\n")
    model = work / "model.zip"
    model.write_bytes(MODEL.read_bytes())
    (work / "empty.zip").write_bytes(b"")
    (work / "garbage.zip").write_bytes(rng.bytes(999))
    watch = [precious, rules, old_out / "games.csv", old_out / "games.jsonl", model]
    runs = work / "runs"

    def play(argv: list[str]) -> int:
        import io

        buf = io.StringIO()
        code = main_of("zanzibar_env.ui.play")(argv, input_fn=lambda _: "q", console=Console(file=buf))
        if code == 2:
            raise ValueError(buf.getvalue().strip().splitlines()[-1])
        return int(code)

    ppo = ["--set", f"runs_dir={runs}"]
    commands: list[tuple[str, list[str]]] = [
        ("train.tournament", ["--agents", "random,greedy", "--games", "2", "--out", str(precious)]),
        ("train.tournament", ["--agents", "random,greedy", "--games", "2", "--out", str(old_out)]),
        ("train.tournament", ["--agents", "random,greedy", "--games", "0"]),
        ("train.tournament", ["--agents", "random,greedy", "--players", "9"]),
        ("train.tournament", ["--agents", "random"]),
        ("train.tournament", ["--agents", f"random,ppo:{work / 'garbage.zip'}"]),
        ("train.evaluate", [str(work / "empty.zip")]),
        ("train.evaluate", [str(work / "garbage.zip")]),
        ("train.evaluate", [str(model), "--games", "0"]),
        ("train.evaluate", [str(model), "--games", "-3"]),
        ("train.evaluate", [str(model), "--export", str(model)]),
        ("train.evaluate", [str(model), "--export", str(work / "out.json")]),
        ("train.evaluate", [str(model), "--json", str(model), "--force"]),
        ("train.evaluate", [str(model), "--export", str(work / "x.zip"), "--json", str(precious)]),
        ("train.evaluate", [str(model), "--json", str(work / "missing" / "x.json")]),
        ("train.evaluate", [str(old_out)]),  # a directory without model.zip
        ("zanzibar_env.ui.render", ["--out", str(precious)]),
        ("zanzibar_env.ui.render", ["--out", "a\x00b.png"]),
        ("zanzibar_env.ui.render", ["--out", "x" * 5000]),
        ("train.tournament", ["--agents", "random,greedy", "--games", "2", "--out", "x" * 5000]),
        ("train.evaluate", [str(model), "--json", "x" * 5000]),
        ("train.evaluate", ["x" * 5000]),
        ("train.ppo", ["--resume", "x" * 5000]),
        ("train.ppo", [*ppo, "--config", "x" * 5000]),
        ("train.tournament", ["--agents", "random,greedy", "--ruleset", "x" * 5000]),
        ("train.tournament", ["--agents", f"random,ppo:{'x' * 5000}"]),
        ("zanzibar_env.ui.render", ["--out", str(work)]),
        ("zanzibar_env.ui.render", ["--out", str(work / "missing" / "f.png")]),
        ("zanzibar_env.ui.render", ["--players", "99", "--out", str(work / "f.png")]),
        ("train.ppo", [*ppo, "--set", "total_timesteps=inf"]),
        ("train.ppo", [*ppo, "--set", "learning_rate=.inf"]),
        ("train.ppo", [*ppo, "--set", "eval_bots=[greddy]"]),
        ("train.ppo", [*ppo, "--set", "num_envs='2.5'"]),
        ("train.ppo", [*ppo, "--set", "exp_name=../../x"]),
        ("train.ppo", [*ppo, "--config", str(rules)]),
        ("train.ppo", [*ppo, "--config", str(work / "nope.yaml")]),
        ("train.ppo", ["--resume", str(work), "--config", str(rules)]),
        ("train.ppo", ["--resume", str(work / "nope")]),
    ]
    plays = [
        ["--save", str(work)],
        ["--save", str(work / "missing" / "g.jsonl")],
        ["--save", str(rules)],
        ["--save", str(precious)],
        ["--opponents", f"ppo:{work / 'garbage.zip'}"],
        ["--players", "99"],
        ["--stack", "0"],
        ["--save", "x" * 5000],
        ["--save", "a\x00b"],
        ["--ruleset", "x" * 5000],
        ["--opponents", f"ppo:{'x' * 5000}"],
        ["--ruleset", str(precious)],
    ]
    before = set(work.rglob("*"))
    for module, argv in commands:
        yield Case(
            f"{module} {' '.join(argv)}",
            lambda m=module, a=argv: main_of(m)(a),
            watch=watch,
            after=_nothing_new(work, before),
        )
    for argv in plays:
        yield Case(
            f"play {' '.join(argv)}", lambda a=argv: play(a), watch=watch, after=_nothing_new(work, before)
        )
    tokens = [
        "--games",
        "--players",
        "--seed",
        "--out",
        "--save",
        "--json",
        "--agents",
        "--ruleset",
        "x",
        "-1",
    ]
    for k in range(n):
        argv = [_pick(rng, tokens) for _ in range(int(rng.integers(1, 5)))] + ["--bogus"]
        module = _pick(rng, ["train.tournament", "train.evaluate", "zanzibar_env.ui.render", "train.ppo"])
        yield Case(
            f"{module} random argv {k} {argv}",
            lambda m=module, a=argv: main_of(m)(a),
            watch=watch,
            after=_nothing_new(work, before),
        )


#: Every generator of the suite. Generators of other surfaces live in their own ``tests/hostile_*.py``
#: modules and are appended in :mod:`tests.hostile.hostile_all`.
GENERATORS = (ruleset_cases, dice_cases, model_cases, record_cases, config_cases, cli_cases)
