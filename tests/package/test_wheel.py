"""The wheel works anywhere: built from this checkout, installed with the core dependencies only into a
fresh venv in a temporary directory, and played from there through ``gym.make``; its shipped baselines
load by name and measure, exactly, what their provenance files say.

Building and installing reach the package index (pip's configured one); about 30 s on the 2-core CI
machine (`pytest tests/package/test_wheel.py --durations=0` prints it).
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from benchmarks.install_size import build_wheel

ROOT = Path(__file__).resolve().parents[2]

_PLAY = """
import sys
from importlib.util import find_spec
import numpy as np
import gymnasium as gym
import zanzibar_env as zz
from zanzibar_env.configs import CONFIG_DIR
from zanzibar_env.extras import MissingExtraError

assert "site-packages" in zz.__file__, zz.__file__  # the installed copy, not a checkout
assert {"classic", "lives", "alt_chips", "simple_scoring"} <= set(zz.available_rulesets())
assert (CONFIG_DIR / "ppo_classic_2p.yaml").is_file()
for spec in ("random", "greedy", ["optimal", "escape"]):
    env = gym.make("Zanzibar-v1", opponents=spec, num_players=3, max_rounds=3)
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[-1])
        obs, reward, terminated, truncated, info = env.step(action)
        done, steps = terminated or truncated, steps + 1
    assert steps > 0
extra = [m for m in ("torch", "stable_baselines3", "pettingzoo", "rich", "PIL") if find_spec(m)]
assert not extra, extra  # the core install is numpy, pyyaml, gymnasium only
try:
    import zanzibar_env.envs.multiagent  # noqa: F401
except MissingExtraError as e:
    assert 'pip install "zanzibar-env[multiagent]"' in str(e), e
else:
    raise AssertionError("the PettingZoo env imported without pettingzoo")
try:
    zz.make_agent("ppo_classic_2p")  # a shipped baseline: the file is there, torch is not
except MissingExtraError as e:
    assert 'pip install "zanzibar-env[train]"' in str(e), e
else:
    raise AssertionError("a shipped model loaded without torch")
print("played")
"""

_BASELINE = """
import zanzibar_env as zz
from zanzibar_env.agents.exact import exploitability
from zanzibar_env.agents.pretrained import available, model_path, provenance

assert "site-packages" in zz.__file__ and "site-packages" in str(model_path("ppo_classic_2p"))
for name in available():
    bot = zz.make_agent(name)
    players = provenance(name)["config"]["num_players"]
    others = [zz.make_agent("greedy") for _ in range(players - 1)]
    record = zz.play_game("classic", [bot, *others], num_players=players, seed=0, max_rounds=30)
    assert record.rounds, name
bot = zz.make_agent("ppo_classic_2p")
print(f"{exploitability(bot, 'classic')['average']:.6f}")
print(f"{provenance('ppo_classic_2p')['exploitability']['mean']:.6f}")
"""


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"{cmd}\n{out.stdout}\n{out.stderr}"
    return out


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel and its core dependencies only; returns its bin directory."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(tmp)  # from a copy of the sources: no stale build/ of the checkout, none left
    names = zipfile.ZipFile(wheel).namelist()
    assert "zanzibar_env/configs/rules/classic.yaml" in names
    for name in ("ppo_classic_2p", "ppo_game_2p", "ppo_classic_4p_game", "ppo_game_4p_teacher"):
        assert {f"zanzibar_env/models/{name}.zip", f"zanzibar_env/models/{name}.json"} <= set(names)
    packages = {n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py")}
    assert packages == {n.rsplit("/", 1)[0] for n in names if n.endswith("/py.typed")}, "py.typed missing"
    assert wheel.stat().st_size < 5_000_000  # the shipped models are most of it: it stays small
    assert not [n for n in names if n.startswith(("configs/", "tests/"))], "stray top-level data"
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"zanzibar_env"}
    (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
    assert zipfile.ZipFile(wheel).read(top_level).decode().split() == ["zanzibar_env"]
    for folder in ("agents", "train"):  # every module of the repository's folders, under zanzibar_env
        missing = [
            f"zanzibar_env/{p.relative_to(ROOT).as_posix()}"
            for p in (ROOT / folder).rglob("*.py")
            if f"zanzibar_env/{p.relative_to(ROOT).as_posix()}" not in names
        ]
        assert not missing, missing
    _run([sys.executable, "-m", "venv", str(tmp / "venv")], tmp)
    bin_dir = tmp / "venv" / "bin"
    _run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel)], tmp)
    return bin_dir


def _site_packages(python: Path) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return Path(_run([str(python), "-c", code], python.parent).stdout.strip())


def test_wheel_baselines_load_by_name_and_measure_their_provenance(core_venv: Path, tmp_path: Path) -> None:
    """A fresh venv holding the wheel alone, its dependencies read from this venv's site-packages through
    a ``.pth`` line (after its own, so ``zanzibar_env`` comes from the wheel; the checkout's editable hook
    is not loaded from a ``.pth`` path): every baseline plays a game by name, and the default one's exact
    exploitability is the figure in its provenance file."""
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    (wheel,) = core_venv.parents[1].glob("zanzibar_env-*.whl")
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], tmp_path)
    site = _site_packages(venv / "bin" / "python")
    (site / "zz_deps.pth").write_text(f"{_site_packages(Path(sys.executable))}\n")  # numpy, torch, SB3
    out = _run([str(venv / "bin" / "python"), "-c", _BASELINE], tmp_path).stdout.split()
    assert out[0] == out[1], out


def test_wheel_plays_a_game_with_core_dependencies_only(core_venv: Path, tmp_path: Path) -> None:
    """One test (not several) so that pytest-xdist builds the venv once."""
    import zanzibar_env

    out = _run([str(core_venv / "python"), "-c", _PLAY], tmp_path)
    assert out.stdout.strip() == "played"
    version = _run([str(core_venv / "zanzibar"), "--version"], tmp_path)
    assert version.stdout.strip() == f"zanzibar-env {zanzibar_env.__version__}"
    solved = _run([str(core_venv / "zanzibar"), "solve", "--players", "2", "--no-cache"], tmp_path)
    assert "seat 0: +" in solved.stdout
    play = subprocess.run(
        [str(core_venv / "zanzibar"), "play"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert play.returncode == 2  # a missing extra: refused before any work
    assert 'pip install "zanzibar-env[ui]"' in play.stderr, play.stderr
    # the bots and the exact analysis under the one installed name, beside a user's agents.py and train.py
    (tmp_path / "agents.py").write_text("MINE = 1\n")
    (tmp_path / "train.py").write_text("MINE = 2\n")
    code = (
        "import agents, train, zanzibar_env.agents as za\n"
        "from zanzibar_env.agents.exact import exploitability\n"
        "assert (agents.MINE, train.MINE) == (1, 2) and 'site-packages' in za.__file__\n"
        "print(round(exploitability('greedy')['average'], 6) > 0)"
    )
    assert _run([str(core_venv / "python"), "-c", code], tmp_path).stdout.strip() == "True"
