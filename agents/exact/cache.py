"""Solved tables from memory, from disk, or solved: one on-disk format for every table the solvers write.

Tables are solved lazily on first use, kept in memory for the process (every agent shares them) and
cached on disk in ``$ZANZIBAR_CACHE_DIR`` (default ``~/.cache/zanzibar_env``): the round tables of a
ruleset and table size as ``optimal-<hash>.npz`` (:func:`solved_tables`), the 2-player game tables of a
ruleset and stacks as ``optimal_game-<hash>.npz`` (:func:`solved_game`). The hash covers the options that
change play (:data:`PLAY_OPTIONS`), what the tables are for (table size, or the canonical stacks) and the
solver's version.

Every file has one format (:func:`save_arrays`, :func:`load_arrays`): the arrays, a ``format`` array
``[CACHE_FORMAT, solver version]`` and a SHA-256 ``checksum`` over the file's tag (its hash) and every
array's name, dtype, shape and bytes; written atomically, read with ``allow_pickle=False`` (a planted
pickle is refused, never run). A file that does not match (another format or version, another tag, a
damaged or tampered file) is solved again and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.game import GameSpec, Pairs
from zanzibar_env.agents.exact.game_iteration import (
    GAME_SOLVER_VERSION,
    SolvedGame,
    check_stacks,
    solve_game,
    stacks_key,
)
from zanzibar_env.agents.exact.lookup import Dense, dense_tables
from zanzibar_env.agents.exact.round import SOLVER_VERSION, Level, RoundSpec, solve
from zanzibar_env.core.rules import Ruleset, load_ruleset

#: Layout version of every cache file (3: one format for round and game tables).
CACHE_FORMAT = 3
#: Ruleset options that change optimal play (name, description, stacks and round caps do not).
PLAY_OPTIONS = (
    "hand_ranking",
    "one_points",
    "six_points",
    "stake",
    "max_rolls",
    "holds_allowed",
    "first_roller_sets_limit",
    "tie_rule",
    "payment",
    "payments",
    "lives_lost",
    "lives_table",
    "instant_zanzibar",
    "final_hand",
)
_LEVEL_ARRAYS = ("keys", "wlow", "wa", "wb", "policy", "value")
_GAME_ARRAYS = ("value", "policy_a", "policy_b")
_READ_ERRORS = (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile)


def default_cache_dir() -> Path:
    """``$ZANZIBAR_CACHE_DIR`` if set, else ``~/.cache/zanzibar_env``."""
    env = os.environ.get("ZANZIBAR_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "zanzibar_env"


# ---- the file format ---------------------------------------------------------------------------------
def _checksum(arrays: dict[str, np.ndarray], tag: str) -> np.ndarray:
    """SHA-256 over ``tag`` and every array's name, dtype, shape and bytes, as ``uint8[32]``."""
    h = hashlib.sha256(tag.encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return np.frombuffer(h.digest(), np.uint8)


def save_arrays(path: Path, arrays: dict[str, np.ndarray], tag: str, version: int) -> None:
    """Write ``arrays`` to an ``.npz`` with the format, the solver ``version``, and a checksum over ``tag``
    (what the tables are for) and the arrays; written atomically."""
    out = {**arrays, "format": np.array([CACHE_FORMAT, version], np.int64)}
    out["checksum"] = _checksum(out, tag)
    tmp = path.with_name(path.name + f".{np.random.default_rng().integers(1 << 30)}.tmp.npz")
    try:
        np.savez_compressed(tmp, **out)  # type: ignore[arg-type]  # numpy's stub: allow_pickle in **kwds
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def load_arrays(path: Path, names: Sequence[str], tag: str, version: int) -> dict[str, np.ndarray]:
    """Read the arrays ``names`` written by :func:`save_arrays`; ``ValueError`` unless the file holds
    exactly them, has this format and solver ``version``, the same ``tag`` and a matching checksum
    (never unpickles)."""
    with np.load(path, allow_pickle=False) as z:
        if set(z.files) != {*names, "format", "checksum"}:
            raise ValueError(f"{path}: not a cache file of arrays {sorted(names)}")
        arrays = {k: z[k] for k in [*names, "format"]}
        stored = z["checksum"]
    if arrays["format"].tolist() != [CACHE_FORMAT, version]:
        raise ValueError(f"{path}: cache format {arrays['format'].tolist()} is not {[CACHE_FORMAT, version]}")
    if not np.array_equal(stored, _checksum(arrays, tag)):
        raise ValueError(f"{path}: checksum mismatch")
    del arrays["format"]
    return arrays


def _read(path: Path, names: Sequence[str], tag: str, version: int) -> dict[str, np.ndarray] | None:
    """:func:`load_arrays`, or ``None`` for a missing, damaged, tampered or foreign file."""
    if not path.exists():
        return None
    try:
        return load_arrays(path, names, tag, version)
    except _READ_ERRORS:
        return None


def _write(path: Path, arrays: dict[str, np.ndarray], tag: str, version: int) -> None:
    """:func:`save_arrays`, creating the folder; a read-only cache only costs a re-solve next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        save_arrays(path, arrays, tag, version)
    except OSError:
        pass


def _hash(ruleset: Ruleset, what: dict[str, Any]) -> str:
    opts = {k: getattr(ruleset, k) for k in PLAY_OPTIONS}
    blob = json.dumps({"options": opts, **what}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


_MEMORY: dict[str, Any] = {}  # process-wide: every agent shares solved tables


# ---- round tables ------------------------------------------------------------------------------------
def table_key(ruleset: Ruleset, n: int) -> str:
    """Hash naming the solved round tables of ``ruleset`` at a table of ``n`` active players."""
    return _hash(ruleset, {"n": n, "version": SOLVER_VERSION})


@dataclass
class Solved:
    """The solved round tables of one ruleset and table size."""

    spec: RoundSpec
    levels: list[Level]
    _dense: Dense | None = None

    @property
    def dense(self) -> Dense:
        """The :class:`~zanzibar_env.agents.exact.lookup.Dense` look-up of these tables (built on first use)."""
        if self._dense is None:
            self._dense = dense_tables(self.spec, self.levels)
        return self._dense


def solved_tables(ruleset: Ruleset, n: int, cache_dir: Path | None = None, use_disk: bool = True) -> Solved:
    """The round tables for ``ruleset`` and ``n`` active players: from memory, from disk, or solved (then
    saved). Tables read from disk keep no final-hand distributions (``Level.dist``)."""
    key = table_key(ruleset, n)
    if key in _MEMORY:
        return _MEMORY[key]
    spec = RoundSpec.of(ruleset, n)
    path = (cache_dir or default_cache_dir()) / f"optimal-{key}.npz"
    names = [f"{name}{q}" for q in range(n + 1) for name in _LEVEL_ARRAYS]
    arrays = _read(path, names, key, SOLVER_VERSION) if use_disk else None
    if arrays is not None:
        levels = [Level(**{name: arrays[f"{name}{q}"] for name in _LEVEL_ARRAYS}) for q in range(n + 1)]
    else:
        levels = solve(spec)
        if use_disk:
            flat = {f"{name}{q}": getattr(lv, name) for q, lv in enumerate(levels) for name in _LEVEL_ARRAYS}
            _write(path, flat, key, SOLVER_VERSION)
    _MEMORY[key] = Solved(spec, levels)
    return _MEMORY[key]


# ---- 2-player game tables ----------------------------------------------------------------------------
def game_key(ruleset: Ruleset, stacks: tuple[int, int]) -> str:
    """Hash naming the solved game tables of ``ruleset`` from ``stacks`` (canonical)."""
    return _hash(ruleset, {"stacks": stacks_key(ruleset, stacks), "version": GAME_SOLVER_VERSION})


def solved_game(
    ruleset: Ruleset | str,
    stacks: tuple[int, int] | None = None,
    cache_dir: Path | None = None,
    use_disk: bool = True,
) -> SolvedGame:
    """The game tables covering ``stacks`` (default: the starting stacks): memory, disk, or solved."""
    rules = load_ruleset(ruleset)
    st = check_stacks(rules, (rules.starting_stack,) * 2 if stacks is None else stacks)
    name = game_key(rules, st)
    if name in _MEMORY:
        return _MEMORY[name]
    key = stacks_key(rules, st)
    path = (cache_dir or default_cache_dir()) / f"optimal_game-{name}.npz"
    arrays = _read(path, _GAME_ARRAYS, name, GAME_SOLVER_VERSION) if use_disk else None
    spec = GameSpec.of(rules)
    pairs = Pairs.reachable(spec, key)
    if arrays is not None and arrays["value"].shape == (len(pairs),):
        solved = SolvedGame(spec, pairs, arrays["value"], arrays["policy_a"], arrays["policy_b"])
    else:
        solved = solve_game(rules, key)
        if use_disk:
            _write(path, {k: getattr(solved, k) for k in _GAME_ARRAYS}, name, GAME_SOLVER_VERSION)
    _MEMORY[name] = solved
    return solved
