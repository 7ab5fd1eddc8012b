"""Reading the YAML and JSON files users hand us: size, nesting, aliases and duplicate keys bounded.

Every YAML file the library reads (training and RLlib configs, rulesets, sweep configs) and every JSON
file it reads from a user (an ``rllib:PATH`` export's ``policy.json``) goes through this module. The
rules, stated once here and in the docs (``docs/training.md``, "Files and limits"):

* **Size**: a file over :data:`MAX_FILE_BYTES` (1 MiB) is refused before it is read; the files the
  project ships are under 10 KiB.
* **Nesting**: at most :data:`MAX_DEPTH` (64) levels of lists and mappings (after aliases are followed).
* **Values**: a document holds at most :data:`MAX_NODES` (10,000) scalars, lists and mappings.
* **Aliases** (YAML ``&anchor`` / ``*alias``, and ``<<:`` merge keys) are allowed, but the document
  they expand to may hold at most :data:`MAX_NODES` values too, so an alias bomb ("billion laughs": a
  few hundred bytes that expand to 10^9 values) is refused at once, before anything is built; an alias
  to a node that contains itself is refused too.
* **Duplicate keys** in a mapping are an error naming the key and both lines (YAML and PyYAML would
  let the second silently win); in JSON an error naming the key.
* JSON's non-standard ``NaN`` / ``Infinity`` are refused in what users write (``policy.json``) and
  accepted in the project's own outputs (a model's description).

Errors are ``ValueError`` with one line naming the file. Only the standard library and PyYAML are used
(the rules engine imports this module).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

MAX_FILE_BYTES = 1 << 20  #: largest YAML or JSON file read (bytes)
MAX_DEPTH = 64  #: deepest nesting of lists and mappings, aliases followed
MAX_NODES = 10_000  #: most values a YAML document may hold (and expand to, aliases followed)
_MERGE = "tag:yaml.org,2002:merge"


class _Refused(yaml.YAMLError):
    """A document refused by one of this module's rules (not a syntax error)."""


if yaml.__with_libyaml__:  # libyaml's parser (C, fast) feeds PyYAML's composer, which bounds the nesting
    from yaml._yaml import CParser

    class _Base(Composer, CParser, SafeConstructor, Resolver):
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

else:  # pragma: no cover  (PyYAML built without libyaml: the pure-Python parser, slower)
    _Base = yaml.SafeLoader  # type: ignore[misc,assignment]  # the other branch's base


class _Loader(_Base):
    """PyYAML's safe loader (libyaml's parser when present), with nesting bounded while composing,
    aliases bounded before constructing, and duplicate keys refused."""

    _depth = 0
    _nodes = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        self._depth += 1
        self._nodes += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH} levels (line {self._line()})")
            if self._nodes > MAX_NODES:
                raise _Refused(f"more than {MAX_NODES} values (line {self._line()})")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def _line(self) -> int:
        """The 1-based line of the next event (0 if unknown)."""
        mark = getattr(self.peek_event(), "start_mark", None)
        return int(getattr(mark, "line", -1)) + 1

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, OverflowError) as e:  # e.g. `!!float 4.4]e6`: Python's own message
            if isinstance(e, yaml.YAMLError):
                raise
            shown = str(node.value)[:40] if isinstance(node, ScalarNode) else type(node).__name__
            line = node.start_mark.line + 1
            raise _Refused(f"the value {shown!r} at line {line} cannot be read as {node.tag}") from None

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            _check_duplicates(self, node)
        return super().construct_mapping(node, deep=deep)


def _check_duplicates(loader: _Loader, node: MappingNode) -> None:
    first: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE or not isinstance(key_node, ScalarNode):
            continue
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in first:
            raise _Refused(f"duplicate key {str(key)[:80]!r} at line {line} (first at line {first[key]})")
        first[key] = line


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_expansion(root: Node) -> None:
    """Refuse a document that expands (aliases followed) to over :data:`MAX_NODES` values or
    :data:`MAX_DEPTH` levels, or whose aliases loop; linear in the distinct nodes, never expanding."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            kids = [id(k) for k in _children(node)]
            size[key] = 1 + sum(size[k] for k in kids)
            depth[key] = 1 + max((depth[k] for k in kids), default=0)
            on_path.discard(key)
            if size[key] > MAX_NODES:
                line = node.start_mark.line + 1
                raise _Refused(
                    f"aliases expand to over {MAX_NODES} values (line {line}); write the values out "
                    "or use fewer aliases"
                )
            if depth[key] > MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH} levels, aliases followed")
            continue
        if key in size:
            continue
        if key in on_path:
            raise _Refused(f"an alias refers to a node that contains it (line {node.start_mark.line + 1})")
        on_path.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in _children(node) if id(k) not in size)


def load_yaml(text: str, source: str) -> Any:
    """The YAML document ``text`` (``None`` if empty) under this module's rules; ``ValueError`` naming
    ``source`` (e.g. ``"config file 'x.yaml'"``) otherwise."""
    if len(text) > MAX_FILE_BYTES:
        raise ValueError(f"{source}: {len(text)} characters, over the limit of {MAX_FILE_BYTES}")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    except _Refused as e:
        raise ValueError(f"{source}: {e}") from None
    except (yaml.YAMLError, RecursionError) as e:
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{source}: not valid YAML ({reason})") from None
    finally:
        loader.dispose()


def read_text(path: str | Path, what: str) -> str:
    """The UTF-8 text of the file ``path``, refused (``ValueError``) when missing, not a file, over
    :data:`MAX_FILE_BYTES` (checked before reading) or not UTF-8. ``what`` names it in errors."""
    p = Path(path)
    shown = f"{what} {str(path)[:200]!r}"
    try:
        if not p.is_file():
            raise ValueError(f"{shown} does not exist" if not p.exists() else f"{shown} is not a file")
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"{shown} is {size} bytes, over the limit of {MAX_FILE_BYTES} bytes (1 MiB)")
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{shown} is not readable UTF-8 text ({type(e).__name__})") from None


def read_yaml(path: str | Path, what: str) -> Any:
    """The YAML file ``path`` under this module's rules (:func:`read_text`, :func:`load_yaml`)."""
    return load_yaml(read_text(path, what), f"{what} {str(path)[:200]!r}")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {key[:80]!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not JSON")


def _json_depth(value: Any) -> int:
    """Nesting depth of parsed JSON (iterative: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, d)
            if d > MAX_DEPTH:
                return d
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def load_json(text: str, source: str, *, nan: bool = False) -> Any:
    """The JSON document ``text`` under this module's rules; ``ValueError`` naming ``source``. ``nan``:
    accept ``NaN``/``Infinity`` (as Python's ``json.dumps`` writes them into our own outputs)."""
    if len(text) > MAX_FILE_BYTES:
        raise ValueError(f"{source}: {len(text)} characters, over the limit of {MAX_FILE_BYTES}")
    try:
        constant = float if nan else _no_constant
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=constant)
    except _Refused as e:
        raise ValueError(f"{source}: {e}") from None
    except RecursionError:
        raise ValueError(f"{source}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as e:
        raise ValueError(f"{source}: not valid JSON ({str(e).splitlines()[0][:120]})") from None
    if _json_depth(value) > MAX_DEPTH:
        raise ValueError(f"{source}: nested deeper than {MAX_DEPTH} levels")
    return value


def read_json(path: str | Path, what: str, *, nan: bool = False) -> Any:
    """The JSON file ``path`` under this module's rules (:func:`read_text`, :func:`load_json`)."""
    return load_json(read_text(path, what), f"{what} {str(path)[:200]!r}", nan=nan)
