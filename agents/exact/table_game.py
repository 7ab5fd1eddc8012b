"""Playing for the game at a table of known bots, exactly evaluated (chip rulesets paying by the highest
hand, roll-off ties, 2-4 players).

At a table whose other seats are known bots that do not read stacks, one seat's game is a Markov
decision process over the stack states (every seat's stack, who rolls first). This module

1. gives each round's outcome law at each starting seat, with `optimal` in the seat
   (:func:`zanzibar_env.agents.exact.table_round.round_law`) or with the seat playing its best turns for any
   value of the outcome classes (:func:`zanzibar_env.agents.exact.table_round.outcome_law`);
2. evaluates a policy of the seat on the whole game exactly: every seat's win probability from every
   stack state (:meth:`TableGame.evaluate`; a shared win counts ``1/k``);
3. improves it by value iteration over a *family* of round policies: `optimal` and ``K`` best turn plays,
   one for each of ``K`` representative values of the outcome classes (:func:`candidate_utilities`),
   the seat picking one per state (:meth:`TableGame.improve`). The family's value is exact and a lower
   bound on the best response's; :func:`~zanzibar_env.agents.exact.family_response` plays greedily on it
   (one more step of policy improvement, not evaluated exactly).

The objective is the seat's own win probability, or (``rival=j``) its win probability minus seat ``j``'s:
playing to finish ahead of one opponent rather than to win.

Entry points: :func:`solve_family` (all of the above for one table), :func:`seat_wins` (every seat's
win probability from given stacks), :func:`chip_response_wins` (the same with the seat playing the
round best response for chips instead: exploiting the bots round by round), :func:`bellman_gap` (how far
the family is from the best response, one round at a time); the agent is
:func:`~zanzibar_env.agents.exact.table_game_response`; ``python -m
experiments.table_game_probe`` prints them. At 4 players and 20 chips a solve takes about 1-2 minutes and
1.5 GB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.table_round import (
    Response,
    check_ruleset,
    num_classes,
    outcome_law,
    response_law,
    response_turns,
    round_law,
)
from zanzibar_env.agents.exact.turn import TurnProblem, backward
from zanzibar_env.core.engine import View
from zanzibar_env.core.kernel import chips_of_category
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import Ruleset
from zanzibar_env.core.settlement import chip_amounts, game_winners, pay_chips


def _states(n: int, total: int) -> tuple[np.ndarray, np.ndarray]:
    grids = np.meshgrid(*[np.arange(1, total + 1)] * (n - 1), indexing="ij")
    first = np.stack([g.ravel() for g in grids], 1)
    last = total - first.sum(1)
    states = np.concatenate([first, last[:, None]], 1)[last >= 1]
    index = np.full((total + 1,) * (n - 1), -1, np.int64)
    index[tuple(states[:, : n - 1].T)] = np.arange(len(states))
    return states, index


@dataclass
class TableGame:
    """The stack states of an ``n``-seat table of ``total`` chips (relative to the seat studied) and what
    each round outcome class leads to."""

    ruleset: Ruleset
    n: int
    total: int
    states: np.ndarray  # int[S, n]: stacks, seat 0 first, then clockwise; every stack >= 1
    index: np.ndarray  # int[(total + 1,) * (n - 1)]: state id of the first n - 1 stacks (-1: none)
    nxt: np.ndarray  # int[S, classes]: the next state (-1: the game ends)
    wins: np.ndarray  # float[n, S, classes]: each seat's share of the win when the game ends

    @classmethod
    def build(cls, ruleset: Ruleset, n: int, total: int) -> TableGame:
        if total < n:
            raise ValueError(f"{n} players need at least {n} chips on the table, got {total}")
        states, index = _states(n, total)
        chips, c = chips_of_category(ruleset), num_classes(n)
        nxt, wins = np.full((len(states), c), -1, np.int64), np.zeros((n, len(states), c))
        before = [states[:, i] for i in range(n)]
        for loser in range(n):
            for cat in range(4):  # the kernel's settlement: payments capped by the payer's chips
                amounts = chip_amounts(ruleset, chips, [cat] * n, cat)
                after = np.stack(pay_chips(before, [i == loser for i in range(n)], amounts), 1)
                won, over = game_winners(ruleset, before, list(after.T), [True] * n, 1)
                ids = np.where(over, -1, index[tuple(np.maximum(after[:, : n - 1], 0).T)])
                share = np.stack(won, 1) / np.maximum(np.stack(won, 1).sum(1, keepdims=True), 1)
                cols = slice(loser * 4 * n + cat * n, loser * 4 * n + cat * n + n)  # every top seat
                nxt[:, cols] = ids[:, None]
                wins[:, :, cols] = share.T[..., None]
        return cls(ruleset, n, total, states, index, nxt, wins)

    def lookup(self, stacks: np.ndarray) -> np.ndarray:
        """State ids of ``stacks[..., n]`` (``-1`` if not a state of this table)."""
        st = np.asarray(stacks)
        if st.shape[-1] != self.n:
            return np.full(st.shape[:-1], -1)
        ok = (st.sum(-1) == self.total) & (st >= 1).all(-1)
        ids = self.index[tuple(np.moveaxis(np.clip(st[..., : self.n - 1], 0, self.total), -1, 0))]
        return np.where(ok, ids, -1)

    def seat_wins(self, laws: np.ndarray, stacks: list[int] | None = None) -> np.ndarray:
        """``float[n]``: every seat's exact win probability from ``stacks`` (default: equal), the mean over
        the first roller, when seat 0's rounds follow ``laws`` (as :meth:`evaluate` takes them)."""
        sid = int(self.lookup(np.array([self.total // self.n] * self.n if stacks is None else stacks)))
        if sid < 0:
            raise ValueError(f"stacks {stacks} are not a state of this {self.total}-chip table")
        return np.array([self.evaluate(laws, self.wins[j])[sid].mean() for j in range(self.n)])

    def reward(self, rival: int | None = None) -> np.ndarray:
        """``float[S, classes]``: seat 0's objective when a class ends the game (its win share, minus the
        rival's)."""
        return self.wins[0] if rival is None else self.wins[0] - self.wins[rival]

    def after(self, value: np.ndarray, reward: np.ndarray, sid: np.ndarray | slice) -> np.ndarray:
        """``float[len(sid), classes]``: the value after each class from states ``sid`` (next state's value
        for its next first roller, the class's top seat; ``reward`` if the game ends)."""
        top = np.arange(self.nxt.shape[1]) % self.n
        nx = self.nxt[sid]
        return np.where(nx >= 0, value[np.maximum(nx, 0), top], reward[sid])

    def evaluate(self, laws: np.ndarray, reward: np.ndarray, tol: float = 1e-10) -> np.ndarray:
        """``float[S, n]`` by state and first roller: the expected ``reward`` at the game's end when rounds
        started by seat ``s`` end in class ``c`` with probability ``laws[s, c]`` (or, by state,
        ``laws[x, s, c]``)."""
        value = np.zeros((len(self.states), self.n))
        for _ in range(_MAX_SWEEPS):
            a = self.after(value, reward, slice(None))
            new = a @ laws.T if laws.ndim == 2 else np.einsum("xc,xsc->xs", a, laws)
            if float(np.abs(new - value).max()) < tol:
                return new
            value = new
        raise RuntimeError(f"policy evaluation did not reach {tol} in {_MAX_SWEEPS} sweeps")

    def improve(
        self, value: np.ndarray, laws: np.ndarray, reward: np.ndarray, tol: float = 1e-10
    ) -> tuple[np.ndarray, np.ndarray]:
        """Value iteration from ``value`` when seat 0 picks, in each state, one of the round policies of
        outcome laws ``laws[s, k, c]``: the family's best value and the pick ``int[S, n]``."""
        for _ in range(_MAX_SWEEPS):
            q = np.einsum("xc,skc->xsk", self.after(value, reward, slice(None)), laws)
            new, pick = q.max(2), q.argmax(2)
            if float(np.abs(new - value).max()) < tol:
                return new, pick
            value = new
        raise RuntimeError(f"value iteration did not reach {tol} in {_MAX_SWEEPS} sweeps")


_MAX_SWEEPS = 100_000


def _kmeans(x: np.ndarray, k: int, rng: np.random.Generator, iters: int = 25) -> np.ndarray:
    centres = x[rng.choice(len(x), size=min(k, len(x)), replace=False)]
    for _ in range(iters):
        near = ((x**2).sum(1)[:, None] - 2 * x @ centres.T + (centres**2).sum(1)[None]).argmin(1)
        for j in range(len(centres)):
            if (near == j).any():
                centres[j] = x[near == j].mean(0)
    return centres


def candidate_utilities(class_values: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """``float[k, classes]``: ``k`` representative rows of ``class_values`` (k-means over the rows
    standardised: a turn's best play does not change under a positive affine map of the values)."""
    u = class_values - class_values.mean(1, keepdims=True)
    u = u / (u.std(1, keepdims=True) + 1e-12)
    return _kmeans(u, k, np.random.default_rng(seed))


@dataclass
class FamilySolve:
    """A table solved for seat 0: `optimal`'s laws and value, the family's laws, value and picks."""

    game: TableGame
    reward: np.ndarray
    optimal_laws: np.ndarray  # [n, classes]
    optimal_value: np.ndarray  # [S, n]
    laws: np.ndarray  # [n, 1 + K, classes]; policy 0 is `optimal`
    value: np.ndarray  # [S, n]
    pick: np.ndarray  # [S, n]
    responses: list[Response]

    def picked_laws(self) -> np.ndarray:
        """``float[S, n, classes]``: the outcome law of the policy picked in each state."""
        return self.laws[np.arange(self.game.n)[None, :], self.pick]


def solve_family(
    ruleset: Ruleset,
    others: list[Any],
    total: int | None = None,
    family: int = 16,
    rival: int | None = None,
    tol: float = 1e-10,
    sample: int = 20_000,
    seed: int = 0,
    rounds: int = 1,
) -> FamilySolve:
    """Solve seat 0's game against ``others`` (relative seats 1..n-1) within `optimal` and ``family``
    round policies built from ``sample`` random states' class values under `optimal`; each further
    round adds ``family`` policies built from the class values of the family's value so far."""
    n = len(others) + 1
    check_ruleset(ruleset, n)
    if rival is not None and not 1 <= rival < n:
        raise ValueError(f"rival must be another seat 1-{n - 1}, got {rival!r}")
    game = TableGame.build(ruleset, n, n * ruleset.starting_stack if total is None else total)
    reward = game.reward(rival)
    bots = [make_agent(a) if isinstance(a, str) else a for a in others]
    opt_laws = np.stack([round_law(ruleset, [make_agent("optimal"), *bots], s) for s in range(n)])
    opt_value = game.evaluate(opt_laws, reward, tol)
    responses = [response_law(ruleset, bots, s) for s in range(n)]
    laws, value = opt_laws[:, None], opt_value
    rng = np.random.default_rng(seed)
    for _ in range(rounds if family else 0):
        sid = rng.choice(len(game.states), size=min(sample, len(game.states)), replace=False)
        us = candidate_utilities(game.after(value, reward, sid), family, int(rng.integers(2**31)))
        fam = np.array([[outcome_law(ruleset, r, u) for u in us] for r in responses])
        laws = np.concatenate([laws, fam], 1)
        value, _ = game.improve(value, laws, reward, tol)
    value, pick = game.improve(value, laws, reward, tol)
    return FamilySolve(game, reward, opt_laws, opt_value, laws, value, pick, responses)


def bellman_gap(solve: FamilySolve, sid: np.ndarray) -> np.ndarray:
    """``float[len(sid), n]``: how much the best turn play for each state's class values (any round
    policy, not only the family's) gains in one round over the family's value, by state and first
    roller: zero where the family already holds the best response's choice."""
    g, rules = solve.game, solve.game.ruleset
    u = g.after(solve.value, solve.reward, sid)
    out = np.zeros((len(sid), g.n))
    for i in range(len(sid)):
        for s, resp in enumerate(solve.responses):
            out[i, s] = outcome_law(rules, resp, u[i]) @ u[i] - solve.value[sid[i], s]
    return out


def chip_values(ruleset: Ruleset, n: int) -> np.ndarray:
    """``float[classes]``: seat 0's round result in chips by outcome class (chips given away minus
    received, stack caps ignored, as :mod:`zanzibar_env.agents.exact.round` counts it)."""
    chips = chips_of_category(ruleset).astype(float)
    cls = np.arange(num_classes(n))
    loser, cat = cls // (4 * n), (cls // n) % 4
    return np.where(loser == 0, -(n - 1) * chips[cat], chips[cat])


def chip_response_laws(solve: FamilySolve) -> np.ndarray:
    """``float[n, classes]``: the round's outcome law by first roller with seat 0 playing the round best
    response for chips (:func:`chip_values`) to the bots."""
    g = solve.game
    u = chip_values(g.ruleset, g.n)
    return np.stack([outcome_law(g.ruleset, r, u) for r in solve.responses])


def chip_response_wins(solve: FamilySolve, stacks: list[int] | None = None) -> np.ndarray:
    """``float[n]``: every seat's exact win probability (as :func:`seat_wins`) with seat 0 playing the
    round best response *for chips* to the bots at every state (:mod:`zanzibar_env.agents.exact.table`'s objective):
    what exploiting the bots round by round gives, without playing for the game."""
    g = solve.game
    laws = chip_response_laws(solve)
    return g.seat_wins(laws, stacks)


def seat_wins(solve: FamilySolve, stacks: list[int] | None = None, family: bool = True) -> np.ndarray:
    """``float[n]``: every seat's exact win probability from ``stacks`` (default: equal), the mean over
    the first roller, with seat 0 playing the family's picks (``family=False``: `optimal`)."""
    g = solve.game
    laws = solve.picked_laws() if family else solve.optimal_laws
    return g.seat_wins(laws, stacks)


class FamilyPolicy:
    """The turn a seat plays for the game at the table of :func:`solve_family`: greedy on the family's value
    (one more step of policy improvement, not evaluated exactly). Read by
    :func:`zanzibar_env.agents.exact.best_response.table_game_response`.

    Views of another table size, of stacks that are not a state of the table, or of rounds the bots
    cannot produce raise ``ValueError``.
    """

    def __init__(self, solved: FamilySolve) -> None:
        self.solved, self.ruleset, self.n = solved, solved.game.ruleset, solved.game.n
        self._ctx_ids = [{tuple(c): i for i, c in enumerate(r.ctx.tolist())} for r in solved.responses]

    def turn(self, view: View) -> TurnProblem:
        """The turn of ``view`` as an optimal-stopping problem on the class values of its stacks."""
        game, solved = self.solved.game, self.solved
        if view.num_players != self.n:
            raise ValueError(
                f"the table game response was built for {self.n} players, got {view.num_players}"
            )
        sid = int(game.lookup(np.array(view.stacks)))
        if sid < 0 or not all(view.active):
            raise ValueError(f"stacks {list(view.stacks)} are not a state of this {game.total}-chip table")
        p = self.n - 1 - view.players_after
        start = (self.n - p) % self.n
        u = game.after(solved.value, solved.reward, np.array([sid]))[0]
        resp = solved.responses[start]
        if p == 0:
            return response_turns(self.ruleset, resp, u)
        lo = -1 if view.lowest is None else view.lowest.rank
        hi = -1 if view.highest is None else view.highest.rank
        cid = self._ctx_ids[start].get((lo, view.lowest_count, hi, view.roll_limit))
        if cid is None:
            raise ValueError("the table game response: the bots it was built for cannot produce this round")
        return response_turns(self.ruleset, resp, u, np.array([cid]))

    def action(self, view: View) -> int:
        """The greedy action for one view."""
        _, policy = backward(self.turn(view))
        m = int(ViewBatch.from_views([view]).dice_index[0])
        return int(policy[0, view.rolls_used - 1, m])

    def actions(self, batch: ViewBatch) -> np.ndarray:
        """No batched policy: each view's turn is solved when it is asked (evaluation falls back to views)."""
        raise NotImplementedError("the table game response has no batched policy")
