"""The limits on files and resources: the YAML/JSON rules, policy exports, sweep configs, memory and exact
sizes. (The hostile-input suite, ``tests/hostile/hostile_files.py``, tries many more inputs of each kind.)"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from tests.hostile.hostile_files import _bomb, _huge_header_npz
from zanzibar_env.core.safe_load import MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES, load_json, load_yaml, read_yaml


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (_bomb(), f"aliases expand to over {MAX_NODES} values"),
        ("a: &a [1, *a]\n", "an alias refers to a node that contains it (line 1)"),
        ("a: 1\nb: 2\na: 3\n", "duplicate key 'a' at line 3 (first at line 1)"),
        ("a:\n  x: 1\n  x: 2\n", "duplicate key 'x' at line 3 (first at line 2)"),
        ("a: " + "{b: " * 100 + "1" + "}" * 100, f"nested deeper than {MAX_DEPTH} levels"),
        ("[" + "1, " * (MAX_NODES + 1) + "]", f"more than {MAX_NODES} values"),
        ("n: !!float 4.4]e6\n", "the value '4.4]e6' at line 1 cannot be read as tag:yaml.org,2002:float"),
    ],
)
def test_yaml_rules_refuse_fast_with_the_reason(text: str, words: str) -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        load_yaml(text, "f.yaml")
    assert time.perf_counter() - start < 5


def test_yaml_anchors_merge_keys_and_rl_zoo_floats_still_load() -> None:
    text = "p: &p {a: 1, b: 2}\nq:\n  <<: *p\n  b: 3\nn: !!float 1e6\nl: &l [x]\nm: *l\n"
    assert load_yaml(text, "f") == {
        "p": {"a": 1, "b": 2},
        "q": {"a": 1, "b": 3},
        "n": 1e6,
        "l": ["x"],
        "m": ["x"],
    }
    assert load_yaml("", "f") is None


def test_file_size_is_checked_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(ValueError, match="over the limit of 1048576 bytes"):
        read_yaml(big, "config file")
    from zanzibar_env import load_ruleset
    from zanzibar_env.train.config.training import load_config

    for load in (load_ruleset, load_config):
        with pytest.raises(ValueError, match="over the limit"):
            load(big)


def test_json_depth_duplicates_and_constants() -> None:
    for text, words in [
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested deeper"),
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        ("[NaN]", "NaN is not JSON"),
        ("{", "not valid JSON"),
    ]:
        with pytest.raises(ValueError, match=words):
            load_json(text, "p.json")
    assert load_json('{"a": [1, 2.5, null]}', "p.json") == {"a": [1, 2.5, None]}


def _export(path: Path, **arrays: np.ndarray) -> Path:
    from tests.hostile.hostile_files import GOOD_META, _export, _good_arrays

    return _export(path, {**_good_arrays(np.random.default_rng(0)), **arrays}, GOOD_META)


@pytest.mark.parametrize(
    ("arrays", "words"),
    [
        ({"W0": np.full((8, 33), np.nan, np.float32)}, "NaN or infinite"),
        ({"b1": np.full(8, np.inf)}, "NaN or infinite"),
        ({"W1": np.ones((8, 8), np.complex64)}, "expected real floating point"),
        ({"W0": np.ones((8, 33), bool)}, "expected real floating point"),
        ({"W0": np.ones((8, 34), np.float32)}, r"inputs: the observation, 33"),
        ({"W1": np.ones((9, 8), np.float32), "b1": np.ones(9, np.float32)}, r"expected W1 of shape \(8, 8\)"),
    ],
)
def test_policy_exports_with_bad_weights_are_refused(tmp_path: Path, arrays: dict, words: str) -> None:
    from zanzibar_env.agents import make_agent

    with pytest.raises(ValueError, match=words):
        make_agent(f"rllib:{_export(tmp_path / 'p', **arrays)}")


def test_a_huge_declared_weight_is_refused_from_its_header(tmp_path: Path) -> None:
    from tests.hostile.hostile_files import GOOD_META
    from zanzibar_env.agents import make_agent

    (tmp_path / "policy.json").write_text(json.dumps(GOOD_META))
    _huge_header_npz(tmp_path / "policy.npz", (100_000, 100_000))
    with pytest.raises(ValueError, match=r"declares shape \(100000, 100000\)"):
        make_agent(f"rllib:{tmp_path}")
    (tmp_path / "policy.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nested deeper"):
        make_agent(f"rllib:{tmp_path}")


def _sweep(tmp_path: Path, **changes: object) -> Path:
    doc = {
        "name": "s",
        "base": "ppo_classic_2p.yaml",
        "search": {"learning_rate": ["loguniform", 1e-4, 1e-3]},
    }
    path = tmp_path / "sweep.yaml"
    path.write_text(json.dumps({**doc, **changes}))
    return path


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"search": {}}, "a sweep of nothing"),
        ({"search": None}, "sweep key 'search'"),
        ({"name": 123}, "sweep key 'name'"),
        ({"num_samples": 0}, "sweep key 'num_samples'"),
        ({"metric": "nope"}, "sweep key 'metric'"),
        ({"search": {"gamma": ["uniform", 0.5, 2.0]}}, "search 'gamma': the value '2.0' is refused"),
        ({"search": {"n_epochs": ["uniform", 1, 8]}}, "searched with randint"),
        ({"search": {"exp_name": ["choice", ["a"]]}}, "each trial sets it"),
    ],
)
def test_sweep_configs_are_checked_like_training_configs(tmp_path: Path, changes: dict, words: str) -> None:
    from zanzibar_env.train.sweep import load_sweep

    with pytest.raises(ValueError, match=words):
        load_sweep(_sweep(tmp_path, **changes))


def test_sweep_refuses_a_file_as_out_dir_a_list_and_zero_cpus(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from zanzibar_env.train.sweep import load_sweep, main

    (tmp_path / "f").write_text("keep")
    with pytest.raises(ValueError, match="not a file"):
        load_sweep(_sweep(tmp_path, out_dir=str(tmp_path / "f")))
    (tmp_path / "list.yaml").write_text("[1, 2]\n")
    with pytest.raises(ValueError, match="must hold a mapping of sweep keys, got a list"):
        load_sweep(tmp_path / "list.yaml")
    with pytest.raises(SystemExit) as e:
        main(["--config", str(_sweep(tmp_path)), "--cpus", "0"])
    assert e.value.code == 2 and "expected an integer >= 1" in capsys.readouterr().err


def test_memory_is_checked_before_the_run_with_the_formula(tmp_path: Path) -> None:
    from zanzibar_env.train.config.training import load_config
    from zanzibar_env.train.ppo import main

    with pytest.raises(ValueError, match=r"rollout = 2\*n_steps\*num_envs\*\(33\+15\)\*4 B.*max_memory_gb"):
        load_config(overrides=["num_envs=65536", "n_steps=1048576"])
    with pytest.raises(ValueError, match="network 256 GiB"):
        load_config(overrides=["net_arch=[65536,65536,65536]"])
    assert load_config(overrides=["net_arch=[4096, 4096]", "max_memory_gb=1000"]).max_memory_gb == 1000
    runs = tmp_path / "runs"
    assert main(["--set", "net_arch=[65536,65536,65536]", "--set", f"runs_dir={runs}"]) == 2
    assert not runs.exists()


def test_cross_key_refusals_come_before_the_run_directory(tmp_path: Path) -> None:
    from tests.hostile.hostile_limits import CROSS_KEY, _plain_base
    from zanzibar_env.train.ppo import main

    base, runs = _plain_base(tmp_path), tmp_path / "runs"
    for sets, bad in CROSS_KEY:
        if bad:
            argv = [
                "--config",
                str(base),
                *(a for s in sets for a in ("--set", s)),
                "--set",
                f"runs_dir={runs}",
            ]
            assert main(argv) == 2, sets
    assert not runs.exists()


def test_exact_eval_refuses_a_large_game_with_an_estimate(capsys: pytest.CaptureFixture) -> None:
    from zanzibar_env.train.exact_eval import main

    start = time.perf_counter()
    assert main(["--game", "--agent", "greedy", "--stacks", "1,999"]) == 2
    err = capsys.readouterr().err
    assert "999 stack states" in err and "--max-states 999" in err and " s and " in err
    assert time.perf_counter() - start < 10
