"""Tournaments in duplicate format: ``python -m train.tournament --agents random,greedy,escape --players 4``.

Scheme. Games come in *deals*. Deal ``d`` draws, from ``SeedSequence([seed, d])``, a line-up of
``players`` agents (the whole list in order when it has exactly ``players`` names; a seeded choice
without replacement when it has more; the list repeated in order when it has fewer) and one dice seed.
The deal is played ``players`` times, once per seat rotation: in rotation ``r`` seat ``s`` holds
line-up agent ``(s + r) % players``, and every rotation replays the same dice stream (``RandomDice``
from the deal's seed), so each agent meets the same luck from every seat and luck largely cancels.
Agents are reseeded from ``(seed, d, line-up position)`` before every game, so a game depends only
on ``(seed, d, r)`` and ``--jobs N`` or ``--backend ray`` (deals as Ray tasks on a cluster,
:mod:`zanzibar_env.train.ray_tournament`) give exactly the results of ``--jobs 1``. ``--games`` is rounded up to a
whole number of deals.

Statistics, per agent: win rate (a game won by k players at once counts 1/k to each), result per
round (chip rulesets: chips given away minus chips received; lives rulesets: lives change; higher is
better), each as a ratio over all the agent's seats with a 95% interval that treats deals as
independent clusters (delta method); mean finishing place; and an openskill Plackett-Luce rating
updated game by game, in game order, from the finishing places (chips: winners, then fewest chips;
lives: winners, then most lives, then latest elimination). Output (``--out``): ``games.csv`` (one
row per game and seat), ``results.json`` (config, summary, every game: the same whatever the backend),
``run.json`` (how it ran: backend, jobs, games/s), ``tournament.png``, and with ``--save-games``
``games.jsonl`` (:meth:`GameRecord.save`).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import zanzibar_env as zz
from zanzibar_env.agents import BaseAgent, make_agent
from zanzibar_env.core.bots import check_table_size
from zanzibar_env.train.tournament_report import check_out_dir, print_table, write_outputs
from zanzibar_env.train.tournament_stats import AgentSummary, ratio_ci, summarise

from zanzibar_env.core.rules import MAX_GAME_ROUNDS, MAX_PLAYERS, MIN_PLAYERS

# the statistics live in zanzibar_env.train.tournament_stats; they are still importable from here
__all__ = ["AgentSummary", "Plan", "TournamentResult", "deal_plan", "main", "plan_tournament"]
__all__ += ["play_tournament", "ratio_ci", "run_tournament", "summarise"]


@dataclass
class TournamentResult:
    """Everything a tournament produced: its settings, per-agent summary, every game, the speed."""

    config: dict[str, Any]
    summary: list[AgentSummary]
    games: list[dict[str, Any]]
    games_per_second: float
    records: list[zz.GameRecord] = field(default_factory=list)
    run: dict[str, Any] = field(default_factory=dict)  # backend, jobs, address: not results


# ---- schedule -------------------------------------------------------------------------------------
def deal_plan(seed: int, deal: int, num_agents: int, players: int) -> tuple[list[int], int, list[int]]:
    """``(line-up of agent indices, dice seed, agent seed per line-up position)`` of one deal."""
    ss = np.random.SeedSequence([seed, deal])
    rng = np.random.default_rng(ss)
    if num_agents == players:
        lineup = list(range(players))
    elif num_agents > players:
        lineup = [int(i) for i in rng.permutation(num_agents)[:players]]
    else:
        lineup = [i % num_agents for i in range(players)]
    dice_seed, *agent_seeds = (int(x) for x in ss.generate_state(players + 1, np.uint32))
    return lineup, dice_seed, agent_seeds


@dataclass
class _Context:
    agents: list[BaseAgent]
    names: list[str]
    ruleset: zz.Ruleset
    players: int
    seed: int
    max_rounds: int | None
    keep_records: bool


_CTX: _Context | None = None


def _init_worker(ctx: _Context) -> None:
    global _CTX
    _CTX = ctx


def _places(rec: zz.GameRecord, stake: str) -> list[int]:
    """Finishing place of each seat (1 = best; equal results share a place)."""
    n = rec.num_players
    elim = [math.inf] * n
    for i, rnd in enumerate(rec.rounds):
        for s in range(n):
            if elim[s] == math.inf and rnd.stacks_after[s] == 0:
                elim[s] = i
    won = [s in rec.winners for s in range(n)]
    if stake in ("chips", "penalty"):  # fewer chips / penalty points is better
        keys = [(won[s], -rec.final_stacks[s], 0.0) for s in range(n)]
    else:
        keys = [(won[s], rec.final_stacks[s], elim[s]) for s in range(n)]
    return [1 + sum(k > keys[s] for k in keys) for s in range(n)]


def _game_row(rec: zz.GameRecord, ctx: _Context, deal: int, rot: int, seats: list[int], dseed: int) -> dict:
    start, stake = ctx.ruleset.starting_stack, ctx.ruleset.stake
    sign = -1 if stake in ("chips", "penalty") else 1  # chips and penalty points: fewer is better
    return {
        "game": deal * ctx.players + rot,
        "deal": deal,
        "rotation": rot,
        "dice_seed": dseed,
        "agents": [ctx.names[i] for i in seats],
        "rounds": len(rec.rounds),
        "truncated": rec.truncated,
        "final_stacks": list(rec.final_stacks),
        "winners": list(rec.winners),
        "result": [sign * (c - start) for c in rec.final_stacks],
        "win": [1 / len(rec.winners) if s in rec.winners else 0.0 for s in range(ctx.players)],
        "place": _places(rec, stake),
    }


def _play_deal(deal: int) -> list[tuple[dict, zz.GameRecord | None]]:
    """Play every rotation of one deal (in a worker or in-process)."""
    ctx = _CTX
    assert ctx is not None, "worker not initialised"
    lineup, dice_seed, agent_seeds = deal_plan(ctx.seed, deal, len(ctx.agents), ctx.players)
    out = []
    for rot in range(ctx.players):
        seats = [lineup[(s + rot) % ctx.players] for s in range(ctx.players)]
        for pos, idx in enumerate(lineup):
            ctx.agents[idx].seed(agent_seeds[pos])
        rec = zz.play_game(
            ctx.ruleset,
            [ctx.agents[i] for i in seats],
            num_players=ctx.players,
            seed=dice_seed,
            max_rounds=ctx.max_rounds or ctx.ruleset.max_rounds or MAX_GAME_ROUNDS,
        )
        out.append((_game_row(rec, ctx, deal, rot, seats, dice_seed), rec if ctx.keep_records else None))
    return out


def _run_deals(
    ctx: _Context, deals: int, jobs: int, backend: str = "local"
) -> Iterator[list[tuple[dict, zz.GameRecord | None]]]:
    if backend == "ray":
        from zanzibar_env.train.ray_tournament import run_deals_ray

        yield from run_deals_ray(ctx, deals)
        return
    if jobs == 1:
        _init_worker(ctx)
        yield from map(_play_deal, range(deals))
        return
    chunk = max(1, min(16, deals // (jobs * 8)))
    # fork starts workers at once; once torch is loaded (ppo agents) forking is unsafe, so spawn
    method = "spawn" if "torch" in sys.modules or "fork" not in mp.get_all_start_methods() else "fork"
    with mp.get_context(method).Pool(jobs, initializer=_init_worker, initargs=(ctx,)) as pool:
        yield from pool.imap(_play_deal, range(deals), chunksize=chunk)


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


BACKENDS = ("local", "ray")


def _check_backend(backend: str, address: str | None, jobs: int | None) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError("an address is for --backend ray (the Ray cluster to join)")
    if address is not None and jobs is not None:
        raise ValueError("--jobs sets the CPUs of a local Ray; with --address the cluster's CPUs are used")


def _check(players: int, games: int, jobs: int | None, num_agents: int, max_rounds: int | None) -> None:
    _check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
    _check_int("games", games, 1)
    if jobs is not None:
        _check_int("jobs", jobs, 1)
    if max_rounds is not None:
        _check_int("max_rounds", max_rounds, 1)
    if num_agents < 2:
        raise ValueError(f"a tournament needs at least 2 agents, got {num_agents}")


@dataclass
class Plan:
    """A checked tournament, ready to play: agents built, options validated."""

    ctx: _Context
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
) -> Plan:
    """Check every option and build every agent (``ValueError`` for a bad name or model path).

    ``backend="local"`` plays in ``jobs`` processes (default 1); ``backend="ray"`` plays deals as Ray
    tasks on the cluster at ``address`` or, without one, on a local Ray with ``jobs`` CPUs (default all).
    """
    _check(players, games, jobs, len(agents), max_rounds)
    _check_backend(backend, address, jobs)
    rules = zz.load_ruleset(ruleset)
    built = [make_agent(a, seed=seed) for a in agents]
    for agent in built:  # before any game: an agent that cannot sit at this table is a clear error
        check_table_size(agent, players)
    names = _agent_names(agents, built)
    deals = -(-games // players)
    config = {
        "agents": names,
        "players": players,
        "games": deals * players,
        "deals": deals,
        "ruleset": rules.name,
        "seed": seed,
        "max_rounds": max_rounds,
    }
    ctx = _Context(built, names, rules, players, int(seed), max_rounds, keep_records)
    if backend == "local":
        jobs = min(jobs or 1, deals)
    return Plan(ctx, deals, jobs, config, backend, address)


@contextmanager
def _backend_session(plan: Plan) -> Iterator[None]:
    """The backend, ready to play (for Ray: connected or started, outside the timed part)."""
    if plan.backend != "ray":
        yield
        return
    from zanzibar_env.train.ray_tournament import ray_session

    with ray_session(plan.address, plan.jobs):
        yield


def play_tournament(plan: Plan, progress: bool = True) -> TournamentResult:
    """Play every deal of a plan (in ``plan.jobs`` processes) and summarise."""
    from tqdm import tqdm

    players = plan.ctx.players
    rows: list[dict] = []
    records: list[zz.GameRecord] = []
    with _backend_session(plan):
        t0 = time.perf_counter()
        with tqdm(total=plan.deals * players, unit="game", disable=not progress, desc="tournament") as bar:
            for deal in _run_deals(plan.ctx, plan.deals, plan.jobs or 1, plan.backend):
                for row, rec in deal:
                    rows.append(row)
                    if rec is not None:
                        records.append(rec)
                bar.update(players)
        speed = len(rows) / max(time.perf_counter() - t0, 1e-9)
    run = {"backend": plan.backend, "jobs": plan.jobs, "address": plan.address, "games_per_second": speed}
    return TournamentResult(plan.config, summarise(rows, plan.ctx.names), rows, speed, records, run)


def run_tournament(
    agents: Sequence[str | BaseAgent], *, progress: bool = True, **options: Any
) -> TournamentResult:
    """Play a duplicate-format tournament (module docstring) and return its results.

    ``options`` are those of :func:`plan_tournament` (players, games, ruleset, seed, jobs,
    max_rounds, keep_records, backend, address); everything is checked before the first game.
    """
    return play_tournament(plan_tournament(agents, **options), progress)


# ---- output ---------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m train.tournament",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--agents", required=True, help="comma-separated agent names or ppo:PATH (at least 2)")
    p.add_argument("--players", type=int, default=4, help="players per table, 2-8")
    p.add_argument("--games", type=int, default=1000, help="games to play (rounded up to whole deals)")
    p.add_argument("--ruleset", default="classic", help="ruleset name from configs/rules/ or a YAML path")
    p.add_argument("--seed", type=int, default=0, help="seed of the line-ups, the dice and the agents")
    p.add_argument(
        "--jobs", type=int, default=None, help="worker processes, default 1 (with --backend ray: CPUs of a "
        "local Ray, default all); results do not depend on it",
    )  # fmt: skip
    p.add_argument("--backend", choices=BACKENDS, default="local", help="local processes or Ray tasks")
    p.add_argument("--address", default=None, help="with --backend ray: the Ray cluster to join (ray start)")
    p.add_argument("--max-rounds", type=int, default=None, help="truncate each game after this many rounds")
    p.add_argument("--out", default=None, help="directory for games.csv, results.json, tournament.png")
    p.add_argument("--save-games", action="store_true", help="also write every GameRecord to games.jsonl")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--force", action="store_true", help="replace the outputs of an earlier tournament in --out"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit code (2 for bad agents or options)."""
    args = build_parser().parse_args(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    try:
        plan = plan_tournament(
            agents,
            players=args.players,
            games=args.games,
            ruleset=args.ruleset,
            seed=args.seed,
            jobs=args.jobs,
            max_rounds=args.max_rounds,
            keep_records=args.save_games,
            backend=args.backend,
            address=args.address,
        )
        if args.out:
            check_out_dir(args.out, args.force)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    result = play_tournament(plan, progress=not args.no_progress)
    print_table(result)
    if args.out:
        write_outputs(result, Path(args.out), args.save_games)
        print(
            f"wrote games.csv, results.json, run.json, tournament.png"
            f"{', games.jsonl' if args.save_games else ''} to {args.out}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
