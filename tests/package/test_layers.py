"""The package's layers: the pure game runs without gymnasium or torch, and nothing points up."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

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


_LIGHT_IMPORT = """
import sys
import zanzibar_env
from zanzibar_env.core import kernel
heavy = {"torch", "pettingzoo", "scipy", "gymnasium", "stable_baselines3", "yaml", "jax"}
print(sorted(heavy & {m.split(".")[0] for m in sys.modules}))
print(sorted(n for n in ("TRANSITION", "TRANSITION_LIST", "AFTER") if n in vars(kernel)))
import gymnasium as gym
env = gym.make("ZanzibarRound-v1")
print(env.spec.id, env.reset(seed=0)[0].shape)
print(kernel.AFTER is kernel.after_faces(), kernel.TRANSITION.tolist() == kernel.TRANSITION_LIST)
"""


def test_importing_the_package_is_light() -> None:
    """``import zanzibar_env`` imports neither torch, PettingZoo, SciPy, JAX nor gymnasium (the Gymnasium ids
    are registered when gymnasium is imported later) and builds no dice table until one is read."""
    out = subprocess.run(
        [sys.executable, "-c", _LIGHT_IMPORT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:4] == ["[]", "[]", "ZanzibarRound-v1 (33,)", "True True"], out.stdout


_IMPORT = re.compile(r"^\s*(?:from|import)\s+([\w.]+)", re.M)


def _runtime_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it runs: those under ``if TYPE_CHECKING:`` left out (the kernel
    names JAX's array type for mypy without importing JAX)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def _imports(path: Path) -> set[str]:
    return set(_IMPORT.findall(path.read_text()))


_UPPER = ("zanzibar_env.agents", "zanzibar_env.train")


def test_nothing_in_zanzibar_env_imports_agents_or_train() -> None:
    """core, envs and ui never import the bots or training, under either name (layers point down)."""
    bad = {
        str(p.relative_to(ROOT)): sorted(
            m for m in _imports(p) if m.split(".")[0] in ("agents", "train") or m.startswith(_UPPER)
        )
        for p in (ROOT / "zanzibar_env").rglob("*.py")
    }
    assert not {k: v for k, v in bad.items() if v}


def test_core_imports_only_core() -> None:
    """The pure game imports no env, no UI and no third-party package beyond numpy and PyYAML."""
    allowed_third_party = {"numpy", "yaml"}
    for path in (ROOT / "zanzibar_env" / "core").glob("*.py"):
        for mod in _runtime_imports(path):
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


# ---- one installed name, no circles --------------------------------------------------------------
#: Repository folder -> the name it installs under (pyproject's package-dir).
_HOMES = {"zanzibar_env": "zanzibar_env", "agents": "zanzibar_env.agents", "train": "zanzibar_env.train"}
_HOMES |= {"configs": "zanzibar_env.configs", "models": "zanzibar_env.models"}
_HOMES |= {"benchmarks": "benchmarks", "experiments": "experiments"}


def _modules() -> dict[str, Path]:
    """Every module of the project under the name it is imported by."""
    mods: dict[str, Path] = {}
    for folder, name in _HOMES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [name, *path.relative_to(ROOT / folder).with_suffix("").parts]
            mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


def _import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (inside functions too; not under ``TYPE_CHECKING``)."""
    import ast

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.rsplit(".", node.level - 1)[0] if node.level > 1 else pkg
                    base = f"{up}.{base}" if base else up
                targets |= {base} | {f"{base}.{a.name}" for a in node.names}
        graph[mod] = {r for t in targets if (r := resolve(t)) and r != mod}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while (x := stack.pop()) != v:
                        comp.append(x)
                    if comp:
                        out.append(sorted([v, *comp]))
            elif w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                work.append((w, iter(sorted(graph[w]))))
            elif w in stack:
                low[v] = min(low[v], index[w])
    return out


