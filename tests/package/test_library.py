"""The package as a library: extras and their errors, no clash with user modules, bots from outside
this repository, the ``zanzibar`` command, one version."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

import zanzibar_env as zz
from zanzibar_env.extras import EXTRAS, MissingExtraError, requires_extra
from zanzibar_env.ui import cli

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
#: distribution name -> the module it installs (where the two differ)
_MODULE_OF = {"pillow": "PIL", "mkdocs-material": "mkdocs", "stable-baselines3": "stable_baselines3"}


def _py(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, env=full_env
    )


def test_configs_are_one_folder_read_in_place() -> None:
    """The editable install reads configs/ of the checkout itself (the wheel ships the same files)."""
    from zanzibar_env.configs import CONFIG_DIR, RULES_DIR
    from zanzibar_env.core import rules

    assert CONFIG_DIR == ROOT / "configs" and rules.RULES_DIR == RULES_DIR == ROOT / "configs" / "rules"
    assert sorted(p.stem for p in RULES_DIR.glob("*.yaml")) == zz.available_rulesets()


# ---- extras -------------------------------------------------------------------------------------
def _modules(requirements: list[str]) -> set[str]:
    """Modules installed by these requirements themselves (``zanzibar-env[other]`` is left out)."""
    names = {req.split(">")[0].split("[")[0].split("=")[0].strip() for req in requirements}
    out = {_MODULE_OF.get(n, n.replace("-", "_")) for n in names - {"zanzibar-env"}}
    return out | ({"pyspiel"} if "open_spiel" in out else set())  # open-spiel installs both


def test_extras_table_matches_pyproject() -> None:
    declared = PYPROJECT["project"]["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        assert set(modules) == _modules(declared[extra]), extra
    assert _modules(PYPROJECT["project"]["dependencies"]) == {"numpy", "pyyaml", "gymnasium"}
    assert declared["all"] == ["zanzibar-env[multiagent,ui,train,tournament,openspiel]"]


def test_requires_extra_names_the_install() -> None:
    with pytest.raises(MissingExtraError, match=r'pip install "zanzibar-env\[multiagent\]"'):
        with requires_extra("multiagent", "the PettingZoo env"):
            raise ModuleNotFoundError("No module named 'pettingzoo'", name="pettingzoo")
    with pytest.raises(ModuleNotFoundError, match="nonexistent"):  # not an extra's module: unchanged
        with requires_extra("ui", "x"):
            raise ModuleNotFoundError("No module named 'nonexistent'", name="nonexistent")
    with pytest.raises(ValueError, match="unknown extra"):
        with requires_extra("gpu", "x"):
            pass


# Blocks the optional modules, as in a core install, and checks each optional import point.
_BLOCKED = """
import importlib.abc, sys
BLOCK = {"torch", "stable_baselines3", "sb3_contrib", "pettingzoo", "rich", "PIL", "openskill", "tqdm"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCK:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
import gymnasium as gym, zanzibar_env as zz
from zanzibar_env.extras import MissingExtraError
gym.make("Zanzibar-v1", opponents="optimal").reset(seed=0)
def fails(fn, extra, kind=MissingExtraError):
    try:
        fn()
    except kind as e:
        assert f'pip install "zanzibar-env[{extra}]"' in str(e), e
    else:
        raise AssertionError(f"no error for {extra}")
import importlib
fails(lambda: importlib.import_module("zanzibar_env.envs.multiagent"), "multiagent")
fails(lambda: importlib.import_module("zanzibar_env.ui.replay"), "ui")
fails(lambda: importlib.import_module("zanzibar_env.envs.sb3"), "train")
fails(lambda: zz.make_agent("ppo:models/ppo_classic_2p.zip"), "train")
rgb = gym.make("Zanzibar-v1", render_mode="rgb_array")
fails(lambda: (rgb.reset(seed=0), rgb.render()), "ui")
from zanzibar_env.ui.cli import main
assert main(["train", "--help"]) == 2  # a missing extra: refused before any work
assert main(["tournament", "--agents", "random,greedy", "--games", "2", "--no-progress"]) == 2
print("ok")
"""


def test_every_optional_import_point_names_its_extra(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _BLOCKED], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert 'pip install "zanzibar-env[train]"' in out.stderr
    assert 'pip install "zanzibar-env[tournament]"' in out.stderr


# ---- no clash with the user's own agents.py / train.py -------------------------------------------
_CLASH = """
import gymnasium as gym
import agents, train
assert agents.MINE and train.MINE  # the user's own modules
from zanzibar_env.agents.exact import exploitability
env = gym.make("zanzibar_env:Zanzibar-v1", opponents="greedy")
env.reset(seed=0)
env.step(7)
print(exploitability("greedy")["average"] > 0)
"""


def test_users_agents_and_train_modules_do_not_clash_with_ours(tmp_path: Path) -> None:
    """The package installs one top-level name: a user's own ``agents.py`` and ``train.py`` hide nothing."""
    (tmp_path / "agents.py").write_text("MINE = True\n")
    (tmp_path / "train.py").write_text("MINE = True\n")
    out = _py(_CLASH, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
    cmd = subprocess.run(
        [sys.executable, "-m", "zanzibar_env", "train", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cmd.returncode == 0, cmd.stderr
    assert "--config" in cmd.stdout


# ---- bots from outside this repository -----------------------------------------------------------
_BOT = """
import numpy as np
from zanzibar_env.core.bots import BaseAgent

class Stopper(BaseAgent):
    '''Stops at once.'''
    name = "stopper"

    def __init__(self, seed=None):
        pass

    def act(self, view):
        return 7

    def act_batch(self, batch):
        return np.full(len(batch), 7)
"""


@pytest.fixture
def bot_package(tmp_path: Path) -> Path:
    """A bot package ``mybots`` outside the repository, with a distribution that declares an entry point."""
    (tmp_path / "mybots").mkdir()
    (tmp_path / "mybots" / "__init__.py").write_text(_BOT)
    info = tmp_path / "mybots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mybots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[zanzibar_env.agents]\nstopper = mybots:Stopper\n")
    return tmp_path


def test_bot_package_registers_through_entry_points(bot_package: Path, tmp_path: Path) -> None:
    code = (
        "import zanzibar_env as zz; assert 'stopper' in zz.available_agents(); "
        "print(type(zz.make_agent('stopper')).__name__)"
    )
    out = _py(code, ROOT, PYTHONPATH=str(bot_package))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Stopper"


def test_tournament_and_exact_eval_take_outside_bots(bot_package: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(bot_package)}
    zanzibar = [sys.executable, "-m", "zanzibar_env"]
    args = ["tournament", "--agents", "stopper,mybots:Stopper,greedy", "--players", "3", "--games", "6"]
    out = subprocess.run(
        [*zanzibar, *args, "--no-progress"], cwd=bot_package, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "stopper" in out.stdout and "mybots:Stopper" in out.stdout
    ex = subprocess.run(
        [*zanzibar, "exact-eval", "--agent", "mybots:Stopper"], cwd=bot_package, env=env, capture_output=True
    )
    assert ex.returncode == 0, ex.stderr
    assert b"exploitability" in ex.stdout


def test_module_attr_specs() -> None:
    assert type(zz.make_agent("zanzibar_env.core.bots:RandomAgent", seed=1)).__name__ == "RandomAgent"
    with pytest.raises(ValueError, match="has no attribute 'Nope'"):
        zz.make_agent("zanzibar_env.core.bots:Nope")
    with pytest.raises(ValueError, match=r"cannot import 'no_such_pkg\.bots'"):
        zz.make_agent("no_such_pkg.bots:Bot")
    with pytest.raises(ValueError, match="is not callable"):
        zz.make_agent("zanzibar_env.core.engine:STOP")


# ---- the command line and the version ------------------------------------------------------------
def test_cli_version_and_commands(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import metadata

    assert zz.__version__ == metadata.version("zanzibar-env")
    assert PYPROJECT["project"]["dynamic"] == ["version"] and "version" not in PYPROJECT["project"]
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert capsys.readouterr().out.strip() == f"zanzibar-env {zz.__version__}"
    assert set(cli.COMMANDS) == {
        "play", "replay", "render", "train", "evaluate", "exact-eval", "tournament", "sweep", "solve", "zoo",
        "jax-train", "jax-game", "seeds", "game-curve", "rllib", "bench", "serve",
    }  # fmt: skip
    for name, (module, _extra, _text) in cli.COMMANDS.items():
        assert callable(zz.core.registry.load_object(f"{module}:main", what=name)), name
    assert cli.main(["solve", "--players", "2", "--no-cache"]) == 0
    assert "seat 0: +0.24760" in capsys.readouterr().out
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert PYPROJECT["project"]["license"] == "MIT"
