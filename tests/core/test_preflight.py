"""Nothing starts that cannot finish: a command's extras, inputs and outputs are checked before any work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from zanzibar_env.core.preflight import COMMAND_EXTRAS, missing_extras, preflight
from zanzibar_env.extras import EXTRAS

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_extra_is_a_known_extra() -> None:
    from zanzibar_env.ui.cli import COMMANDS

    assert set(COMMAND_EXTRAS) <= set(COMMANDS)
    assert all(extra in EXTRAS for extras in COMMAND_EXTRAS.values() for extra in extras)


def test_a_missing_module_names_the_pip_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openskill", None)  # what an uninstalled module looks like to find_spec
    assert missing_extras(["tournament"]) == {"tournament": ["openskill"]}
    with pytest.raises(
        ValueError,
        match=r"'openskill' \(the \[tournament\] extra\).*pip install \"zanzibar-env\[tournament\]\"",
    ):
        preflight("tournament")


def test_inputs_and_outputs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"input .*nope.* does not exist"):
        preflight("bench", inputs=[tmp_path / "nope"])
    with pytest.raises(ValueError, match="does not exist"):
        preflight("bench", outputs=[tmp_path / "no_dir" / "out.csv"])
    (tmp_path / "out.csv").write_text("")
    with pytest.raises(ValueError, match="already exists"):
        preflight("bench", outputs=[tmp_path / "out.csv"])
    preflight("bench", inputs=[tmp_path], outputs=[tmp_path / "out.csv"], force=True)


_NO_OPENSKILL = """
import sys
sys.modules["openskill"] = None  # the [tournament] extra is not installed
from zanzibar_env.train.tournament.cli import main
code = main(["--agents", "random,greedy", "--players", "2", "--games", "2000"])
print("exit", code)
"""


def test_a_tournament_without_openskill_stops_before_its_first_game(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _NO_OPENSKILL], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.strip() == "exit 2", out.stdout + out.stderr  # no progress bar, no table: no game
    assert 'pip install "zanzibar-env[tournament]"' in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
