"""Install sizes: the wheel with its core dependencies, with every extra, and the development lock.

``python -m benchmarks.install_size`` builds the wheel, installs it into fresh venvs in a temporary
directory (pip reaches its configured index), and prints the wheel's size (and its shipped models' share),
then the size of each venv's site-packages
(``du``-style: the sum of file sizes) and how long the install took:

* ``empty``: a new venv (pip itself), the baseline;
* ``core``: ``pip install zanzibar-env`` (numpy, PyYAML, gymnasium);
* ``all``: ``pip install "zanzibar-env[all]"`` (PettingZoo, rich, pillow, torch, SB3, ...);
* ``ray``: ``pip install "zanzibar-env[ray]"`` (Ray Core and Tune, with the tournament extra);
* ``rllib-lock``: ``pip install -r requirements-rllib.lock`` and the wheel, the RLlib venv
  (``make setup-rllib``: RLlib, CPU torch, PettingZoo, gymnasium 1.2.2);
* ``lock``: ``pip install -r requirements.lock`` and the wheel, what ``make`` installs (with dev tools).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_wheel(tmp: Path) -> Path:
    """The wheel, built from a copy of the sources (the checkout gets no build/ folder)."""
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for name in ("zanzibar_env", "agents", "train", "web", "configs", "models"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(src), "-w", str(tmp)]
    subprocess.run(cmd, check=True)
    (wheel,) = tmp.glob("zanzibar_env-*.whl")
    return wheel


def dir_size(path: Path) -> int:
    """Bytes of all regular files under ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args], check=True)


def measure(tmp: Path, wheel: Path, kind: str) -> tuple[float, float]:
    """``(MB, seconds)`` of the site-packages of a fresh venv holding install ``kind``."""
    venv = tmp / kind
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    start = time.perf_counter()
    if kind == "core":
        _pip(python, str(wheel))
    elif kind == "all":
        _pip(python, f"{wheel}[all]")
    elif kind == "ray":
        _pip(python, f"{wheel}[ray]")
    elif kind in ("lock", "rllib-lock"):
        lock = "requirements.lock" if kind == "lock" else "requirements-rllib.lock"
        _pip(python, "-r", str(ROOT / lock))
        _pip(python, "--no-deps", str(wheel))
    seconds = time.perf_counter() - start
    (site,) = venv.glob("lib/python*/site-packages")
    return dir_size(site) / 1e6, seconds


def wheel_line(wheel: Path) -> str:
    """The wheel's size in MB, and how much of it (compressed) the shipped models take."""
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        models = sum(i.compress_size for i in z.infolist() if i.filename.startswith("zanzibar_env/models/"))
    size = wheel.stat().st_size
    return f"wheel {wheel.name}: {size / 1e6:.2f} MB, of which the shipped models {models / 1e6:.2f} MB"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.install_size", description=__doc__.splitlines()[0])
    p.add_argument(
        "--kinds",
        nargs="*",
        default=["empty", "core", "all", "lock", "ray", "rllib-lock"],
        help="which installs to measure (none: only the wheel's size)",
        choices=["empty", "core", "all", "lock", "ray", "rllib-lock"],
    )
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        wheel = build_wheel(tmp)
        print(wheel_line(wheel))
        print(f"{'install':<11}{'site-packages MB':>18}{'install s':>11}")
        for kind in args.kinds:
            mb, seconds = measure(tmp, wheel, kind)
            print(f"{kind:<11}{mb:>18.1f}{seconds:>11.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
