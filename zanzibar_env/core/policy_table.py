"""A bot's policy as arrays: what array engines (the JAX env) play as an opponent without calling Python.

A bot object that can be played inside a compiled step offers ``policy_table(ruleset, num_players)``
returning a :class:`PolicyTable` (numpy only: no JAX needed to build one). Three kinds:

* ``"random"``: a uniform legal hold mask (all eight, or re-throw all / stop without holds);
* ``"features"``: ``actions[(lowest_rank + 1) * lo_stride + rolls_left * left_stride + multiset *
  ms_stride]``, the form of the table heuristics (``greedy``/``threshold`` read the dice only,
  ``escape`` also the lowest earlier hand and the rolls left, ``rolls_left = clip(roll_limit -
  rolls_used, 0, max_rolls)``);
* ``"dense"``: the exact solver's round policy (``optimal``), the dense look-up of
  :mod:`zanzibar_env.agents.exact.lookup` (``Dense``) for each number of active players, joined: for
  ``a`` active players, ``key = ((lo * 9 + lowest_count) * xs[a] + x) * 8 + roll_limit`` (``lo`` the
  lowest earlier rank, ``num_ranks`` when none; ``x`` the class of the highest earlier hand,
  ``x_of_rank[highest_rank + 1]``, under ``x_kind == "top"``, the earlier own-hand payments under
  ``"own"``, else 0), ``row = rows[row_start[a] + position * num_keys[a] + key]`` (``-1``: unreachable)
  and the action ``policy[(policy_start[a] + row) * stride + (rolls_used - 1) * per_roll + multiset]``
  (plus ``max(turn_best_rank, rank_of_multiset) * 56`` under ``final_hand: best``).

The tables are the bots' own (each bot builds its table once per ruleset and acts by reading it), so
an array engine that reads them plays the very same policy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

POLICY_KINDS = ("random", "features", "dense")


@dataclass(frozen=True)
class PolicyTable:
    """One bot's policy as arrays (see the module docstring for each kind's index)."""

    kind: str  # "random", "features" or "dense"
    name: str = ""  # the bot's name (for messages)
    actions: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int8))  # "features": flat actions
    lo_stride: int = 0  # "features": stride of lowest_rank + 1
    left_stride: int = 0  # "features": stride of the rolls left
    ms_stride: int = 0  # "features": stride of the multiset index
    # ---- "dense" (index by the number of active players a, 0..8; unused counts hold 0) ----
    rows: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int32))  # joined Dense.row
    row_start: np.ndarray = field(default_factory=lambda: np.zeros(9, np.int64))  # first entry per a
    num_keys: np.ndarray = field(default_factory=lambda: np.zeros(9, np.int64))  # Dense.num_keys per a
    xs: np.ndarray = field(default_factory=lambda: np.zeros(9, np.int64))  # RoundSpec.xs per a
    policy_start: np.ndarray = field(default_factory=lambda: np.zeros(9, np.int64))  # first policy row
    policy: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int8))  # joined Dense.policy
    x_of_rank: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))  # [highest rank + 1]
    x_kind: str = "none"  # "top", "own" or "none"
    stride: int = 0  # Dense.stride (policy entries per row)
    per_roll: int = 0  # Dense.per_roll
    best: bool = False  # indexed by the turn's best rank (final_hand: best)
    num_ranks: int = 0  # ranks of the ruleset (lo when no earlier hand)
    made_for: dict[str, Any] | None = None  # the ruleset it was built on (zanzibar_env.core.made_for)

    def __post_init__(self) -> None:
        if self.kind not in POLICY_KINDS:
            raise ValueError(f"PolicyTable kind must be one of {list(POLICY_KINDS)}, got {self.kind!r}")
