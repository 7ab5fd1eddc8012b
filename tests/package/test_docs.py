"""The documentation site builds strictly (``make docs``): every page, include and API reference resolves."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
    train = (site / "training" / "index.html").read_text()
    assert 'src="../training_curve.png"' in train and (site / "training_curve.png").is_file()
    api = (site / "api" / "core" / "index.html").read_text()
    assert "load_ruleset" in api and "make_agent" in api  # docstrings rendered
    assert "parallel_env" in (site / "api" / "envs" / "index.html").read_text()


# ---- links in the files a user reads on GitHub (the site's own links are checked by the strict build) ----
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor GitHub (and mkdocs' toc) gives a heading: lower case, punctuation dropped, spaces as -."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {_slug(m) for m in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


@pytest.mark.parametrize("name", ["README.md", "CHANGELOG.md", "RULES.md"])
def test_links_and_anchors_resolve(name: str) -> None:
    source = ROOT / name
    text = re.sub(r"```.*?```", "", source.read_text(), flags=re.S)
    broken = []
    for m in _LINK.finditer(text):
        target = m.group(1) or m.group(2)
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file, _, anchor = target.partition("#")
        path = source if not file else (source.parent / file)
        if not path.exists():
            broken.append(f"{target}: no file {file}")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{target}: no heading #{anchor} in {path.relative_to(ROOT)}")
    assert not broken, broken


def test_a_broken_anchor_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## Playing to win the game (2 players)\n")
    assert "playing-to-win-the-game-2-players" in _anchors(page)
    assert "learning-the-full-game" not in _anchors(page)


@pytest.mark.parametrize(
    "module",
    [
        "zanzibar_env.train.tournament",
        "zanzibar_env.train.exact_eval",
        "zanzibar_env.ui.play",
        "zanzibar_env.ui.render",
    ],
)
def test_every_agent_option_lists_every_spec_form(module: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    for form in ("ppo:PATH", "rllib:PATH", "module:Attr", "ppo_classic_2p"):
        assert form in text, (module, form)


def test_the_site_checks_links_and_anchors() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    for key in ("omitted_files", "absolute_links", "unrecognized_links", "anchors"):
        assert f"  {key}: warn" in config  # a warning fails `mkdocs build --strict`


# ---- file paths named in the prose (`tests/jax/test_env.py`, `benchmarks/jax_speed.py`) exist ----
_PATH = re.compile(
    r"`((?:tests|benchmarks|train|agents|zanzibar_env|configs|experiments|docs)/[\w/.-]+\.(?:py|yaml|md))`"
)
_PAGES = [
    "README.md",
    "RULES.md",
    "ARCHITECTURE.md",
    "CONTRIBUTING.md",
    *(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")),
]


def _missing_paths(text: str, root: Path) -> list[str]:
    return sorted({p for p in _PATH.findall(text) if not (root / p).exists()})


@pytest.mark.parametrize("name", [p for p in _PAGES if (ROOT / p).exists()])
def test_every_file_path_a_page_names_exists(name: str) -> None:
    assert not _missing_paths((ROOT / name).read_text(), ROOT), name


def test_a_stale_file_path_is_caught() -> None:
    text = "compared in `tests/jax/test_env.py` and `tests/test_jax.py`"
    assert _missing_paths(text, ROOT) == ["tests/test_jax.py"]
