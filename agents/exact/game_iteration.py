"""Exact game-optimal play for 2 players by strategy iteration: the policy that maximises the probability
of winning the game.

Objective
---------
A state is the pair of stacks at the start of a round, the first roller's first (:mod:`zanzibar_env.agents.exact.game`).
Its value ``U(x, y)`` is the probability that the first roller wins the game (a shared win counts one
half, so the game is zero-sum). Each round is solved with the next states' values as payoffs, the first
roller maximising ``U``, the other minimising it, by backward induction over rolls (a subgame-perfect
equilibrium of the whole game). Ties between actions are broken as in :mod:`zanzibar_env.agents.exact.turn` (within
``TIE_EPS``: stop first, then the lowest mask), so the policy is a function of the view. Rounds can
return to earlier stacks (chips flow back and forth), so the values are a fixed point, found by
strategy iteration: solve every round greedily for the current values, evaluate that pair of policies
exactly by one linear solve over all states, repeat until the policies no longer change; the Bellman
residual of the result is checked to ``1e-12``. ``max_rounds`` truncation is ignored (values are for
the untruncated game).

Tables are solved once per (ruleset options, stack total for chips or largest stack for lives):
:func:`zanzibar_env.agents.exact.cache.solved_game` keeps them in memory and on disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from zanzibar_env.agents.exact.game import GameSpec, Pairs, RoundSolution, Terms, round_terms, solve_rounds
from zanzibar_env.core.kernel import STOP, legal_mask, transition_probs
from zanzibar_env.core.rules import Ruleset, load_ruleset

#: Bump when the tables' meaning or layout changes (invalidates disk caches).
GAME_SOLVER_VERSION = 1
TOL = 1e-12
#: Residual below which a period-2 cycle of policies also ends strategy iteration (see :func:`iterate`).
CYCLE_TOL = 1e-9
MAX_ITERATIONS = 200
#: Largest number of stack states solved (memory grows about 0.8 MB per state in classic).
MAX_STATES = 1000


@dataclass
class GameSystem:
    """The states of one solve in ``classes`` copies (one per seat rolling first when seats differ)."""

    spec: GameSpec
    pairs: Pairs
    terms: Terms
    classes: int  # 1: both seats play the same policy; 2: state values depend on who rolls first

    def end_values(self, u: np.ndarray, f: int) -> np.ndarray:
        """``float[S, R, R]``: value to the first roller (of class ``f``) of each round end, given ``u``."""
        t, s = self.terms, len(self.pairs)
        nxt = np.where(t.swap, (1 - f) % self.classes, f) * s + t.pair
        return (t.w * (t.c + t.k * u[nxt])).sum(-1)

    def evaluate(self, sols: list[RoundSolution]) -> np.ndarray:
        """Exact values of the states when every class plays the policies behind ``sols`` (a linear solve)."""
        t, s = self.terms, len(self.pairs)
        n = s * self.classes
        mat, const = np.zeros((n, n)), np.zeros(n)
        for f, sol in enumerate(sols):
            pw = sol.joint[..., None] * t.w  # [S, R, R, 2]
            rows = np.broadcast_to(np.arange(s)[:, None, None, None] + f * s, pw.shape)
            nxt = np.where(t.swap, (1 - f) % self.classes, f) * s + t.pair
            const += np.bincount(rows.ravel(), (pw * t.c).ravel(), minlength=n)
            mat += np.bincount((rows * n + nxt).ravel(), (pw * t.k).ravel(), minlength=n * n).reshape(n, n)
        return np.linalg.solve(np.eye(n) - mat, const)


def make_system(ruleset: Ruleset, stacks: Sequence[int], classes: int = 1) -> GameSystem:
    """The states reachable from ``stacks`` with their round outcomes (``ValueError`` on bad stacks)."""
    spec = GameSpec.of(ruleset)
    a, b = check_stacks(ruleset, stacks)
    states = game_states(ruleset, (a, b))
    if states > MAX_STATES:
        raise ValueError(f"stacks {a}-{b} give {states} stack states, more than the solver's {MAX_STATES}")
    pairs = Pairs.reachable(spec, (a, b))
    return GameSystem(spec, pairs, round_terms(spec, pairs), classes)


def game_states(ruleset: Ruleset, stacks: Any) -> int:
    """How many stack states the 2-player game from ``stacks`` has (what an exact game analysis solves:
    its time and memory grow with it): ``a + b - 1`` in chips rulesets, ``max(a, b) ** 2`` in lives ones."""
    a, b = check_stacks(ruleset, stacks)
    return a + b - 1 if GameSpec.of(ruleset).chips else max(a, b) ** 2


#: Games of more stack states are refused unless ``max_states`` (``--max-states``) allows them (about a
#: minute here): the API's game functions and the commands share this limit and estimate.
DEFAULT_MAX_STATES = 200
#: Seconds and MiB per stack state of an exact game analysis (greedy, classic): what the refusal's
#: estimate uses (how they were measured: docs/benchmarks.md#exact-game-analysis).
SECONDS_PER_STATE = 0.9
MIB_PER_STATE = 5.0


def check_game_size(ruleset: Ruleset, stacks: Any, max_states: Any, option: str = "max_states=") -> int:
    """The game's stack states, or ``ValueError`` with the time and memory estimate when they are more
    than ``max_states`` (``option`` names the knob in the message: ``max_states=`` or ``--max-states ``)."""
    if isinstance(max_states, bool) or not isinstance(max_states, (int, np.integer)) or max_states < 1:
        raise ValueError(f"max_states must be a positive integer, got {max_states!r}")
    states = game_states(ruleset, stacks)
    if states > max_states:
        raise ValueError(
            f"the game from stacks {tuple(stacks)} has {states} stack states: an exact analysis would take "
            f"about {states * SECONDS_PER_STATE:.0f} s and {states * MIB_PER_STATE / 1024:.1f} GiB (measured: "
            f"~{SECONDS_PER_STATE} s and ~{MIB_PER_STATE} MiB per state), over {option.strip('= ')} "
            f"{max_states}; pass {option}{states} to run it"
            + (f" (the solver refuses more than {MAX_STATES})" if states > MAX_STATES else "")
        )
    return states


def check_stacks(ruleset: Ruleset, stacks: Any) -> tuple[int, int]:
    """``stacks`` as two positive ints (``ValueError`` otherwise)."""
    vals = tuple(stacks) if isinstance(stacks, (tuple, list)) else ()
    if len(vals) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in vals):
        raise ValueError(f"stacks must be two integers (2 players), got {stacks!r}")
    if min(vals) < 1:
        raise ValueError(f"stacks must be positive (a stack at 0 has already ended the game), got {stacks!r}")
    return int(vals[0]), int(vals[1])


def initial_values(system: GameSystem) -> np.ndarray:
    """A starting guess: the share of chips held by the other player (chips) or of own lives (lives)."""
    x, y = system.pairs.x.astype(float), system.pairs.y.astype(float)
    u = y / (x + y) if system.spec.chips else x / (x + y)
    return np.tile(u, system.classes)


def iterate(
    system: GameSystem,
    fixed_a: list[np.ndarray | None],
    fixed_b: list[np.ndarray | None],
    u0: np.ndarray | None = None,
) -> tuple[np.ndarray, list[RoundSolution]]:
    """Strategy iteration to the fixed point; per class ``f``, ``fixed_a[f]``/``fixed_b[f]`` are fixed
    policies of the first/second roller (``None``: that player optimises). Returns values and policies.

    Against some fixed policies (long games, so a less accurate linear solve) the greedy policy can flip
    between two policies whose values differ by rounding only, at actions within ``TIE_EPS`` of a tie;
    such a period-2 cycle with a Bellman residual below :data:`CYCLE_TOL` ends the iteration with the
    evaluated policy (its values are a fixed point to within that residual)."""
    u = initial_values(system) if u0 is None else u0
    prev: list[RoundSolution] | None = None
    before: list[RoundSolution] | None = None
    for _ in range(MAX_ITERATIONS):
        sols = [
            solve_rounds(system.spec, system.end_values(u, f), fixed_a[f], fixed_b[f])
            for f in range(system.classes)
        ]
        residual = np.abs(np.concatenate([sol.value for sol in sols]) - u).max()
        if prev is not None and _same_policies(prev, sols) and residual <= TOL:
            return u, sols
        if prev is not None and before is not None and _same_policies(before, sols) and residual <= CYCLE_TOL:
            return u, prev  # u holds the values of prev's policies
        u, before, prev = system.evaluate(sols), prev, sols
    raise RuntimeError(f"strategy iteration did not converge in {MAX_ITERATIONS} iterations")


def _same_policies(a: list[RoundSolution], b: list[RoundSolution]) -> bool:
    return all(
        np.array_equal(x.policy_a, y.policy_a) and np.array_equal(x.policy_b, y.policy_b)
        for x, y in zip(a, b, strict=True)
    )


@dataclass
class SolvedGame:
    """Game-optimal tables for one ruleset and one set of states."""

    spec: GameSpec
    pairs: Pairs
    value: np.ndarray  # float[S] probability that the first roller wins
    policy_a: np.ndarray  # int8[S, max_rolls - 1, 56]
    policy_b: np.ndarray  # int8[S, R, num_limits, max_rolls - 1, 56]

    def win_probability(self, first: int, second: int) -> float:
        """Probability that the player rolling first with ``first`` chips (lives) wins the game."""
        return float(self.value[self.pairs.row(first, second)])


def state_round(solved: SolvedGame, first: int, second: int) -> RoundSolution:
    """The round at stacks ``(first, second)`` solved with the game's values (turn values included)."""
    spec = solved.spec
    pairs = Pairs.reachable(spec, (int(solved.pairs.x[0]), int(solved.pairs.y[0])))
    row = pairs.row(first, second)
    one = Pairs(pairs.x[row : row + 1], pairs.y[row : row + 1], pairs.index)
    terms = round_terms(spec, one)
    g = (terms.w * (terms.c + terms.k * solved.value[terms.pair])).sum(-1)  # one class: next = pair
    return solve_rounds(spec, g)


