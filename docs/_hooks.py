"""MkDocs hook: pages include sections of README.md and RULES.md, so the site and the files never differ.

A line ``<!-- include README.md#Heading text -->`` is replaced by that ``##`` section of README.md (its
heading line dropped, up to the next ``##`` heading); ``<!-- include RULES.md -->`` by the whole file.
Links into the repository are rewritten for the page's place in the site: ``docs/x.png`` to the
picture, ``RULES.md`` to the rules page, ``CHANGELOG.md`` to the changelog page.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


_INCLUDE = re.compile(r"^<!-- include (\S+?)(?:#(.+?))? -->$", re.M)


def _section(text: str, heading: str, source: str) -> str:
    parts = re.split(r"^## ", text, flags=re.M)
    for part in parts[1:]:
        title, _, body = part.partition("\n")
        if title.strip() == heading:
            return body.strip("\n")
    raise ValueError(f"{source} has no section '## {heading}'")


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace include lines; rewrite repository links relative to the page."""
    up = "../" * page.file.src_uri.count("/")

    def include(m: re.Match[str]) -> str:
        source, heading = m.group(1), m.group(2)
        text = (ROOT / source).read_text()
        if heading:
            text = _section(text, heading, source)
        text = text.replace("](docs/", f"]({up}").replace("](RULES.md)", f"]({up}rules.md)")
        text = text.replace("](CHANGELOG.md)", f"]({up}changelog.md)")
        return text

    return _INCLUDE.sub(include, markdown)
