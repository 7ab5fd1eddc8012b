"""The exact round best response at a table of known bots (any number of players, chip rulesets).

:class:`~zanzibar_env.agents.optimal.OptimalAgent` plays the subgame-perfect round: it assumes every other seat
plays it too. At a table of known bots that is not the best one can do: ``TableResponse(others)``
maximises its own expected round result (chips given away minus chips received, stack caps ignored,
as in :mod:`zanzibar_env.agents.solver`) against the actual policies of the bots sitting clockwise after it,
``others[0]`` in the next seat, ``others[1]`` in the one after, and so on.

How it is solved: the round is solved once per position ``p`` of the responder in the order of play
(``p = 0``: it rolls first); at position ``p`` the bot at position ``(p + 1 + i) % n`` is ``others[i]``,
and every bot's action probabilities are read on every decision state of its position (one batched
query per position, as :mod:`zanzibar_env.agents.exact` does for 2 players), then held fixed while the responder's
position is solved. So a bot is read as a function of its view; views carry the ruleset's starting
stack for every seat and the earlier hands as their lowest rank, its count and a highest rank of the
right payment class (the solver's public state). Bots that read more than that (stacks, exact
highest hand) are read at those stand-ins. Lives rulesets (where who plays next depends on who is
out) and ``final_hand: best`` are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.core.engine import View
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import MAX_PLAYERS, Ruleset, load_ruleset

from zanzibar_env.agents.base import BaseAgent
from zanzibar_env.agents.exact import action_probabilities
from zanzibar_env.agents.optimal import batch_states
from zanzibar_env.agents.registry import make_agent
from zanzibar_env.agents.solver import Level, RoundSpec, enumerate_levels, lookup, seat_values, solve
from zanzibar_env.agents.solver_turn import NUM_MULTISETS

_DICE = np.array(MULTISETS, np.int64)


def _rank_of_class(spec: RoundSpec) -> np.ndarray:
    """``rank[x]``: a hand rank whose payment class is ``x`` (``-1`` for ``x = no_top``: no hand yet)."""
    out = np.full(spec.no_top + 1, -1, np.int64)
    classes = spec.top_class(np.arange(spec.num_ranks))
    for rank in range(spec.num_ranks):  # the lowest rank of each class
        if out[classes[rank]] < 0:
            out[classes[rank]] = rank
    return out


def position_views(
    ruleset: Ruleset, spec: RoundSpec, level: Level, q: int
) -> tuple[ViewBatch, tuple[np.ndarray, ...]]:
    """Views of every decision at position ``q`` (state row ``s``, roll ``r``, multiset ``m``) and those
    indices."""
    lo, k, x, lim = spec.decode(level.keys)
    if q == 0:
        lim = np.full(len(level.keys), spec.max_rolls)
    s, r, m = np.meshgrid(
        np.arange(len(level.keys)), np.arange(1, spec.max_rolls), np.arange(NUM_MULTISETS), indexing="ij"
    )
    ok = (r < lim[s]) & (m != (spec.instant_m if spec.instant_m is not None else -1))
    s, r, m = s[ok], r[ok], m[ok]
    b, n = len(s), spec.n
    highest = (
        _rank_of_class(spec)[x[s]]
        if spec.kind == "highest_hand"
        else np.where(lo[s] < spec.num_ranks, lo[s], -1)
    )
    seats = np.zeros((b, MAX_PLAYERS), np.int64)
    seats[:, :n] = 1
    batch = ViewBatch(
        ruleset=ruleset, dice=_DICE[m], rolls_used=r, roll_limit=lim[s],
        is_first=np.full(b, int(q == 0)), players_after=np.full(b, n - 1 - q),
        lowest_rank=np.where(lo[s] < spec.num_ranks, lo[s], -1), lowest_count=k[s], highest_rank=highest,
        earlier_payments=np.where(spec.kind == "own_hand", x[s], 0),
        stacks=seats * ruleset.starting_stack, active=seats, num_players=np.full(b, n),
    )  # fmt: skip
    return batch, (s, r, m)


def fixed_policy(agent: Any, ruleset: Ruleset, spec: RoundSpec, level: Level, q: int) -> np.ndarray:
    """``float[S_q, max_rolls - 1, 56, 8]``: the agent's action probabilities at position ``q``."""
    batch, (s, r, m) = position_views(ruleset, spec, level, q)
    table = np.zeros((len(level.keys), max(spec.max_rolls - 1, 0), NUM_MULTISETS, 8))
    table[..., 7] = 1.0
    table[s, r - 1, m] = action_probabilities(agent, batch)
    return table


