"""The package's layers: the pure game runs without gymnasium or torch, and nothing points up."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs the pure game in an interpreter where gymnasium, torch, pettingzoo and SB3 cannot be imported.
_BLOCKED_GAME = """
import importlib.abc, sys
BLOCK = {"gymnasium", "torch", "pettingzoo", "stable_baselines3", "sb3_contrib"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCK:
            raise ModuleNotFoundError(f"blocked: {name}")
        return None
sys.meta_path.insert(0, Block())
import zanzibar_env as zz
from zanzibar_env.core import engine, game, hands, records, registry, rules, observation  # noqa: F401
rec = zz.play_game("classic", num_players=3, seed=1)
assert rec.winners, rec
zz.replay_game(rec)
assert not BLOCK & {m.split(".")[0] for m in sys.modules}, sorted(BLOCK & set(sys.modules))
print("ok")
"""


def test_pure_game_runs_without_gymnasium_or_torch() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _BLOCKED_GAME], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_importing_the_package_does_not_import_torch() -> None:
    code = (
        "import sys, gymnasium as gym, zanzibar_env; gym.make('Zanzibar-v1'); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


_IMPORT = re.compile(r"^\s*(?:from|import)\s+([\w.]+)", re.M)


def _imports(path: Path) -> set[str]:
    return set(_IMPORT.findall(path.read_text()))


def test_nothing_in_zanzibar_env_imports_agents_or_train() -> None:
    bad = {
        str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if m.split(".")[0] in ("agents", "train"))
        for p in (ROOT / "zanzibar_env").rglob("*.py")
    }
    assert not {k: v for k, v in bad.items() if v}


def test_core_imports_only_core() -> None:
    """The pure game imports no env, no UI and no third-party package beyond numpy and PyYAML."""
    allowed_third_party = {"numpy", "yaml"}
    for path in (ROOT / "zanzibar_env" / "core").glob("*.py"):
        for mod in _imports(path):
            top = mod.split(".")[0]
            assert not mod.startswith((".." + "envs", "..ui", "zanzibar_env.envs", "zanzibar_env.ui")), path
            if mod.startswith(".") or top in sys.stdlib_module_names:
                continue
            assert top in allowed_third_party, f"{path.name} imports {mod}"


def test_ui_never_imports_envs() -> None:
    for path in (ROOT / "zanzibar_env" / "ui").glob("*.py"):
        for mod in _imports(path):
            assert not mod.startswith(("..envs", "zanzibar_env.envs")), f"{path.name} imports {mod}"


def test_bots_are_found_through_the_registry_entry_points() -> None:
    import zanzibar_env as zz

    assert {"random", "greedy", "threshold", "escape", "optimal"} <= set(zz.available_agents())
    assert "ppo:" in zz.core.registry.available_prefixes()
    assert type(zz.make_agent("greedy")).__name__ == "GreedyAgent"