def action_win_probabilities(
    solved: SolvedGame,
    first: int,
    second: int,
    roll: int,
    dice: int,
    earlier_rank: int | None = None,
    limit: int | None = None,
    round_solution: RoundSolution | None = None,
) -> np.ndarray:
    """``float[8]``: the acting player's probability of winning the game after each action (``nan`` if
    illegal), both players playing game-optimally afterwards; stacks ``(first, second)``, ``roll`` just
    thrown, multiset index ``dice``; for the second roller, the first's hand rank and the roll limit.
    ``round_solution``: :func:`state_round` of these stacks, if already computed."""
    spec = solved.spec
    sol = round_solution or state_round(solved, first, second)
    tp_a, us_a, tp_b, us_b = sol.turns
    if earlier_rank is None:
        tp, us, i = tp_a, us_a, 0
    else:
        lim = (limit or spec.max_rolls) - 1 if spec.sets_limit else 0
        tp, us, i = tp_b, us_b, earlier_rank * spec.num_limits + lim
    if not 1 <= roll < int(tp.limit[i]) or dice == spec.instant_m:
        raise ValueError(f"no decision after roll {roll} with these dice")
    q = transition_probs()[0][dice] @ us[roll + 1][i]
    q[STOP] = tp.stop_at(roll)[i, dice]
    q[~legal_mask(spec.holds_allowed)] = np.nan
    return q


def solve_game(ruleset: str | Ruleset = "classic", stacks: Sequence[int] | None = None) -> SolvedGame:
    """Solve the 2-player game from ``stacks`` (``None``: the ruleset's starting stacks; every state
    reachable from them) without any cache (:func:`zanzibar_env.agents.exact.cache.solved_game` keeps
    them)."""
    rules = load_ruleset(ruleset)
    system = make_system(rules, (rules.starting_stack,) * 2 if stacks is None else stacks)
    u, (sol,) = iterate(system, [None], [None])
    return SolvedGame(system.spec, system.pairs, u, sol.policy_a, sol.policy_b)


def stacks_key(ruleset: Ruleset, stacks: tuple[int, int]) -> tuple[int, int]:
    """The canonical stacks whose solve covers ``stacks``: ``(1, total - 1)`` (chips), ``(m, m)`` (lives)."""
    a, b = check_stacks(ruleset, stacks)
    return (1, a + b - 1) if ruleset.stake == "chips" else (max(a, b), max(a, b))