@dataclass
class TableSolve:
    """The responder's solved round at each of its positions, and the values that go with it."""

    spec: RoundSpec
    levels: list[list[Level]]  # levels[p]: the round solved with the responder at position p
    value: np.ndarray  # float[n]: the responder's expected round result at each position
    reference: np.ndarray  # float[n]: the same seat played by ``reference`` instead (nan without one)


def solve_table(ruleset: str | Ruleset, others: list[Any], reference: Any | None = None) -> TableSolve:
    """Solve the responder's round against ``others`` (clockwise after it) at every position; with
    ``reference`` (an agent), also that agent's value in the responder's seat."""
    rs = load_ruleset(ruleset) if not isinstance(ruleset, Ruleset) else ruleset
    if rs.stake != "chips":
        raise ValueError(f"TableResponse needs a chip ruleset, got stake {rs.stake!r}")
    if rs.final_hand != "last":
        raise ValueError(f"TableResponse supports final_hand 'last' only, got {rs.final_hand!r}")
    n = len(others) + 1
    spec = RoundSpec.of(rs, n)
    bots = [make_agent(a) if isinstance(a, str) else a for a in others]
    base = enumerate_levels(spec)
    per_pos: list[list[Level]] = []
    value, ref = np.zeros(n), np.full(n, np.nan)
    cache: dict[tuple[int, int], np.ndarray] = {}

    def policy_of(i: int, q: int, agent: Any) -> np.ndarray:
        if (i, q) not in cache:
            cache[(i, q)] = fixed_policy(agent, rs, spec, base[q], q)
        return cache[(i, q)]

    ref_agent = make_agent(reference) if isinstance(reference, str) else reference
    for p in range(n):
        fixed = {(p + 1 + i) % n: policy_of(i, (p + 1 + i) % n, bot) for i, bot in enumerate(bots)}
        levels = solve(spec, fixed)
        per_pos.append(levels)
        value[p] = seat_values(spec, levels)[p]
        if ref_agent is not None:
            fixed_ref = {**fixed, p: fixed_policy(ref_agent, rs, spec, base[p], p)}
            ref[p] = seat_values(spec, solve(spec, fixed_ref))[p]
    return TableSolve(spec, per_pos, value, ref)


class TableResponse(BaseAgent):
    """The exact round best response to the bots ``others`` sitting clockwise after it (see module doc).

    Args:
        others: agent names or objects, one per other seat, ``others[0]`` the next seat clockwise.
        ruleset: the chip ruleset it is solved for (``final_hand: last``); it must be the one played (views
            of another table size raise ``ValueError``, as do public states the round cannot reach).
    """

    name = "table_response"

    def __init__(
        self, others: list[Any], ruleset: str | Ruleset = "classic", seed: int | None = None
    ) -> None:
        self.others = list(others)
        self.ruleset = load_ruleset(ruleset) if not isinstance(ruleset, Ruleset) else ruleset
        self.solved = solve_table(self.ruleset, self.others)

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        spec = self.solved.spec
        if (np.asarray(batch.num_players) != spec.n).any():
            raise ValueError(f"TableResponse was solved for {spec.n} players")
        q, key = batch_states(spec, batch)
        out = np.empty(len(batch), np.int64)
        m = batch.dice_index
        for p in np.unique(q):
            sel = q == p
            lv = self.solved.levels[p][p]
            row = lookup(lv.keys, key[sel])  # ValueError for a state the round cannot reach
            out[sel] = lv.policy[row, batch.rolls_used[sel] - 1, m[sel]]
        return out

    def act(self, view: View) -> int:
        return int(self.act_batch(ViewBatch.from_views([view]))[0])
