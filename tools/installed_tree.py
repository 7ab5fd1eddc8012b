"""Lay the checkout out as it installs, as a tree of links: ``python tools/installed_tree.py DEST``.

The repository keeps ``agents/``, ``train/``, ``configs/`` and ``models/`` at the top; the wheel installs
them as ``zanzibar_env.agents``, ``zanzibar_env.train``, ``zanzibar_env.configs`` and
``zanzibar_env.models`` (``[tool.setuptools.package-dir]`` in pyproject.toml). Python follows that
mapping through setuptools' editable import hook, but tools that read source files (mypy, the docs'
griffe) cannot. They read ``DEST/zanzibar_env`` instead: a folder of
links to ``zanzibar_env/``'s entries and to each mapped folder, so every file is the checkout's own.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "zanzibar_env"


def mapped_folders(root: Path = ROOT) -> dict[str, Path]:
    """Subpackage name under ``zanzibar_env`` -> its folder in the checkout (from pyproject.toml)."""
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    return {
        name.removeprefix(PACKAGE + "."): root / folder
        for name, folder in setuptools.get("package-dir", {}).items()
        if name.startswith(PACKAGE + ".") and "." not in name.removeprefix(PACKAGE + ".")
    }


def links(root: Path = ROOT) -> dict[str, Path]:
    """Name inside ``DEST/zanzibar_env`` -> what it links to."""
    out = {e.name: e for e in (root / PACKAGE).iterdir() if e.name != "__pycache__"}
    return out | mapped_folders(root)


def build(dest: Path, root: Path = ROOT) -> Path:
    """Make ``dest/zanzibar_env`` (left as it is when its links are already right); returns ``dest``."""
    pkg, want = dest / PACKAGE, links(root)
    if pkg.is_dir() and {e.name: e.readlink() for e in pkg.iterdir() if e.is_symlink()} == want:
        return dest
    if pkg.exists():
        shutil.rmtree(pkg)
    pkg.mkdir(parents=True)
    for name, target in want.items():
        (pkg / name).symlink_to(target)
    return dest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python tools/installed_tree.py DEST")
    print(build(Path(sys.argv[1]).resolve()))
