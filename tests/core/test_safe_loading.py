"""No code runs from a file: model zips and solver caches carrying a crafted pickle are refused or read
without unpickling, on every load path; the shipped models still load and act as before."""

from __future__ import annotations

import base64
import io
import json
import pickle
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from zanzibar_env.agents.ppo_agent import load_model
from zanzibar_env.core.registry import make_agent

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "models").glob("*.zip"))  # ppo_classic_2p.zip first: the payloads copy it


class _Payload:
    """Unpickling this creates ``marker`` (what a hostile file would do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (f"open({str(self.marker)!r}, 'w').close()",))


def _evil_zip(src: Path, dst: Path, marker: Path, entry: str) -> Path:
    """A copy of ``src`` whose ``data`` entry ``entry`` (policy_class or policy_kwargs) is the payload."""
    with zipfile.ZipFile(src) as z:
        members = {name: z.read(name) for name in z.namelist()}
    data = json.loads(members["data"])
    data[entry][":serialized:"] = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(dst, "w") as z:
        for name, blob in members.items():
            z.writestr(name, blob)
    return dst


@pytest.fixture
def evil(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``(evil_class.zip, evil_kwargs.zip, marker)``; the payload is checked to work when unpickled."""
    marker = tmp_path / "PWNED"
    pickle.loads(pickle.dumps(_Payload(marker)))
    assert marker.exists()  # the payload is real: unpickling it would leave the marker
    marker.unlink()
    cls = _evil_zip(SHIPPED[0], tmp_path / "evil_class.zip", marker, "policy_class")
    kw = _evil_zip(SHIPPED[0], tmp_path / "evil_kwargs.zip", marker, "policy_kwargs")
    return cls, kw, marker


