"""What a saved result was made with: file format versions, the engine version, the ruleset by content.

Every record (:class:`~zanzibar_env.core.records.GameRecord`), tournament report (``results.json``) and
training run (``run.json``) carries a *stamp*: its format version, the engine that wrote it
(``zanzibar-env 0.1.0``), and the ruleset's name beside :func:`ruleset_digest`, a SHA-256 of the
ruleset's canonical form (every option, keys sorted, compact JSON). Two rulesets with one name but
different options (a custom ``classic.yaml``) have different digests; a ruleset file renamed or moved
keeps its digest. Reading a file of another format says so plainly (:func:`format_note`) instead of
failing later on a mismatch it cannot explain.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .rules import Ruleset

#: Format of a game record (one JSON line). 1: no ``format`` key (records before versions were stamped);
#: 2: ``format``, ``engine`` and ``ruleset_sha256`` added.
RECORD_FORMAT = 2
#: Format of a tournament's ``results.json`` (1: no ``format`` key; 2: stamped, ``complete`` added).
REPORT_FORMAT = 2
#: Format of a training run directory's ``run.json``.
RUN_FORMAT = 1

_ENGINE = re.compile(r"zanzibar-env [0-9][0-9A-Za-z.+!-]{0,40}")


def engine_version() -> str:
    """``zanzibar-env X.Y.Z``: the package that writes a file.

    Read from the parent package, which Python has always loaded before this module (``core`` imports
    nothing above itself, so it is looked up, not imported).
    """
    return f"zanzibar-env {sys.modules['zanzibar_env'].__version__}"


def is_engine_version(value: object) -> bool:
    """Whether ``value`` looks like what :func:`engine_version` writes."""
    return isinstance(value, str) and _ENGINE.fullmatch(value) is not None


def ruleset_digest(rules: Ruleset | dict[str, Any]) -> str:
    """SHA-256 (hex) of a ruleset's canonical form: every option, sorted keys, compact JSON."""
    options = rules if isinstance(rules, dict) else rules.to_dict()
    text = json.dumps(options, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def stamp(fmt: int, rules: Ruleset | None = None) -> dict[str, Any]:
    """``{"format", "engine"}`` and, given a ruleset, ``{"ruleset", "ruleset_sha256"}``."""
    out: dict[str, Any] = {"format": fmt, "engine": engine_version()}
    if rules is not None:
        out["ruleset"] = rules.name
        out["ruleset_sha256"] = ruleset_digest(rules)
    return out


def format_note(kind: str, fmt: object, engine: object, current: int) -> str:
    """A plain sentence on a file from another format or engine, e.g. ``record format 1 from an earlier
    zanzibar-env; this is format 2 (zanzibar-env 0.1.0)``; ``""`` when both match this package."""
    here = engine_version()
    if fmt == current and engine == here:
        return ""
    origin = engine if is_engine_version(engine) else "an earlier zanzibar-env (before versions were stamped)"
    return f"{kind} format {fmt} from {origin}; this is format {current} ({here})"


def check_format(kind: str, fmt: object, engine: object, current: int) -> int:
    """The format number if this package can read it (``1..current``), else ``ValueError`` in plain words."""
    if isinstance(fmt, bool) or not isinstance(fmt, int) or fmt < 1:
        raise ValueError(f"{kind} format must be a positive integer, got {fmt!r}")
    if fmt > current:
        raise ValueError(f"{format_note(kind, fmt, engine, current)}: read it with a newer zanzibar-env")
    return fmt
