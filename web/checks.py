"""Every request field of the arena checked once: a clear message naming the field, never a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from zanzibar_env.core.registry import available_agents
from zanzibar_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset, available_rulesets, load_ruleset

from .games import Refused

#: largest request body read (a request of the arena is well under 2 KiB)
MAX_BODY = 16 * 1024
#: a replay file's name: letters, digits, dot, dash, underscore; no folder part
_FILE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}\.(jsonl|json)$")


def parse_json(body: bytes) -> dict[str, Any]:
    """The JSON object of a request body (413 above :data:`MAX_BODY`, 400 for anything but an object)."""
    if len(body) > MAX_BODY:
        raise Refused(f"request body over {MAX_BODY} bytes", 413)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        raise Refused("the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise Refused(f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def integer(data: dict[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    """``data[key]`` as an integer in ``lo..hi`` (``default`` when absent and a default is given)."""
    value = data.get(key, default)
    if value is None:
        raise Refused(f"{key} is required (an integer {lo}-{hi})")
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise Refused(f"{key} must be an integer {lo}-{hi}, got {str(value)[:40]!r}")
    return value


def ruleset(data: dict[str, Any]) -> Ruleset:
    """A shipped ruleset, by name only (no file paths from a request)."""
    name = data.get("ruleset", "classic")
    names = available_rulesets()
    if not isinstance(name, str) or name not in names:
        raise Refused(f"unknown ruleset {str(name)[:60]!r}; choose one of {', '.join(names)}")
    return load_ruleset(name)


def bot_names() -> list[str]:
    """The bots a request may name: registered names, no prefixes (``ppo:FILE`` and the like)."""
    return sorted(n for n in available_agents() if ":" not in n)


def bots(data: dict[str, Any], key: str = "bots", most: int = MAX_PLAYERS) -> list[str]:
    """A list of 1-``most`` registered bot names (``module:Attr``, prefixes and paths refused)."""
    value = data.get(key, ["greedy"])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not 1 <= len(value) <= most:
        raise Refused(f"{key} must be a list of 1-{most} bot names")
    known = bot_names()
    for name in value:
        if not isinstance(name, str):
            raise Refused(f"{key}: a bot is named by a string, got {str(name)[:40]!r}")
        if ":" in name or "/" in name or "\\" in name:
            raise Refused(
                f"{key}: bots are chosen by registry name only; {name[:60]!r} (a module:Attr, a prefix or a "
                f"file path) is refused. Choose from {', '.join(known)}"
            )
        if name not in known:
            raise Refused(f"{key}: unknown bot {name[:60]!r}; choose from {', '.join(known)}")
    return list(value)


def players(data: dict[str, Any]) -> int:
    return integer(data, "players", MIN_PLAYERS, MAX_PLAYERS, 2)


def flag(data: dict[str, Any], key: str, default: bool = False) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise Refused(f"{key} must be true or false, got {str(value)[:40]!r}")
    return value


def replay_file(folder: Path | None, name: str) -> Path:
    """The file ``name`` directly inside the replay folder; anything else (a path, ``..``) is refused."""
    if folder is None:
        raise Refused("no replay folder: start the server with --replays DIR", 404)
    if not _FILE_NAME.match(name):
        raise Refused(f"{name[:60]!r} is not a replay file name (NAME.jsonl or NAME.json, no folders)", 400)
    path = (folder / name).resolve()
    if path.parent != folder.resolve() or not path.is_file():
        raise Refused(f"no replay file {name!r} in the replay folder", 404)
    return path