def test_crafted_pickle_never_runs_on_any_load_path(evil: tuple[Path, Path, Path], tmp_path: Path) -> None:
    import gymnasium as gym

    import zanzibar_env  # noqa: F401  (registers the env ids)
    from zanzibar_env.train import evaluate
    from zanzibar_env.ui import play

    evil_class, evil_kwargs, marker = evil
    with pytest.raises(ValueError, match="unsupported policy class"):
        make_agent(f"ppo:{evil_class}")
    make_agent(f"ppo:{evil_kwargs}")  # the readable JSON is enough: the pickled copy is never read
    with pytest.raises(ValueError, match="cannot load an SB3 model"):
        gym.make("ZanzibarRound-v1", opponents=str(evil_class))
    assert evaluate.main([str(evil_class), "--games", "2", "--tournament-games", "0", "--no-exact"]) == 2
    code = play.main(["--opponents", f"ppo:{evil_class}", "--seed", "1"], input_fn=lambda _: "q")
    assert code == 2
    assert not marker.exists()
    proc = subprocess.run(
        [sys.executable, "-m", "zanzibar_env.ui.play", "--opponents", f"ppo:{evil_class}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
        input="q\n",
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr + proc.stdout
    assert not marker.exists()


def test_trusted_opt_in_is_sb3s_pickle_loader(evil: tuple[Path, Path, Path]) -> None:
    """Safe loading refuses the file; the documented opt-in (``trusted=True``) hands it to SB3, which
    unpickles and so runs the payload: that is why it is only for files you made yourself."""
    evil_class, _, marker = evil
    with pytest.raises(ValueError, match="unsupported policy class"):
        load_model(evil_class)
    assert not marker.exists()
    with pytest.raises(ValueError, match="cannot load an SB3 model"):
        load_model(evil_class, trusted=True)
    assert marker.exists()


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_models_act_as_with_sb3s_own_loader(path: Path) -> None:
    from sb3_contrib import MaskablePPO

    mine = load_model(path)
    theirs = MaskablePPO.load(path, device="cpu")  # our own file: trusted
    assert mine.algo == "MaskablePPO" and mine.num_timesteps == theirs.num_timesteps
    obs = np.random.default_rng(0).uniform(-1, 1.5, (400, 33)).astype(np.float32)
    masks = np.random.default_rng(1).random((400, 8)) < 0.7
    masks[:, 0] = True
    a, _ = mine.predict(obs, action_masks=masks)
    b, _ = theirs.predict(obs, deterministic=True, action_masks=masks)
    np.testing.assert_array_equal(a, b)


def _tiny_env(n_actions: int) -> object:
    import gymnasium as gym
    from gymnasium import spaces

    class Env(gym.Env):  # type: ignore[type-arg]
        observation_space = spaces.Box(-1, 8, (33,), np.float32)
        action_space = spaces.Discrete(n_actions)

        def reset(self, seed: int | None = None, options: dict | None = None) -> tuple:
            return np.zeros(33, np.float32), {}

        def step(self, action: int) -> tuple:
            return np.zeros(33, np.float32), 0.0, True, False, {}

    return Env()


@pytest.mark.parametrize("algo", ["PPO", "A2C", "DQN"])
def test_other_algorithms_load_and_agree(algo: str, tmp_path: Path) -> None:
    import stable_baselines3 as sb3

    cls = getattr(sb3, algo)
    model = cls("MlpPolicy", _tiny_env(8), seed=0, device="cpu")
    model.save(tmp_path / "m.zip")
    loaded = load_model(tmp_path / "m.zip")
    assert loaded.algo == algo
    obs = np.random.default_rng(0).uniform(-1, 8, (200, 33)).astype(np.float32)
    np.testing.assert_array_equal(loaded.predict(obs)[0], model.predict(obs, deterministic=True)[0])


def test_bad_model_files_are_clear_errors(tmp_path: Path) -> None:
    from stable_baselines3 import PPO

    empty = tmp_path / "empty.zip"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(np.random.default_rng(0).bytes(5000))
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(SHIPPED[0].read_bytes()[:40_000])
    PPO("MlpPolicy", _tiny_env(4), device="cpu").save(tmp_path / "d4.zip")
    for path, words in [
        (empty, "not a readable zip"),
        (garbage, "not a readable zip"),
        (truncated, "cannot load an SB3 model"),
        (tmp_path / "d4.zip", "Discrete(8)"),
        (tmp_path, "no SB3 model file"),
    ]:
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            load_model(path)


def test_tampered_or_pickled_solver_cache_is_resolved_again(tmp_path: Path) -> None:
    from zanzibar_env import load_ruleset
    from zanzibar_env.agents.exact import cache

    rules = load_ruleset("classic", max_rolls=1)  # tiny tables: solved in milliseconds
    key = cache.table_key(rules, 2)
    path = tmp_path / f"optimal-{key}.npz"
    cache._MEMORY.clear()
    good = cache.solved_tables(rules, 2, tmp_path)
    assert path.is_file()
    marker = tmp_path / "PWNED"
    payload = np.array([_Payload(marker)], dtype=object)
    for bad in ("pickle", "tampered", "garbage"):
        if bad == "pickle":
            np.savez(path, keys0=payload)
        elif bad == "tampered":
            cache._MEMORY.clear()
            cache.solved_tables(rules, 2, tmp_path)
            with np.load(path) as z:
                arrays = {k: z[k] for k in z.files}
            arrays["value0"] = arrays["value0"] + 1.0  # checksum no longer matches
            np.savez(path, **arrays)
        else:
            path.write_bytes(b"PK\x03\x04 not really a zip")
        cache._MEMORY.clear()
        again = cache.solved_tables(rules, 2, tmp_path)
        for lv_a, lv_b in zip(again.levels, good.levels, strict=True):
            np.testing.assert_array_equal(lv_a.value, lv_b.value)
        cache._MEMORY.clear()
        cache.solved_tables(rules, 2, tmp_path)  # the rewritten file is valid again
    assert not marker.exists()
    cache._MEMORY.clear()


def test_interrupted_training_saves_a_checkpoint_and_resumes(tmp_path: Path) -> None:
    """SIGINT a tiny run once it trains, then ``--resume`` it to the end (about 20 s)."""
    import signal
    import time

    args = [
        "--set",
        f"runs_dir={tmp_path / 'runs'}",
        "--set",
        "total_timesteps=400000",
        "--set",
        "num_envs=4",
        "--set",
        "n_steps=16",
        "--set",
        "batch_size=32",
        "--set",
        "eval_freq=0",
        "--set",
        "eval_exact=false",
        "--set",
        "eval_games=4",
        "--set",
        "eval_bots=[random]",
        "--set",
        "opponents=[random]",
        "--set",
        "expected_reward=false",  # (the default's expected reward assumes optimal opponents)
        "--set",
        "exploiter_frac=0",
        "--set",
        "progress_bar=false",
        "--set",
        "tensorboard=false",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "train.ppo", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 90
    while time.time() < deadline and not list((tmp_path / "runs").glob("*/eval.csv")):
        time.sleep(0.2)  # the first evaluation (at step 0) has been written: training is under way
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=90)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted by SIGINT" in err
    assert err.strip().splitlines()[-1].startswith("interrupted by SIGINT at step")  # one line, last
    (run_dir,) = (tmp_path / "runs").iterdir()
    steps = load_model(run_dir / "model.zip").num_timesteps
    assert 0 < steps < 400_000

    from zanzibar_env.train import ppo

    assert ppo.main(["--resume", str(run_dir), "--set", "features=raw"]) == 2  # would change the model
    assert ppo.main(["--resume", str(run_dir), "--config", "x.yaml"]) == 2
    assert ppo.main(["--resume", str(run_dir), "--set", f"total_timesteps={steps + 64}"]) == 0
    assert load_model(run_dir / "model.zip").num_timesteps >= steps + 64
    rows = (run_dir / "eval.csv").read_text().splitlines()
    assert len({len(r.split(",")) for r in rows}) == 1  # one set of columns throughout
    shutil.rmtree(run_dir)


def test_zip_bomb_guard_refuses_huge_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from zanzibar_env.agents import sb3_model

    monkeypatch.setattr(sb3_model, "MAX_MEMBER_BYTES", 1000)
    with pytest.raises(ValueError, match="too large"):
        load_model(SHIPPED[0])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("data", "[]")
        z.writestr("policy.pth", b"")
    (tmp_path / "list.zip").write_bytes(buf.getvalue())
    monkeypatch.undo()
    with pytest.raises(ValueError, match="cannot load"):
        load_model(tmp_path / "list.zip")


def test_signal_guard_turns_sigterm_into_a_flag() -> None:
    import os
    import signal

    from zanzibar_env.train.sb3.faults import SignalGuard

    before = signal.getsignal(signal.SIGTERM)
    with SignalGuard() as guard:
        os.kill(os.getpid(), signal.SIGTERM)
        assert guard.caught and guard.name == "SIGTERM" and guard.exit_code == 143
    assert signal.getsignal(signal.SIGTERM) == before