def test_no_import_circle_anywhere() -> None:
    graph = _import_graph(_modules())
    assert len(graph) > 100
    assert not _circles(graph)


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_library_never_imports_its_repository_names() -> None:
    """Code reaches the bots and training as ``zanzibar_env.agents`` / ``zanzibar_env.train`` only."""
    bad = [
        f"{mod} imports {target}"
        for mod, path in _modules().items()
        for target in _imports(path)
        if target.split(".")[0] in ("agents", "train")
    ]
    assert not bad


_ONE_NAME = """
import os, runpy, sys
for module, argv in (
    ("train.ppo", ["--help"]), ("train.tournament", ["--help"]), ("zanzibar_env.agents.exact", ["--help"])
):
    sys.argv = [module, *argv]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as e:
        assert e.code in (0, None), (module, e.code)
import zanzibar_env.agents.exact, zanzibar_env.train.evaluate, zanzibar_env.train.tournament  # noqa
by_file = {}
for name, mod in list(sys.modules.items()):
    path = getattr(mod, "__file__", None)
    if path and name != "__main__" and os.path.realpath(path).startswith(os.getcwd()) and "site-packages" not in path:
        by_file.setdefault(os.path.realpath(path), {})[name] = mod
twice = {p: sorted(mods) for p, mods in by_file.items() if len(mods) > 1}
# `python -m train.X` runs through the short names' package __init__ files, which define nothing: their
# names load lazily from the installed modules, so no class or function exists twice
for p, names in twice.items():
    assert p.endswith("__init__.py") and any(n.split(".")[0] == "train" for n in names), (p, names)
    short = next(by_file[p][n] for n in names if n.split(".")[0] == "train")
    defined = [k for k, v in vars(short).items() if callable(v) and getattr(v, "__module__", "") == short.__name__]
    assert defined in ([], ["__getattr__"]), (p, defined)
print(len(by_file))
"""


def test_no_module_is_loaded_under_two_names() -> None:
    """``python -m train.ppo`` from a checkout and the installed names load each module once (only the empty
    package ``__init__`` files of the short names are run twice)."""
    out = subprocess.run(
        [sys.executable, "-c", _ONE_NAME], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) > 50


def test_run_directories_are_read_without_torch() -> None:
    """``eval.csv`` and run directories (train/results/runs.py), and the commands that only read runs, load no
    torch and no SB3."""
    code = (
        "import sys, zanzibar_env.train.results.runs, zanzibar_env.train.results.plots, zanzibar_env.train.seeds, "
        "zanzibar_env.train.game_curve; print(sorted({'torch', 'stable_baselines3'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


_PLAIN_IMPORT = """
import os, signal, sys
import gymnasium, numpy, stable_baselines3, torch  # noqa  (third parties: gymnasium sets a variable itself)
env, handler = dict(os.environ), signal.getsignal(signal.SIGINT)
hooks, before = list(sys.meta_path), dict(sys.modules)
import zanzibar_env, zanzibar_env.train, zanzibar_env.agents, zanzibar_env.train.tournament  # noqa
import zanzibar_env.train.ppo, zanzibar_env.train.config, zanzibar_env.train.sb3  # noqa
zanzibar_env.play_game("classic", num_players=2, seed=0)
assert dict(os.environ) == env, set(os.environ.items()) ^ set(env.items())
assert signal.getsignal(signal.SIGINT) is handler
assert [name for name, mod in before.items() if sys.modules.get(name) is not mod] == []
assert not [m for m in sys.modules if m.split(".")[0] in ("train", "agents")]
print("plain")
"""


def test_importing_the_library_changes_nothing_outside_it() -> None:
    """Importing the package, its bots and its training code sets no environment variable, installs no
    signal handler and replaces no other module in ``sys.modules`` (commands do what they need in main)."""
    out = subprocess.run(
        [sys.executable, "-c", _PLAIN_IMPORT], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0 and out.stdout.split()[-1] == "plain", out.stderr[-3000:]
