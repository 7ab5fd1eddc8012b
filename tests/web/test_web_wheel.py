"""``zanzibar serve`` from a wheel: the arena's page, script and API answer from an installed copy."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from benchmarks.install_size import build_wheel

pytestmark = pytest.mark.slow


def _purelib(python: Path) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return Path(
        subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    )


def test_serve_from_a_wheel(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    wheel = build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert {f"zanzibar_env/web/static/{n}" for n in ("index.html", "app.js", "style.css")} <= set(names)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, timeout=300
    )
    (_purelib(python) / "zz_deps.pth").write_text(f"{_purelib(Path(sys.executable))}\n")  # [web] and the core
    proc = subprocess.Popen(
        [str(venv / "bin" / "zanzibar"), "serve", "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        print(line.strip())
        assert line.startswith("Zanzibar arena on http://127.0.0.1:"), line
        url = line.split()[3]
        with urllib.request.urlopen(url, timeout=30) as page:
            assert b"Zanzibar arena" in page.read()
        with urllib.request.urlopen(url + "static/app.js", timeout=30) as script:
            assert b"showGame" in script.read()
        body = json.dumps({"bots": ["optimal"], "hints": True, "seed": 1}).encode()
        req = urllib.request.Request(url + "api/games", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            state = json.loads(resp.read())
        assert state["hints"] and "site-packages" not in state["svg"]
        code = "import zanzibar_env.web as w; print(w.__file__)"
        where = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=tmp_path).stdout
        assert "site-packages" in where and str(Path(__file__).parents[1]) not in where
    finally:
        proc.terminate()
        proc.wait(timeout=30)
