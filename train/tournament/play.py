"""The tournament: options checked, agents built (:func:`plan_tournament`), deals played on a backend and
summarised (:func:`play_tournament`); :func:`run_tournament` does both. The scheme and the statistics
are described in :mod:`zanzibar_env.train.tournament`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import zanzibar_env as zz
from zanzibar_env.agents import BaseAgent, make_agent
from zanzibar_env.core.bots import check_table_size
from zanzibar_env.core.provenance import ruleset_digest
from zanzibar_env.core.rules import MAX_PLAYERS, MIN_PLAYERS
from zanzibar_env.train.tournament.deals import DealContext, DealGames
from zanzibar_env.train.tournament.failures import AgentFailed
from zanzibar_env.train.tournament.local import local_pool, run_deals_local
from zanzibar_env.train.tournament.stats import AgentSummary, summarise

#: Where deals can be played: in local processes or as Ray tasks.
BACKENDS = ("local", "ray")
#: Most games one tournament plays (a larger count is refused before any game: results are kept in memory).
MAX_GAMES = 10_000_000


@dataclass
class TournamentResult:
    """Everything a tournament produced: its settings, per-agent summary, every game, the speed."""

    config: dict[str, Any]
    summary: list[AgentSummary]
    games: list[dict[str, Any]]
    games_per_second: float
    records: list[zz.GameRecord] = field(default_factory=list)
    run: dict[str, Any] = field(default_factory=dict)  # backend, jobs, address: not results
    rules: zz.Ruleset | None = None  # the ruleset played (the report reads it, never reloads it by name)
    complete: bool = True  # False: stopped by Ctrl-C, ``games`` holds the deals finished before


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`play_tournament`: a ``KeyboardInterrupt`` carrying the games finished so far
    (``partial``, a :class:`TournamentResult` with ``complete=False``; ``None`` if no deal finished)."""

    def __init__(self, partial: TournamentResult | None, cause: BaseException | None = None) -> None:
        super().__init__("tournament interrupted")
        self.partial, self.cause = partial, cause  # cause: the KeyboardInterrupt (Terminated: SIGTERM)


def _run_deals(plan: Plan, pool: Any) -> Iterator[DealGames]:
    """Every deal's games, in deal order, from the plan's backend (``pool``: the local workers)."""
    if plan.backend == "ray":
        from zanzibar_env.train.tournament.ray_backend import run_deals_ray

        return run_deals_ray(plan.ctx, plan.deals)
    return run_deals_local(plan.ctx, plan.deals, plan.jobs or 1, pool)


# ---- the tournament -------------------------------------------------------------------------------
def _agent_names(agents: Sequence[Any], built: list[BaseAgent]) -> list[str]:
    names: list[str] = []
    for spec, agent in zip(agents, built, strict=True):
        base = spec if isinstance(spec, str) else getattr(agent, "name", type(agent).__name__)
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def _check_int(name: str, value: object, lo: int, hi: float = math.inf) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        bounds = f"in {lo}..{hi}" if hi < math.inf else f">= {lo}"
        raise ValueError(f"{name} must be an integer {bounds}, got {value!r}")


def _check_backend(backend: str, address: str | None, jobs: int | None) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError("an address is for --backend ray (the Ray cluster to join)")
    if address is not None and jobs is not None:
        raise ValueError("--jobs sets the CPUs of a local Ray; with --address the cluster's CPUs are used")


def _check(players: int, games: int, jobs: int | None, num_agents: int, max_rounds: int | None) -> None:
    _check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
    _check_int("games", games, 1, MAX_GAMES)
    if jobs is not None:
        _check_int("jobs", jobs, 1)
    if max_rounds is not None:
        _check_int("max_rounds", max_rounds, 1)
    if num_agents < 2:
        raise ValueError(f"a tournament needs at least 2 agents, got {num_agents}")


@dataclass
class Plan:
    """A checked tournament, ready to play: agents built, options validated."""

    ctx: DealContext
    deals: int
    jobs: int | None  # local: processes; ray: CPUs of the local Ray (None: all)
    config: dict[str, Any]  # what the results depend on (results.json)
    backend: str = "local"
    address: str | None = None


