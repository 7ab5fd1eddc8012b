"""The README works as printed from an install: the wheel in a fresh venv outside the checkout runs every
shell line and Python block of README.md (tiny budgets) and every command's printed usage line.

The venv holds the wheel alone; its dependencies are read from this venv's site-packages through a
``.pth`` line (after its own, so ``zanzibar_env`` and the ``zanzibar`` script come from the wheel).
Every command runs in a fresh directory under the system's temporary folder. Shell lines that need a
checkout (``pip install .``, ``make``) are not run: the wheel's build and install stand for them. Slow
(several minutes: three trainings and their exact evaluations, a JAX compile): ``make test-slow``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.install_size import build_wheel
from zanzibar_env.ui.cli import COMMANDS

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
#: what a README training line gets added, so that it trains for seconds (the keys are the config's)
TINY_TRAIN = [
    f"--set={kv}"
    for kv in ("total_timesteps=256", "num_envs=32", "n_steps=8", "batch_size=64", "eval_games=4")
]
#: the modules ``python -m`` runs for each command (a package command names its package)
MODULES = {name: module for name, (module, _extra, _text) in COMMANDS.items()} | {
    "solve": "zanzibar_env.agents.exact",
    "rllib": "zanzibar_env.train.rllib",
}


def readme_shell_lines() -> list[str]:
    """The command lines of README.md's bash blocks, comments cut, checkout-only lines left out."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            cmd = line.split("  #")[0].strip()
            # pip and make lines are the checkout's; `zanzibar serve` runs until stopped (its wheel test:
            # tests/web/test_web_wheel.py)
            if cmd and not cmd.startswith(("pip install", "make ", "zanzibar serve")):
                lines.append(cmd)
    return lines


def _opt(argv: list[str], name: str, value: str) -> list[str]:
    """``argv`` with option ``name``'s values replaced by ``value`` (added if absent)."""
    if name not in argv:
        return [*argv, name, value]
    k = argv.index(name) + 1
    end = k
    while end < len(argv) and not argv[end].startswith("--"):
        end += 1
    return [*argv[:k], value, *argv[end:]]


def tiny(line: str, run_dir: Path | None) -> list[str]:
    """A README command line with a tiny budget (its command and options as printed, smaller numbers)."""
    argv = shlex.split(line)
    assert argv[0] == "zanzibar", f"README line {line!r} does not run from an install"
    command = argv[1]
    if command == "tournament":
        argv = _opt(_opt(argv, "--games", "8"), "--jobs", "1")
    elif command == "train" and "--list-configs" not in argv:
        argv += TINY_TRAIN
    elif command == "seeds":
        argv = _opt(_opt(argv, "--seeds", "0"), "--jobs", "1") + TINY_TRAIN
    elif command == "evaluate":
        assert run_dir is not None, "README evaluates a run before training one"
        argv = [str(run_dir) if a == "runs/<run-dir>" else a for a in argv]
        argv += ["--games", "4", "--tournament-games", "8"]
    return argv


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the checkout holding the wheel (dependencies from this venv); its bin/."""
    tmp = tmp_path_factory.mktemp("readme_wheel")
    assert ROOT not in tmp.parents
    wheel = build_wheel(tmp)
    subprocess.run([sys.executable, "-m", "venv", str(tmp / "venv")], check=True)
    python = tmp / "venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    deps = subprocess.run(
        [sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "zz_deps.pth").write_text(deps + "\n")
    where = subprocess.run(
        [str(python), "-c", "import zanzibar_env; print(zanzibar_env.__file__)"],
        capture_output=True, text=True, check=True, cwd=tmp,
    ).stdout  # fmt: skip
    assert where.startswith(site), where  # the wheel's copy, not the checkout
    return tmp / "venv" / "bin"


def _run(argv: list[str], bin_dir: Path, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "ZANZIBAR_CACHE_DIR": str(cwd)}
    env.pop("PYTHONPATH", None)
    if argv[0] in ("zanzibar", "python"):
        argv = [str(bin_dir / argv[0]), *argv[1:]]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def _ok(out: subprocess.CompletedProcess[str], what: object) -> str:
    assert out.returncode == 0, f"{what}: exit {out.returncode}\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def test_every_readme_shell_line_runs_from_the_install(venv_bin: Path, tmp_path: Path) -> None:
    lines = readme_shell_lines()
    assert any(line.startswith("zanzibar train") for line in lines), lines
    run_dir = None
    for line in lines:
        argv = tiny(line, run_dir)
        out = _ok(_run(argv, venv_bin, tmp_path), argv)
        if argv[1] == "train" and run_dir is None and "--list-configs" not in argv:
            run_dir = next((tmp_path / "runs").iterdir())
            assert (run_dir / "model.zip").is_file(), out


@pytest.mark.parametrize("index", range(len(re.findall(r"```python\n", README))))
def test_every_readme_python_block_runs_from_the_install(venv_bin: Path, tmp_path: Path, index: int) -> None:
    code = re.findall(r"```python\n(.*?)```", README, flags=re.S)[index]
    (tmp_path / "block.py").write_text(code)
    _ok(_run(["python", "block.py"], venv_bin, tmp_path), f"README python block {index}")


def test_every_usage_line_names_a_form_that_runs_there(venv_bin: Path, tmp_path: Path) -> None:
    """``zanzibar NAME --help`` and ``python -m MODULE --help`` each print their own form, which runs."""
    for name, module in MODULES.items():
        for argv, form in (
            (["zanzibar", name], f"zanzibar {name}"),
            (["python", "-m", module], f"python -m {module}"),
        ):
            first = _ok(_run([*argv, "--help"], venv_bin, tmp_path), argv).splitlines()[0]
            assert first.startswith(f"usage: {form} "), (argv, first)
            again = _run([*shlex.split(form), "--help"], venv_bin, tmp_path)
            assert again.stdout.splitlines()[0] == first, (form, again.stderr[-500:])


def test_a_shipped_config_by_name_trains_from_tmp(venv_bin: Path, tmp_path: Path) -> None:
    """The issue's own line, from a directory under /tmp: the config comes from the installed package."""
    out = _ok(
        _run("zanzibar train --config ppo_game_2p --set total_timesteps=2048".split(), venv_bin, tmp_path),
        "train",
    )
    assert "run directory: runs/" in out and "exact game exploitability" in out
    (run,) = (tmp_path / "runs").iterdir()
    assert (run / "model.zip").is_file() and run.name.startswith("Zanzibar-v1__ppo_game_2p__0__")
    bad = _run(["zanzibar", "train", "--config", "ppo_gmae_2p"], venv_bin, tmp_path)
    assert bad.returncode == 2 and "ppo_game_2p" in bad.stderr and "Traceback" not in bad.stderr
