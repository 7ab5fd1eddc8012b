"""A 2-player game policy as a table over the information states, played with numpy: ``game_table:PATH``.

The tabular game learner (``python -m train.jax_game``) keeps one row of action values per information
state of the 2-player game and writes the greedy action of every row to ``policy.npz``
(:func:`save_table`). An information state is what the acting seat observes that matters under the
rulesets this covers (2 players, chips, ``final_hand: last``, the first roller setting the limit):

* rolling first: own stack ``x``, rolls used ``u`` (1 .. max_rolls - 1) and the dice (multiset ``m``);
* rolling second: own stack, the first roller's hand rank ``h``, the roll limit ``l``, ``u`` and ``m``.

:class:`GameIndex` maps observations (``float32[..., 33]``, :mod:`zanzibar_env.core.observation`) to
row numbers with numpy or ``jax.numpy`` alike, so the learner under JAX and this agent under numpy read
the same rows from the same floats. Row layout (``S`` = stacks 0 .. 2 * starting stack, ``U`` =
max_rolls - 1 decision rolls, 56 multisets, ``R`` ranks, ``C`` = U * (U + 1) / 2 pairs ``(l, u)`` with a
decision, ``1 <= u < l <= max_rolls``, numbered ``c = (l - 1) * (l - 2) / 2 + u - 1``)::

    first roller:   (x * U + u - 1) * 56 + m                          [S * U * 56 rows]
    second roller:  first_rows + ((x * R + h) * C + c) * 56 + m       [S * R * C * 56 rows]

:class:`GameTableAgent` plays the stored action of a view's row (the table is the whole policy: exact
evaluation, :mod:`zanzibar_env.agents.exact`, reads it in one batched query).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.agents.policy import PolicyAgent
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.observation import OBS_LAYOUT
from zanzibar_env.core.rules import Ruleset, load_ruleset
from zanzibar_env.core.safe_io import atomic_write_bytes, is_file

FORMAT = "zanzibar-game-table-policy"
VERSION = 1
_NM = len(MULTISETS)
#: multiset index of sorted faces (f0, f1, f2) at code (f0 - 1) * 36 + (f1 - 1) * 6 + f2 - 1
_MS_OF_CODE = np.zeros(216, np.int32)
for _i, (_a, _b, _c) in enumerate(MULTISETS):
    _MS_OF_CODE[(_a - 1) * 36 + (_b - 1) * 6 + _c - 1] = _i
_SLOT = {k: v[0] for k, v in OBS_LAYOUT.items()}


def check_ruleset(rules: Ruleset) -> None:
    """``ValueError`` unless the table's information states cover ``rules`` (see the module docstring)."""
    bad = {
        "stake": (rules.stake, "chips"),
        "final_hand": (rules.final_hand, "last"),
        "first_roller_sets_limit": (rules.first_roller_sets_limit, True),
        "instant_zanzibar": (rules.instant_zanzibar, "off"),
    }
    for key, (got, want) in bad.items():
        if got != want:
            raise ValueError(f"the game table covers rulesets with {key}={want!r}, not {got!r}")
    if rules.max_rolls < 2:
        raise ValueError(f"the game table needs max_rolls >= 2 (a decision to make), got {rules.max_rolls}")