def plan_tournament(
    agents: Sequence[str | BaseAgent],
    *,
    players: int = 4,
    games: int = 1000,
    ruleset: str | zz.Ruleset = "classic",
    seed: int = 0,
    jobs: int | None = None,
    max_rounds: int | None = None,
    keep_records: bool = False,
    backend: str = "local",
    address: str | None = None,
    lockstep: bool = True,
) -> Plan:
    """Check every option and build every agent (``ValueError`` for a bad name or model path).

    ``backend="local"`` plays in ``jobs`` processes (default 1); ``backend="ray"`` plays deals as Ray
    tasks on the cluster at ``address`` or, without one, on a local Ray with ``jobs`` CPUs (default all).
    ``lockstep=False`` plays game by game (:func:`~zanzibar_env.train.tournament.deals.play_deal`) instead
    of many games at once (:mod:`~zanzibar_env.train.tournament.lockstep`): the same games, slower.
    """
    _check(players, games, jobs, len(agents), max_rounds)
    _check_backend(backend, address, jobs)
    if not isinstance(lockstep, bool):
        raise TypeError(f"lockstep must be True or False, got {lockstep!r}")
    rules = zz.load_ruleset(ruleset)
    built = [make_agent(a, seed=seed) for a in agents]
    for agent in built:  # before any game: an agent that cannot sit at this table is a clear error
        check_table_size(agent, players, rules)
    names = _agent_names(agents, built)
    deals = -(-games // players)
    config = {
        "agents": names,
        "players": players,
        "games": deals * players,
        "deals": deals,
        "ruleset": rules.name,
        "ruleset_sha256": ruleset_digest(rules),
        "seed": seed,
        "max_rounds": max_rounds,
    }
    ctx = DealContext(built, names, rules, players, int(seed), max_rounds, keep_records, lockstep)
    if backend == "local":
        jobs = min(jobs or 1, deals)
    return Plan(ctx, deals, jobs, config, backend, address)


@contextmanager
def _backend_session(plan: Plan) -> Iterator[Any]:
    """The backend, ready to play, outside the timed part (Ray: connected or started; local: the worker
    processes started and warmed up, yielded)."""
    if plan.backend != "ray":
        with local_pool(plan.ctx, plan.jobs or 1) as pool:
            yield pool
        return
    from zanzibar_env.train.tournament.ray_backend import ray_session

    with ray_session(plan.address, plan.jobs):
        yield None


def play_tournament(plan: Plan, progress: bool = True) -> TournamentResult:
    """Play every deal of a plan (in ``plan.jobs`` processes) and summarise.

    Ctrl-C raises :class:`TournamentInterrupted` (a ``KeyboardInterrupt``) holding the deals finished so far;
    an agent that fails raises :class:`~zanzibar_env.train.tournament.failures.AgentFailed` with the deals
    finished before its deal in ``partial`` (``None`` if none was), marked incomplete in the same way.
    """
    from tqdm import tqdm

    players = plan.ctx.players
    rows: list[dict] = []
    records: list[zz.GameRecord] = []
    t0 = time.perf_counter()
    elapsed: float | None = None
    try:
        with _backend_session(plan) as pool:
            t0 = time.perf_counter()
            with tqdm(
                total=plan.deals * players, unit="game", disable=not progress, desc="tournament", smoothing=0
            ) as bar:  # smoothing=0: rate and time left from the average since the start, not the last deal
                for deal in _run_deals(plan, pool):
                    for row, rec in deal:
                        rows.append(row)
                        if rec is not None:
                            records.append(rec)
                    bar.update(players)
            elapsed = time.perf_counter() - t0  # play only: not the workers' shutdown
    except KeyboardInterrupt as e:
        raise TournamentInterrupted(_partial(plan, rows, records, t0, "Ctrl-C"), e) from None
    except AgentFailed as e:  # (the deals come in deal order: those before the failing one are whole)
        e.partial = _partial(plan, rows, records, t0, f"agent {e.agent!r} failed")
        raise
    return _result(plan, rows, records, t0, True, elapsed)


def _partial(
    plan: Plan, rows: list[dict], records: list[zz.GameRecord], t0: float, stopped_by: str
) -> TournamentResult | None:
    """The whole deals among ``rows``, an incomplete result (``run["stopped_by"]``: why), or ``None``."""
    done = len(rows) - len(rows) % plan.ctx.players
    if not done:
        return None
    result = _result(plan, rows[:done], records[:done] if records else [], t0, False)
    result.run["stopped_by"] = stopped_by
    return result


def _result(
    plan: Plan,
    rows: list[dict],
    records: list[zz.GameRecord],
    t0: float,
    complete: bool,
    elapsed: float | None = None,
) -> TournamentResult:
    seconds = elapsed if elapsed is not None else time.perf_counter() - t0
    speed = len(rows) / max(seconds, 1e-9)
    run = {"backend": plan.backend, "jobs": plan.jobs, "address": plan.address, "games_per_second": speed}
    summary = summarise(rows, plan.ctx.names)
    return TournamentResult(plan.config, summary, rows, speed, records, run, plan.ctx.ruleset, complete)


def run_tournament(
    agents: Sequence[str | BaseAgent], *, progress: bool = True, **options: Any
) -> TournamentResult:
    """Play a duplicate-format tournament (:mod:`zanzibar_env.train.tournament`) and return its results.

    ``options`` are those of :func:`plan_tournament` (players, games, ruleset, seed, jobs,
    max_rounds, keep_records, backend, address, lockstep); everything is checked before the first game.
    """
    return play_tournament(plan_tournament(agents, **options), progress)
