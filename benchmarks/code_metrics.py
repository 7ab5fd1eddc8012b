"""The house in numbers: modules per folder, modules a reader opens to follow a command or a step, noise.

``python -m benchmarks.code_metrics`` from a checkout prints:

- the Python modules under each top-level folder (and under each of ``train/``'s subpackages);
- the project modules that ``train/ppo.py`` names, and that ``python -m train.ppo`` and one ``env.step``
  load (what a reader follows);
- the counts of ``# fmt: skip``, ``# noqa`` and ``# type: ignore`` comments in the library's code, of
  those that say why on their line (text after the marker and its codes), and of ``Any`` in its
  annotations (parameters, returns, annotated names; a name bound to ``Any``, such as ``Number = Any``,
  counted as ``Any`` where it is used);
- the library modules that have a test module of their own name (``tests/<package>/test_<module>.py``);
- the words containing "table" in the library's code, by what they mean (a rough, word-based sort).

Nothing is timed: the figures depend on the source only, so two checkouts compare line for line.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import tokenize
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ("zanzibar_env", "agents", "train")
#: Each marker, and the marker with its codes: what follows on the comment is its reason.
NOISE = {
    "# fmt: skip": re.compile(r"#\s*fmt:\s*(?:skip|off)"),
    "# noqa": re.compile(r"#\s*noqa(?::\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?"),
    "# type: ignore": re.compile(r"#\s*type:\s*ignore(?:\[[\w,\s-]*\])?"),
}
#: Where the tests of a library folder live (the longest matching prefix wins).
TEST_HOME = {
    "zanzibar_env": "package", "zanzibar_env/core": "core", "zanzibar_env/envs": "envs",
    "zanzibar_env/jax": "jax", "zanzibar_env/ui": "ui", "agents": "agents", "agents/exact": "exact",
    "train": "train", "train/tournament": "tournament", "web": "web",
}  # fmt: skip
#: "table" words by meaning, first match wins (a rough sort by the word alone).
TABLE_MEANINGS = {
    "policy table": re.compile(
        r"policy_?tables?|game_?tables?|TableAgent|agent_tables|(save|load|from)_table", re.I
    ),
    "hand ranking table": re.compile(
        r"HandTable|hand_tables?|lives_table|(rules|ruleset|self)\.table$", re.I
    ),
    "lookup / solved table": re.compile(
        r"\w_tables|^_tables?$|(?-i:Tables)$|table_key|transition_table", re.I
    ),
    "printed table": re.compile(r"(print|format|scale|values)_table", re.I),
    "the seats at play (names)": re.compile(r"^(?!tables?$).*(table\w|\wtable)", re.I),
    "plain table(s) (prose, by context)": re.compile(r"^tables?$", re.I),
}
_LOADED = """
import sys, os
{setup}
root = os.path.realpath({root!r})
files = {{os.path.realpath(m.__file__) for m in list(sys.modules.values()) if getattr(m, "__file__", None)}}
print(len([f for f in files if f.startswith(root + os.sep) and "site-packages" not in f]))
"""
_FOLLOW = {
    "python -m train.ppo (the command's imports)": "import zanzibar_env.train.ppo",
    "one env.step (Zanzibar-v1)": (
        "import gymnasium as gym, zanzibar_env\n"
        "env = gym.make('Zanzibar-v1'); env.reset(seed=0); env.step(env.action_space.sample())"
    ),
}


def _modules(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*.py") if "__pycache__" not in p.parts and not p.is_symlink()]


def module_counts(root: Path) -> dict[str, int]:
    """Python modules per top-level folder, and per subpackage of ``train/``."""
    counts: dict[str, int] = {}
    for folder in ("zanzibar_env", "agents", "train", "tests", "benchmarks", "experiments"):
        if (root / folder).is_dir():
            real = [
                p for p in _modules(root / folder) if p.resolve().is_relative_to((root / folder).resolve())
            ]
            counts[f"{folder}/"] = len(real)
    train = root / "train"
    counts["train/ top level"] = len(list(train.glob("*.py")))
    for sub in sorted(p for p in train.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        counts[f"train/{sub.name}/"] = len(_modules(sub))
    return counts


def library_files(root: Path) -> list[Path]:
    """The library's modules: ``zanzibar_env/``, ``agents/`` and ``train/``, each file once (the links in
    ``zanzibar_env/`` to ``agents/`` and ``train/`` are not followed twice)."""
    files = []
    for folder in LIBRARY:
        for path in _modules(root / folder):
            if folder == "zanzibar_env" and path.resolve().parts[len(root.resolve().parts)] != "zanzibar_env":
                continue  # a file reached through a link is counted under its own folder
            files.append(path)
    return files


def comment_noise(text: str) -> Counter[str]:
    """Marker comments in one module's source (comments only, not text in strings), and for each the
    number that say why: ``NAME`` and ``NAME with a reason``."""
    found: Counter[str] = Counter()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT:
            continue
        for name, pattern in NOISE.items():
            hit = pattern.search(tok.string)
            if hit:
                found[name] += 1
                found[f"{name} with a reason"] += bool(tok.string[hit.end() :].strip(" #()"))
    return found


def _names_any(node: ast.AST | None, aliases: frozenset[str] = frozenset()) -> int:
    """Names in ``node`` that are ``Any`` or one of its ``aliases``."""
    if node is None:
        return 0
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
        try:
            node = ast.parse(node.value, mode="eval")
        except SyntaxError:
            return 0
    return sum(
        (isinstance(n, ast.Name) and (n.id == "Any" or n.id in aliases))
        or (isinstance(n, ast.Attribute) and n.attr == "Any")
        for n in ast.walk(node)
    )


def any_aliases(tree: ast.Module) -> set[str]:
    """The names a module binds to ``Any`` at its top level (``Number = Any``)."""
    return {
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Any"
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Name)
    }


def any_annotations(tree: ast.Module, aliases: set[str]) -> int:
    """``Any`` in one module's annotations (parameters, returns, annotated names), counting a name
    bound to ``Any`` (``aliases``: the library's, where this module defines or imports one) as ``Any``."""
    own = any_aliases(tree)
    imported = {
        a.asname or a.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for a in node.names
        if a.name in aliases
    }
    seen = frozenset(own | imported)
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
            count += sum(_names_any(p.annotation, seen) for p in params) + _names_any(node.returns, seen)
        elif isinstance(node, ast.AnnAssign):
            count += _names_any(node.annotation, seen)
    return count


def noise_counts(root: Path) -> Counter[str]:
    """The noise markers in the library's comments (with those that say why) and ``Any`` in its
    annotations."""
    found: Counter[str] = Counter()
    texts = [path.read_text() for path in library_files(root)]
    trees = [ast.parse(text) for text in texts]
    aliases = set().union(*map(any_aliases, trees))
    for text, tree in zip(texts, trees, strict=True):
        found.update(comment_noise(text))
        found["Any in annotations"] += any_annotations(tree, aliases)
    found["names bound to Any"] = len(aliases)
    return found


def _library_files(root: Path) -> list[tuple[str, Path]]:
    """``(folder, path)`` of each library module, each once (a file reached through a link is left out)."""
    out = []
    for folder in (*LIBRARY, "web"):
        for path in _modules(root / folder):
            if path.resolve().is_relative_to((root / folder).resolve()):
                out.append((folder, path))
    return out


def mirrored_tests(root: Path) -> tuple[int, int]:
    """Library modules with a test module of their own name, and library modules (``__init__`` and
    ``__main__`` left out): ``agents/exact/game.py`` is mirrored by ``tests/exact/test_game.py``."""
    have = total = 0
    for _, path in _library_files(root):
        if path.stem in ("__init__", "__main__"):
            continue
        rel = path.parent.relative_to(root).as_posix()
        home = max((k for k in TEST_HOME if rel == k or rel.startswith(k + "/")), key=len)
        total += 1
        have += (root / "tests" / TEST_HOME[home] / f"test_{path.stem.lstrip('_')}.py").exists()
    return have, total


def table_words(root: Path) -> Counter[str]:
    """The words containing "table" in the library's code, sorted by :data:`TABLE_MEANINGS`."""
    found: Counter[str] = Counter()
    for _, path in _library_files(root):
        for line in path.read_text().splitlines():
            for word in re.findall(r"[\w.]*table\w*", line, re.I):
                if re.search(r"stable|executable|printable|writable|repeatable", word, re.I):
                    continue
                last = word.rsplit(".", 1)[-1]  # (the hand ranking table is read as ``rules.table``)
                meaning = (
                    k for k, p in TABLE_MEANINGS.items() if p.search(word if k.startswith("hand") else last)
                )
                found[next(meaning, "other")] += 1
    return found


def named_modules(path: Path) -> tuple[int, int]:
    """Project modules a file's imports name (all, and those of ``zanzibar_env.train``): a reader's first hop."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    ours = {n for n in names if n.startswith("zanzibar_env")}
    return len(ours), len({n for n in ours if n.startswith("zanzibar_env.train")})


def loaded_modules(python: str, root: Path) -> dict[str, int]:
    """How many of the project's modules each way in loads (run in a fresh interpreter from ``root``)."""
    out = {}
    for label, setup in _FOLLOW.items():
        code = _LOADED.format(setup=setup, root=str(root))
        done = subprocess.run([python, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
        out[label] = int(done.stdout.split()[-1]) if done.returncode == 0 else -1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.code_metrics", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter that imports it")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    print(f"checkout: {root}")
    for name, n in module_counts(root).items():
        print(f"  modules in {name:<28} {n:>4}")
    total, train = named_modules(root / "train" / "ppo.py")
    print(f"  project modules named by train/ppo.py's imports {total:>4} ({train} of them in train/)")
    for name, n in loaded_modules(args.python, root).items():
        print(f"  project modules loaded by {name:<45} {n:>4}")
    noise = noise_counts(root)
    for name in [
        *(k for m in NOISE for k in (m, f"{m} with a reason")),
        "Any in annotations",
        "names bound to Any",
    ]:
        print(f"  {name:<33} in the library {noise[name]:>5}")
    have, total = mirrored_tests(root)
    print(f"  library modules with a same-named test module {have:>4} of {total}")
    for name, n in sorted(table_words(root).items()):
        print(f"  'table' words meaning {name:<28} {n:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
