"""Generators of hostile *files* and resource requests for :mod:`tests.hostile.hostile`.

What the library reads from disk (YAML configs, rulesets and sweeps, ``rllib:PATH`` policy exports, JSON);
:mod:`tests.hostile.hostile_limits` adds what a config or command asks of the machine (memory, exact-analysis
sizes, CPU counts) and the config combinations the trainer would refuse only after its run directory
exists, and its generator is listed here. Curated cases first
(alias bombs, duplicate keys, huge and deeply nested files, NaN/complex/oversized weights, ...), then
random mutations of valid files. Refusals of the bombs and huge files must be fast: their cases carry a
short ``timeout``.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .hostile import Case, main_of
from .hostile_cases import HOSTILE_VALUES, ROOT, _garble, _pick, _sane_config, _sane_ruleset
from .hostile_limits import limits_cases

FAST = 10.0  # seconds: bombs, huge files and over-sized requests must be refused within this
CLASSIC = ROOT / "configs" / "rules" / "classic.yaml"
CONFIG = ROOT / "configs" / "ppo_classic_2p.yaml"
SWEEP = ROOT / "configs" / "sweep_ppo_classic_2p.yaml"


def _bomb(levels: int = 9) -> str:
    """A billion-laughs alias bomb: ``levels`` lists of 9 aliases of the list before (9**levels leaves)."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