class GameIndex:
    """Row numbers of 2-player game information states for ``ruleset`` (module docstring)."""

    def __init__(self, ruleset: str | Ruleset) -> None:
        rules = load_ruleset(ruleset)
        check_ruleset(rules)
        self.rules = rules
        self.mr, self.nr = rules.max_rolls, rules.table.num_ranks
        self.scale, self.top = rules.stack_scale, 2 * rules.starting_stack
        self.stacks, self.u = self.top + 1, self.mr - 1
        self.pairs = self.u * (self.u + 1) // 2
        self.first_rows = self.stacks * self.u * _NM
        self.num_rows = self.first_rows + self.stacks * self.nr * self.pairs * _NM

    def row_stacks(self) -> np.ndarray:
        """``int32[num_rows]``: the own stack of every row."""
        r = np.arange(self.num_rows)
        first = r // (self.u * _NM)
        second = (r - self.first_rows) // (self.nr * self.pairs * _NM)
        return np.where(r < self.first_rows, first, second).astype(np.int32)

    def own_stack(self, obs: Any, xp: Any = np) -> Any:
        """``int32[...]``: the acting seat's stack."""
        return xp.clip(xp.round(obs[..., _SLOT["stacks"]] * self.scale).astype(xp.int32), 0, self.top)

    def rows(self, obs: Any, xp: Any = np) -> Any:
        """``int32[...]``: the row of each observation ``float32[..., 33]`` (``xp``: numpy or jax.numpy)."""
        i32 = xp.int32

        def num(slot: int, scale: float) -> Any:
            return xp.round(obs[..., slot] * scale).astype(i32)

        f = [num(_SLOT["dice"] + j, 6.0) for j in range(3)]
        m = xp.asarray(_MS_OF_CODE)[xp.clip((f[0] - 1) * 36 + (f[1] - 1) * 6 + f[2] - 1, 0, 215)]
        u = xp.clip(num(_SLOT["rolls_used"], self.mr), 1, self.u)
        lim = xp.clip(num(_SLOT["roll_limit"], self.mr), u + 1, self.mr)
        hi = xp.clip(num(_SLOT["highest_rank"], max(self.nr - 1, 1)), 0, self.nr - 1)
        x = self.own_stack(obs, xp)
        first = obs[..., _SLOT["is_first"]] > 0.5
        a = (x * self.u + u - 1) * _NM + m
        c = (lim - 1) * (lim - 2) // 2 + u - 1
        b = self.first_rows + ((x * self.nr + hi) * self.pairs + c) * _NM + m
        return xp.where(first, a, b).astype(i32)


def save_table(path: str | Path, actions: np.ndarray, meta: dict[str, Any]) -> None:
    """Write the greedy action of every row (``int8[num_rows]``) and ``meta`` (``ruleset`` at least)."""
    buf = io.BytesIO()
    payload = {"format": FORMAT, "version": VERSION, **meta}
    np.savez_compressed(buf, actions=np.asarray(actions, np.int8), meta=np.array(json.dumps(payload)))
    atomic_write_bytes(path, buf.getvalue())


def _bad(path: Any, why: str) -> ValueError:
    return ValueError(f"{str(path)[:200]!r} is not a game table policy file ({why})")


def load_table(path: str | Path) -> tuple[np.ndarray, dict[str, Any]]:
    """``(actions, meta)`` from a file written by :func:`save_table`; ``ValueError`` otherwise."""
    if not is_file(path):
        raise ValueError(f"game table policy file {str(path)[:200]!r} does not exist")
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
        meta = json.loads(str(data["meta"]))
    except (OSError, ValueError, EOFError, KeyError) as e:
        raise _bad(path, f"not a readable .npz with meta: {type(e).__name__}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise _bad(path, f"format {FORMAT!r} version {VERSION} expected")
    try:
        index = GameIndex(meta["ruleset"])
    except (KeyError, ValueError, TypeError) as e:
        raise _bad(path, f"ruleset: {e}") from None
    actions = data.get("actions")
    if actions is None or actions.dtype != np.int8 or actions.shape != (index.num_rows,):
        raise _bad(path, f"int8 actions for the {index.num_rows} rows of {meta['ruleset']!r} expected")
    if actions.min() < 0 or actions.max() > 7:
        raise _bad(path, "actions outside the hold masks 0-7")
    return actions, meta


class GameTableAgent(PolicyAgent):
    """The policy in ``path`` (a ``policy.npz`` of ``python -m train.jax_game``) as an agent; ``table``:
    ``(actions, meta)`` as :func:`load_table` returns them, instead of a file (the learner's evaluations)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        table: tuple[np.ndarray, dict[str, Any]] | None = None,
        seed: int | None = None,
    ) -> None:
        if (path is None) == (table is None):
            raise ValueError("GameTableAgent takes a policy file path or a table, one of the two")
        self.path = None if path is None else str(path)
        if table is None:
            assert path is not None
            table = load_table(path)
        self.actions, self.meta = table
        self.index = GameIndex(self.meta["ruleset"])
        if self.actions.shape != (self.index.num_rows,):
            raise ValueError(f"a game table needs {self.index.num_rows} actions, got {self.actions.shape}")
        super().__init__(self._policy, output="actions", name=f"game_table:{path}", seed=seed)

    def _policy(self, obs: np.ndarray) -> np.ndarray:
        return self.actions[self.index.rows(np.asarray(obs, np.float32))].astype(np.int64)

    def __reduce__(self) -> tuple[Any, ...]:
        if self.path is None:
            return (_from_table, (self.actions, self.meta))
        return (GameTableAgent, (self.path,))


def _from_table(actions: np.ndarray, meta: dict[str, Any]) -> GameTableAgent:
    return GameTableAgent(table=(actions, meta))
