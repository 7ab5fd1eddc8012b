"""The documentation site builds strictly (``make docs``): every page, include and API reference resolves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_docs_build_strictly(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    site = tmp_path / "site"
    rules = (site / "rules" / "index.html").read_text()
    assert "classic" in rules and "instant_zanzibar" in rules  # RULES.md included
    train = (site / "tutorials" / "train" / "index.html").read_text()
    assert 'src="../../training_curve.png"' in train and (site / "training_curve.png").is_file()
    api = (site / "api" / "core" / "index.html").read_text()
    assert "load_ruleset" in api and "make_agent" in api  # docstrings rendered