def _bomb_under(key: str, levels: int = 9) -> str:
    """``key`` set to a flow list whose items are the levels of an alias bomb (the last one 9**levels)."""
    items = ['&l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    items += [f"&l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return f"{key}: [{', '.join(items)}]\n"


def _yaml_loaders(tmp: Path) -> dict[str, Any]:
    """The three YAML readers: training config, ruleset, sweep."""
    from zanzibar_env import load_ruleset
    from zanzibar_env.train.config.training import load_config
    from zanzibar_env.train.sweep import load_sweep

    load_sweep(SWEEP)  # imports everything a sweep check needs outside the timed cases
    return {"config": load_config, "ruleset": load_ruleset, "sweep": load_sweep}


def _sane_sweep(s: Any) -> bool:
    from zanzibar_env.train.sweep import SweepConfig

    ints = [s.num_samples, s.grace_period, s.reduction_factor, s.cpus_per_trial, s.max_concurrent, s.seed]
    return (
        isinstance(s, SweepConfig)
        and isinstance(s.name, str)
        and isinstance(s.base, str)
        and isinstance(s.search, dict)
        and bool(s.search)
        and all(type(v) is int for v in ints)
        and s.num_samples >= 1
        and s.cpus_per_trial >= 1
        and isinstance(s.out_dir, str)
        and not Path(s.out_dir).is_file()
    )


# ---- YAML: alias bombs, duplicate keys, huge and deep files -------------------------------------------
def yaml_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """The YAML rules of every YAML reader: aliases bounded, duplicate keys refused, size limited."""
    loaders = _yaml_loaders(tmp)
    sweep_base = f"name: s\nbase: {CONFIG}\nsearch:\n  learning_rate: [loguniform, 1.0e-4, 1.0e-3]\n"
    huge = tmp / "huge.yaml"
    with huge.open("w") as f:
        f.write("eval_bots:\n")
        f.write("- random\n" * (25 * 2**20 // 9))
    curated: dict[str, dict[str, str]] = {
        "config": {
            "bomb": f"defaults: {CONFIG}\n" + _bomb_under("exp_name"),
            "bomb_top": _bomb(),
            "recursive": f"defaults: {CONFIG}\nnet_arch: &a [64, *a]\n",
            "duplicate": f"defaults: {CONFIG}\nnum_envs: 4\nnum_envs: 8\n",
            "duplicate_nested": f"defaults: {CONFIG}\nopponents: [random]\nseed: 1\nseed: 2\n",
            "deep": "num_envs: " + "[" * 100_000 + "]" * 100_000 + "\n",
            "deep_map": "a: " + "{b: " * 50_000 + "1" + "}" * 50_000 + "\n",
        },
        "ruleset": {
            "bomb": _strip_key(CLASSIC.read_text(), "description") + _bomb_under("description"),
            "duplicate": CLASSIC.read_text() + "starting_stack: 25\n",
            "duplicate_payments": CLASSIC.read_text().replace(
                "payments: {points: 1,", "payments: {points: 1, points: 3,"
            ),
            "deep": "[" * 100_000 + "]" * 100_000,
        },
        "sweep": {
            "bomb": sweep_base + _bomb_under("name"),
            "duplicate": sweep_base + "num_samples: 3\nnum_samples: 1000\n",
            "deep": sweep_base + "set: " + "[" * 100_000 + "]" * 100_000 + "\n",
        },
    }
    for kind, texts in curated.items():
        for name, text in texts.items():
            path = tmp / f"{kind}_{name}.yaml"
            path.write_text(text)
            yield Case(f"{kind} yaml {name}", lambda p=path, f=loaders[kind]: f(p), timeout=FAST)
        yield Case(f"{kind} yaml 25 MB", lambda f=loaders[kind]: f(huge), timeout=FAST)
    yield from _anchor_cases(tmp, loaders)
    yield from _yaml_mutations(rng, tmp, n, loaders)


def _strip_key(text: str, key: str) -> str:
    return "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith(f"{key}:"))


def _anchor_cases(tmp: Path, loaders: dict[str, Any]) -> Iterator[Case]:
    """Small anchors and merge keys (RL Zoo's shared defaults) stay valid."""
    path = tmp / "config_anchor.yaml"
    path.write_text(f"defaults: {CONFIG}\nopponents: &o [optimal]\neval_bots: *o\n")
    yield Case("config yaml small anchor", lambda: loaders["config"](path), bad=False, valid=_sane_config)
    rules = tmp / "ruleset_merge.yaml"
    text = _strip_key(CLASSIC.read_text(), "payments")
    merge = "payments:\n  <<: &p {points: 1, one_two_three: 2}\n  three_of_a_kind: 3\n  zanzibar: 4\n"
    rules.write_text(text + merge)
    yield Case("ruleset yaml merge key", lambda: loaders["ruleset"](rules), bad=False, valid=_sane_ruleset)


def _yaml_mutations(rng: np.random.Generator, tmp: Path, n: int, loaders: dict[str, Any]) -> Iterator[Case]:
    """Valid files garbled, or given a second copy of one of their keys (always refused)."""
    sources = {"config": CONFIG, "ruleset": CLASSIC, "sweep": SWEEP}
    valid = {"config": _sane_config, "ruleset": _sane_ruleset, "sweep": _sane_sweep}
    for k in range(n):
        kind = _pick(rng, list(sources))
        text = sources[kind].read_text()
        if kind == "sweep":  # the shipped base as an absolute path, so the copy resolves it
            text = text.replace("base: ppo_classic_2p.yaml", f"base: {CONFIG}")
        if kind == "config":
            text = text.replace(
                "defaults: ppo_defaults.yaml", f"defaults: {ROOT / 'configs' / 'ppo_defaults.yaml'}"
            )
        path = tmp / f"mut_{kind}_{k}.yaml"
        keys = [ln.split(":")[0] for ln in text.splitlines() if ln and ln[0].isalpha() and ":" in ln]
        if k % 2 and keys:
            key = _pick(rng, keys)
            value = json.dumps(_pick(rng, [*HOSTILE_VALUES[:10], 4, "x"]), allow_nan=True)
            path.write_text(text + f"{key}: {value}\n")
            yield Case(f"{kind} yaml duplicate {key}", lambda p=path, f=loaders[kind]: f(p), timeout=FAST)
        else:
            path.write_bytes(_garble(rng, text.encode()))
            yield Case(
                f"{kind} yaml garbled {k}",
                lambda p=path, f=loaders[kind]: f(p),
                bad=False,
                valid=valid[kind],
                timeout=FAST * 3,
            )


# ---- sweep configs -------------------------------------------------------------------------------------
def sweep_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Sweep YAML of every wrong shape; random keys set to hostile values."""
    import zanzibar_env.train.sweep  # noqa: F401  (the command's imports, outside the timed cases)
    from zanzibar_env.train.sweep import load_sweep

    a_file = tmp / "a_file"
    a_file.write_text("keep\n")
    good: dict[str, Any] = {
        "name": "s",
        "base": str(CONFIG),
        "search": {"learning_rate": ["loguniform", 1e-4, 1e-3]},
        "num_samples": 2,
    }
    curated: dict[str, Any] = {
        "list": [1, 2],
        "string": "sweep",
        "number": 3,
        "search_null": {**good, "search": None},
        "search_empty": {**good, "search": {}},
        "search_list": {**good, "search": ["learning_rate"]},
        "name_int": {**good, "name": 123},
        "name_path": {**good, "name": "../x"},
        "name_empty": {**good, "name": ""},
        "base_missing": {k: v for k, v in good.items() if k != "base"},
        "base_nope": {**good, "base": "nope.yaml"},
        "base_list": {**good, "base": [1]},
        "out_dir_file": {**good, "out_dir": str(a_file)},
        "out_dir_int": {**good, "out_dir": 5},
        "best_config_dir": {**good, "best_config": str(tmp)},
        "num_samples_0": {**good, "num_samples": 0},
        "num_samples_str": {**good, "num_samples": "many"},
        "num_samples_float": {**good, "num_samples": 2.5},
        "num_samples_huge": {**good, "num_samples": 10**12},
        "cpus_0": {**good, "cpus_per_trial": 0},
        "cpus_true": {**good, "cpus_per_trial": True},
        "max_concurrent_neg": {**good, "max_concurrent": -1},
        "grace_0": {**good, "grace_period": 0},
        "reduction_1": {**good, "reduction_factor": 1},
        "mode": {**good, "mode": "best"},
        "metric_int": {**good, "metric": 7},
        "metric_unknown": {**good, "metric": "nope"},
        "seed_neg": {**good, "seed": -1},
        "set_list": {**good, "set": [1]},
        "set_bad_value": {**good, "set": {"num_envs": 0}},
        "set_unknown": {**good, "set": {"nope": 1}},
        "search_unknown_key": {**good, "search": {"nope": ["uniform", 0, 1]}},
        "search_bad_dist": {**good, "search": {"gamma": ["normal", 0, 1]}},
        "search_nan": {**good, "search": {"gamma": ["uniform", math.nan, 1]}},
        "search_loguniform_0": {**good, "search": {"learning_rate": ["loguniform", 0, 1e-3]}},
        "search_out_of_range": {**good, "search": {"gamma": ["uniform", 0.5, 2.0]}},
        "search_randint_float": {**good, "search": {"n_epochs": ["randint", 1.5, 8]}},
        "search_choice_bad": {**good, "search": {"num_envs": ["choice", [0, -1]]}},
        "search_choice_type": {**good, "search": {"activation": ["choice", ["tanh", "gelu"]]}},
        "search_fixed_key": {**good, "search": {"runs_dir": ["choice", ["a", "b"]]}},
        "search_and_set": {**good, "set": {"gamma": 0.9}, "search": {"gamma": ["uniform", 0.5, 1]}},
    }
    for name, value in curated.items():
        path = tmp / f"sweep_{name}.yaml"
        path.write_text(json.dumps(value, allow_nan=True))
        yield Case(f"sweep {name}", lambda p=path: load_sweep(p), watch=[a_file])
    for name, text in {"empty": "", "null": "null\n", "bytes": "\x00\x01"}.items():
        path = tmp / f"sweep_{name}.yaml"
        path.write_text(text)
        yield Case(f"sweep {name}", lambda p=path: load_sweep(p))
    yield Case("sweep missing file", lambda: load_sweep(tmp / "nope.yaml"))
    yield Case("sweep directory", lambda: load_sweep(tmp))
    yield from _sweep_cli_cases(tmp, good)
    keys = [*good, "set", "num_samples", "metric", "mode", "grace_period", "reduction_factor",
            "cpus_per_trial", "max_concurrent", "seed", "out_dir", "best_config", "nope"]  # fmt: skip
    for k in range(n):
        d = copy.deepcopy(good)
        for _ in range(int(rng.integers(1, 3))):
            d[_pick(rng, keys)] = _pick(rng, [*HOSTILE_VALUES, 2, 0.5, "min", {"gamma": 0.5}])
        path = tmp / f"sweep_mut_{k}.yaml"
        path.write_text(json.dumps(d, allow_nan=True))
        yield Case(f"sweep mutation {d}", lambda p=path: load_sweep(p), bad=False, valid=_sane_sweep)


def _sweep_cli_cases(tmp: Path, good: dict[str, Any]) -> Iterator[Case]:
    """``python -m train.sweep`` refuses CPU counts below 1 before starting Ray."""
    path = tmp / "sweep_good.yaml"
    path.write_text(json.dumps({**good, "out_dir": str(tmp / "sweeps")}))
    for cpus in ("0", "-2", "x"):
        argv = ["--config", str(path), "--cpus", cpus]
        yield Case(f"train.sweep --cpus {cpus}", lambda a=argv: main_of("train.sweep")(a), timeout=30)


# ---- policy exports (rllib:PATH) -----------------------------------------------------------------------
def _export(path: Path, arrays: dict[str, Any], meta: Any, raw_meta: str | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    np.savez(path / "policy.npz", **arrays)
    (path / "policy.json").write_text(raw_meta if raw_meta is not None else json.dumps(meta, allow_nan=True))
    return path


def _good_arrays(rng: np.random.Generator, hidden: int = 8) -> dict[str, np.ndarray]:
    from zanzibar_env.core.observation import OBS_SIZE

    return {
        "W0": rng.normal(size=(hidden, OBS_SIZE)).astype(np.float32),
        "b0": rng.normal(size=hidden).astype(np.float32),
        "W1": rng.normal(size=(8, hidden)).astype(np.float32),
        "b1": rng.normal(size=8).astype(np.float32),
    }


GOOD_META = {"layers": 2, "activation": "tanh", "obs_type": "flat", "ruleset": "classic", "num_players": 2}


def _plays(agent: Any) -> bool:
    """The agent plays two classic rounds against ``random`` (an exception while playing: not valid)."""
    from zanzibar_env import load_ruleset
    from zanzibar_env.core.game import play_game
    from zanzibar_env.core.registry import make_agent

    try:
        rec = play_game(load_ruleset("classic"), [agent, make_agent("random")], seed=1, max_rounds=2)
    except Exception:
        return False
    return len(rec.rounds) >= 1


def _huge_header_npz(path: Path, shape: tuple[int, ...], dtype: str = "<f8") -> None:
    """A ``policy.npz`` whose ``W0`` header declares ``shape`` while holding a few bytes of data."""
    import io
    import zipfile

    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("W0.npy", buf.getvalue() + b"\x00" * 64)
        for name, arr in _good_arrays(np.random.default_rng(0)).items():
            if name != "W0":
                b = io.BytesIO()
                np.save(b, arr)
                z.writestr(f"{name}.npy", b.getvalue())


def policy_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """``rllib:PATH`` exports with bad weights, bad metadata and hostile JSON; mutations of a good one."""
    from zanzibar_env.core.game import play_game  # noqa: F401  (imported outside the timed cases)
    from zanzibar_env.core.registry import make_agent

    def load(p: Path) -> Any:
        return make_agent(f"rllib:{p}")

    good = _good_arrays(rng)
    path = _export(tmp / "good", good, GOOD_META)
    yield Case("policy good", lambda: load(path), bad=False, valid=_plays)
    other = _export(tmp / "pol_other_ruleset", good, {**GOOD_META, "ruleset": "gone.yaml"})
    yield Case("policy flat, ruleset unknown here", lambda: load(other), bad=False, valid=_plays)
    big = _export(tmp / "pol_big_values", {**good, "W0": np.full((8, 33), 1e38, np.float32)}, GOOD_META)
    yield Case("policy finite huge weights", lambda: load(big), bad=False, valid=_plays)
    bad_arrays: dict[str, dict[str, Any]] = {
        "nan": {**good, "W0": np.where(np.eye(*good["W0"].shape) > 0, np.nan, good["W0"])},
        "inf": {**good, "b1": np.full(8, np.inf, np.float32)},
        "neg_inf": {**good, "b0": np.full(8, -np.inf, np.float32)},
        "complex": {**good, "W1": good["W1"].astype(np.complex64)},
        "bool": {**good, "W0": good["W0"] > 0},
        "int": {**good, "W0": good["W0"].astype(np.int64)},
        "str": {**good, "b0": np.array(["a"] * 8)},
        "wide": {**good, "W0": np.ones((8, 34), np.float32)},
        "narrow": {**good, "W0": np.ones((8, 10), np.float32)},
        "actions_9": {**good, "W1": np.ones((9, 8), np.float32), "b1": np.ones(9, np.float32)},
        "actions_1": {**good, "W1": np.ones((1, 8), np.float32), "b1": np.ones(1, np.float32)},
        "3d": {**good, "W0": np.ones((8, 33, 1), np.float32)},
        "scalar_bias": {**good, "b1": np.float32(1.0)},
        "empty": {**good, "W0": np.ones((0, 33), np.float32), "b0": np.ones(0, np.float32),
                  "W1": np.ones((8, 0), np.float32)},
    }  # fmt: skip
    for name, arrays in bad_arrays.items():
        p = _export(tmp / f"pol_{name}", arrays, GOOD_META)
        yield Case(f"policy weights {name}", lambda p=p: load(p), timeout=FAST)
    for name, shape in {"huge": (100_000, 100_000), "huge_1d": (10**12,), "neg": (-1, 33)}.items():
        p = tmp / f"pol_header_{name}"
        p.mkdir()
        (p / "policy.json").write_text(json.dumps(GOOD_META))
        _huge_header_npz(p / "policy.npz", shape)
        yield Case(f"policy header {name}", lambda p=p: load(p), timeout=FAST)
    bad_meta: dict[str, Any] = {
        "layers_0": {**GOOD_META, "layers": 0},
        "layers_neg": {**GOOD_META, "layers": -1},
        "layers_float": {**GOOD_META, "layers": 2.5},
        "layers_str": {**GOOD_META, "layers": "2"},
        "layers_true": {**GOOD_META, "layers": True},
        "layers_huge": {**GOOD_META, "layers": 10**9},
        "layers_nan": {**GOOD_META, "layers": math.nan},
        "obs_type": {**GOOD_META, "obs_type": "pixels"},
        "obs_onehot": {**GOOD_META, "obs_type": "onehot"},  # the width is the flat one
        "activation": {**GOOD_META, "activation": None},
        "ruleset_int": {**GOOD_META, "ruleset": 5},
        "list": [1, 2],
        "string": "policy",
        "null": None,
    }
    for name, meta in bad_meta.items():
        p = _export(tmp / f"pol_meta_{name}", good, meta)
        yield Case(f"policy json {name}", lambda p=p: load(p), timeout=FAST)
    raw: dict[str, str] = {
        "deep": "[" * 100_000 + "]" * 100_000,
        "deep_obj": '{"a":' * 100_000 + "1" + "}" * 100_000,
        "huge": json.dumps({**GOOD_META, "pad": "x" * (20 * 2**20)}),
        "not_json": "{",
        "nan_literal": json.dumps(GOOD_META).replace('"tanh"', "NaN"),
        "duplicate": json.dumps(GOOD_META)[:-1] + ', "layers": 3}',
        "bytes": "\x00\x01\x02",
    }
    for name, text in raw.items():
        p = _export(tmp / f"pol_raw_{name}", good, None, raw_meta=text)
        yield Case(f"policy raw json {name}", lambda p=p: load(p), timeout=FAST)
    yield from _policy_mutations(rng, tmp, n, good, load)


def _policy_mutations(
    rng: np.random.Generator, tmp: Path, n: int, good: dict[str, np.ndarray], load: Any
) -> Iterator[Case]:
    """One array replaced by a random shape/dtype/values, one metadata key by a hostile value, or bytes
    garbled; a loaded agent must play."""
    dtypes = [np.float32, np.float64, np.float16, np.int32, np.complex128, np.bool_, np.uint8]
    for k in range(n):
        arrays, meta = dict(good), dict(GOOD_META)
        p = tmp / f"pol_mut_{k}"
        kind = k % 3
        if kind == 0:
            key = _pick(rng, [*arrays, "W2", "b2", "extra"])
            shape = tuple(int(s) for s in rng.integers(0, 40, size=int(rng.integers(0, 3))))
            value = rng.normal(size=shape) * _pick(rng, [1.0, 1e30, math.nan, math.inf])
            arrays[key] = np.asarray(value).astype(_pick(rng, dtypes))
        elif kind == 1:
            meta[_pick(rng, [*meta, "extra"])] = _pick(rng, HOSTILE_VALUES)
        _export(p, arrays, meta)
        if kind == 2:
            target = p / _pick(rng, ["policy.npz", "policy.json"])
            target.write_bytes(_garble(rng, target.read_bytes()))
        yield Case(
            f"policy mutation {k} kind {kind}", lambda p=p: load(p), bad=False, valid=_plays, timeout=FAST
        )


#: The generators of this module and of :mod:`tests.hostile.hostile_limits` (gathered in hostile_all).
GENERATORS = (yaml_cases, sweep_cases, policy_cases, limits_cases)
