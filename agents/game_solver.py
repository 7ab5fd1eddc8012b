"""Exact game-optimal play for 2 players: the policy that maximises the probability of winning the game.

Objective
---------
A state is the pair of stacks at the start of a round, the first roller's first (:mod:`zanzibar_env.agents.game_round`).
Its value ``U(x, y)`` is the probability that the first roller wins the game (a shared win counts one
half, so the game is zero-sum). Each round is solved with the next states' values as payoffs, the first
roller maximising ``U``, the other minimising it, by backward induction over rolls (a subgame-perfect
equilibrium of the whole game). Ties between actions are broken as in :mod:`zanzibar_env.agents.solver_turn` (within
``TIE_EPS``: stop first, then the lowest mask), so the policy is a function of the view. Rounds can
return to earlier stacks (chips flow back and forth), so the values are a fixed point, found by
strategy iteration: solve every round greedily for the current values, evaluate that pair of policies
exactly by one linear solve over all states, repeat until the policies no longer change; the Bellman
residual of the result is checked to ``1e-12``. ``max_rounds`` truncation is ignored (values are for
the untruncated game).

Tables are solved once per (ruleset options, stack total for chips or largest stack for lives), kept in
memory and cached on disk next to the round solver's (``$ZANZIBAR_CACHE_DIR``) as
``optimal_game-<hash>.npz``, the hash covering the play options, the stacks key and
:data:`GAME_SOLVER_VERSION`; the file carries a checksum of its arrays and is re-solved if it does not
match.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.hands import MULTISET_INDEX
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import Ruleset, load_ruleset

from zanzibar_env.agents.base import BaseAgent
from zanzibar_env.agents.game_round import GameSpec, Pairs, RoundSolution, Terms, round_terms, solve_rounds
from zanzibar_env.agents.optimal import PLAY_OPTIONS, default_cache_dir
from zanzibar_env.agents.solver_turn import legal_mask, transitions

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


def make_system(ruleset: Ruleset, stacks: tuple[int, int], classes: int = 1) -> GameSystem:
    """The states reachable from ``stacks`` with their round outcomes (``ValueError`` on bad stacks)."""
    spec = GameSpec.of(ruleset)
    a, b = check_stacks(ruleset, stacks)
    states = a + b - 1 if spec.chips else max(a, b) ** 2
    if states > MAX_STATES:
        raise ValueError(f"stacks {a}-{b} give {states} stack states, more than the solver's {MAX_STATES}")
    pairs = Pairs.reachable(spec, (a, b))
    return GameSystem(spec, pairs, round_terms(spec, pairs), classes)


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
    solved: SolvedGame, first: int, second: int, roll: int, dice: int, earlier_rank: int | None = None,
    limit: int | None = None, round_solution: RoundSolution | None = None,
) -> np.ndarray:  # fmt: skip
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
    q = transitions()[0][dice] @ us[roll + 1][i]
    q[STOP] = tp.stop_at(roll)[i, dice]
    q[~legal_mask(spec.holds_allowed)] = np.nan
    return q


def solve_game(ruleset: Ruleset, stacks: tuple[int, int]) -> SolvedGame:
    """Solve the game from ``stacks`` (every state reachable from them) without any cache."""
    system = make_system(ruleset, stacks)
    u, (sol,) = iterate(system, [None], [None])
    return SolvedGame(system.spec, system.pairs, u, sol.policy_a, sol.policy_b)


def stacks_key(ruleset: Ruleset, stacks: tuple[int, int]) -> tuple[int, int]:
    """The canonical stacks whose solve covers ``stacks``: ``(1, total - 1)`` (chips), ``(m, m)`` (lives)."""
    a, b = check_stacks(ruleset, stacks)
    return (1, a + b - 1) if ruleset.stake == "chips" else (max(a, b), max(a, b))


def game_key(ruleset: Ruleset, stacks: tuple[int, int]) -> str:
    """Hash naming the solved game tables of ``ruleset`` from ``stacks`` (canonical)."""
    opts = {k: getattr(ruleset, k) for k in PLAY_OPTIONS}
    key = stacks_key(ruleset, stacks)
    blob = json.dumps({"options": opts, "stacks": key, "version": GAME_SOLVER_VERSION}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        h.update(name.encode())
        h.update(np.ascontiguousarray(arrays[name]).tobytes())
    return h.hexdigest()


_MEMORY: dict[str, SolvedGame] = {}


def solved_game(
    ruleset: Ruleset | str, stacks: tuple[int, int] | None = None, cache_dir: Path | None = None,
    use_disk: bool = True,
) -> SolvedGame:  # fmt: skip
    """The game tables covering ``stacks`` (default: the starting stacks): memory, disk, or solved."""
    rules = load_ruleset(ruleset)
    if stacks is None:
        stacks = (rules.starting_stack, rules.starting_stack)
    name = game_key(rules, stacks)
    if name in _MEMORY:
        return _MEMORY[name]
    path = (cache_dir or default_cache_dir()) / f"optimal_game-{name}.npz"
    solved = _load(path, rules, stacks_key(rules, stacks)) if use_disk and path.exists() else None
    if solved is None:
        solved = solve_game(rules, stacks_key(rules, stacks))
        if use_disk:
            _save(path, solved)
    _MEMORY[name] = solved
    return solved


def _save(path: Path, solved: SolvedGame) -> None:
    arrays = {"value": solved.value, "policy_a": solved.policy_a, "policy_b": solved.policy_b}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{np.random.default_rng().integers(1 << 30)}.tmp.npz")
        np.savez_compressed(tmp, checksum=np.array(_checksum(arrays)), **arrays)  # type: ignore[arg-type]
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache only costs a re-solve next time


def _load(path: Path, rules: Ruleset, key: tuple[int, int]) -> SolvedGame | None:
    try:
        with np.load(path) as z:
            arrays = {k: z[k] for k in ("value", "policy_a", "policy_b")}
            ok = str(z["checksum"]) == _checksum(arrays)
    except (OSError, KeyError, ValueError):
        return None
    if not ok:
        return None  # a damaged cache file is re-solved and overwritten
    spec = GameSpec.of(rules)
    pairs = Pairs.reachable(spec, key)
    if arrays["value"].shape != (len(pairs),):
        return None
    return SolvedGame(spec, pairs, arrays["value"], arrays["policy_a"], arrays["policy_b"])


class OptimalGameAgent(BaseAgent):
    """Plays the game-optimal policy of 2-player games (see the module docstring) by table look-up.

    The state is read from the view: both stacks (own first), who rolls first, the roll, the roll limit
    and the earlier hand's rank. Tables are solved on first use for the stack total (chips) or largest
    stack (lives) seen. Tables of more than 2 players raise ``ValueError`` (nothing exact fits there).

    Args:
        seed: ignored (the policy is deterministic); accepted for the registry.
        cache_dir: where solved tables are cached (default :func:`zanzibar_env.agents.optimal.default_cache_dir`).
        use_disk: read and write the disk cache (``False``: solve in memory only).
    """

    name = "optimal_game"
    table_sizes = (2,)

    def __init__(
        self, seed: int | None = None, cache_dir: str | Path | None = None, use_disk: bool = True
    ) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.use_disk = use_disk
        self._tables: dict[tuple[int, tuple[int, int]], tuple[Ruleset, SolvedGame]] = {}

    def tables(self, ruleset: Ruleset, first: int, second: int) -> SolvedGame:
        """The solved game covering stacks ``(first, second)`` (memoised per ruleset object)."""
        if (ruleset.stake == "chips" and min(first, second) < 1) or max(first, second) < 1:
            raise ValueError(f"stacks ({first}, {second}) are not a state of an unfinished game")
        key = (id(ruleset), stacks_key(ruleset, (max(first, 1), max(second, 1))))
        entry = self._tables.get(key)
        if entry is None or entry[0] is not ruleset:
            entry = self._tables[key] = (ruleset, solved_game(ruleset, key[1], self.cache_dir, self.use_disk))
        return entry[1]

    def act(self, view: View) -> int:
        """Game-optimal hold mask for one view."""
        if view.num_players != 2:
            raise ValueError(f"optimal_game plays 2-player games only, got {view.num_players} players")
        if not 1 <= view.rolls_used < view.roll_limit:
            raise ValueError(f"not a decision: roll {view.rolls_used} of {view.roll_limit}")
        own, other = view.stacks
        first, second = (own, other) if view.is_first else (other, own)
        t = self.tables(view.ruleset, first, second)
        row = t.pairs.row(first, second)
        m = MULTISET_INDEX[view.dice]
        if view.is_first:
            return int(t.policy_a[row, view.rolls_used - 1, m])
        if view.lowest is None:
            raise ValueError("the second roller's view has no earlier hand")
        lim = view.roll_limit - 1 if t.spec.sets_limit else 0
        return int(t.policy_b[row, view.lowest.rank, lim, view.rolls_used - 1, m])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Game-optimal hold masks ``int64[B]``; rows that are not decisions (finished rows of a vector env)
        get ``STOP``."""
        out = np.full(len(batch), STOP, np.int64)
        live = (batch.players_after >= 0) & (batch.rolls_used >= 1) & (batch.rolls_used < batch.roll_limit)
        if (batch.num_players[live] != 2).any():
            raise ValueError("optimal_game plays 2-player games only")
        first = batch.is_first.astype(bool)
        own, other = batch.stacks[:, 0], batch.stacks[:, 1]
        fx, fy = np.where(first, own, other), np.where(first, other, own)
        group = fx + fy if batch.ruleset.stake == "chips" else np.maximum(fx, fy)
        for g in np.unique(group[live]):
            sel = np.flatnonzero(live & (group == g))
            t = self.tables(batch.ruleset, int(fx[sel[0]]), int(fy[sel[0]]))
            row, r, m = t.pairs.find(fx[sel], fy[sel]), batch.rolls_used[sel] - 1, batch.dice_index[sel]
            lim = batch.roll_limit[sel] - 1 if t.spec.sets_limit else np.zeros(len(sel), np.int64)
            rank = np.maximum(batch.lowest_rank[sel], 0)
            a = t.policy_a[row, r, m]
            b = t.policy_b[row, rank, lim, r, m]
            out[sel] = np.where(first[sel], a, b)
        return out

    def win_probability(self, view: View) -> float:
        """Probability of winning the game from the stacks of ``view`` if this player rolls first or not,
        before the round starts (the value of the state, not of the decision)."""
        own, other = view.stacks
        first, second = (own, other) if view.is_first else (other, own)
        u = self.tables(view.ruleset, first, second).win_probability(first, second)
        return u if view.is_first else 1.0 - u

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_tables"] = {}  # tables live in the module-level cache, never in the pickle
        return state
