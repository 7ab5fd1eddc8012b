"""Usage lines and messages name the form that started a command (zanzibar_env.core.invocation)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from zanzibar_env.core.invocation import command_prog, invoked_as
from zanzibar_env.ui.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]


def test_called_as_a_function_names_the_installed_module() -> None:
    assert command_prog("zanzibar_env.train.ppo") == "python -m zanzibar_env.train.ppo"


def test_under_the_zanzibar_command_names_the_subcommand() -> None:
    with invoked_as("zanzibar", {"zanzibar_env.train.ppo": "train"}):
        assert command_prog("zanzibar_env.train.ppo") == "zanzibar train"
        assert command_prog("zanzibar_env.train.sweep") == "python -m zanzibar_env.train.sweep"
    assert command_prog("zanzibar_env.train.ppo") == "python -m zanzibar_env.train.ppo"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_subcommand_prints_its_zanzibar_usage(name: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stop:
        main([name, "--help"])
    assert stop.value.code == 0
    assert out.getvalue().startswith(f"usage: zanzibar {name} "), out.getvalue()[:200]


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["-m", "train.ppo", "--help"], "usage: python -m train.ppo "),
        (
            ["-m", "zanzibar_env.train.tournament", "--help"],
            "usage: python -m zanzibar_env.train.tournament ",
        ),
        (["-m", "train.tournament", "--players", "x"], "usage: python -m train.tournament "),
        (["-m", "zanzibar_env", "bench", "--help"], "usage: python -m zanzibar_env bench "),
    ],
)
def test_python_m_forms_print_themselves(argv: list[str], usage: str) -> None:
    """From a checkout, ``python -m train.X`` and ``python -m zanzibar_env...`` each name themselves, in
    ``--help`` and in an error's usage line."""
    out = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert usage in out.stdout + out.stderr, out.stdout + out.stderr
