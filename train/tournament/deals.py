"""The deals of a tournament: what a backend plays, and the one function it plays them with.

A deal is a pure function of ``(seed, deal)``: :func:`deal_plan` draws its line-up, dice seed and agent
seeds, and :func:`play_deal` plays its rotations, reseeding the agents before every game. A backend
(:mod:`~zanzibar_env.train.tournament.local`, :mod:`~zanzibar_env.train.tournament.ray_backend`) only
decides *where* deals are played: it sends a :class:`DealContext` to its workers once, calls
:func:`play_deal` there for each deal and hands the results back in deal order (an iterator of
:data:`DealGames`), so every backend gives the games of ``--jobs 1``, bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import zanzibar_env as zz
from zanzibar_env.agents import BaseAgent
from zanzibar_env.core.rules import MAX_GAME_ROUNDS
from zanzibar_env.train.tournament.failures import GuardedPolicy

#: One deal's games: ``(row, record)`` per rotation, in rotation order; the record is ``None`` unless
#: the context keeps records. A row is the ``results.json`` entry of a game (:func:`game_row`).
DealGames = list[tuple[dict, zz.GameRecord | None]]


@dataclass
class DealContext:
    """Everything a worker needs to play any deal of one tournament (picklable: sent once per worker)."""

    agents: list[BaseAgent]  #: built agents, in the order of ``names``
    names: list[str]  #: the agents' unique names (line-up positions index these lists)
    ruleset: zz.Ruleset
    players: int  #: seats at the table
    seed: int  #: the tournament's seed (line-ups, dice, agents)
    max_rounds: int | None  #: truncate games after this many rounds (None: the ruleset's cap)
    keep_records: bool  #: return every game's :class:`~zanzibar_env.GameRecord`
    #: play chunks of deals in lockstep (:mod:`~zanzibar_env.train.tournament.lockstep`); False: game by game
    lockstep: bool = True


@dataclass(frozen=True)
class Outcome:
    """What a game's row is made of (:func:`game_row`): from a record (:func:`outcome`) or a lockstep row."""

    rounds: int
    truncated: bool
    final_stacks: list[int]
    winners: list[int]  #: seats, ascending
    eliminated: list[int | None]  #: per seat, the index of the first round it ended at 0 (None: never)


def outcome(rec: zz.GameRecord) -> Outcome:
    """The :class:`Outcome` of a played game."""
    n = rec.num_players
    elim: list[int | None] = [None] * n
    for i, rnd in enumerate(rec.rounds):
        for s in range(n):
            if elim[s] is None and rnd.stacks_after[s] == 0:
                elim[s] = i
    return Outcome(len(rec.rounds), rec.truncated, list(rec.final_stacks), list(rec.winners), elim)


def round_cap(ctx: DealContext) -> int:
    """Rounds after which a game of the tournament is truncated."""
    return ctx.max_rounds or ctx.ruleset.max_rounds or MAX_GAME_ROUNDS


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


def play_deal(ctx: DealContext, deal: int) -> DealGames:
    """Play every rotation of one deal (in a worker or in-process)."""
    lineup, dice_seed, agent_seeds = deal_plan(ctx.seed, deal, len(ctx.agents), ctx.players)
    out = []
    for rot in range(ctx.players):
        seats = [lineup[(s + rot) % ctx.players] for s in range(ctx.players)]
        for pos, idx in enumerate(lineup):
            if callable(getattr(ctx.agents[idx], "seed", None)):  # (an act-only bot has none)
                ctx.agents[idx].seed(agent_seeds[pos])
        game = deal * ctx.players + rot
        rec = zz.play_game(
            ctx.ruleset,
            [GuardedPolicy(ctx.agents[i], game, deal, s) for s, i in enumerate(seats)],
            num_players=ctx.players,
            seed=dice_seed,
            max_rounds=round_cap(ctx),
        )
        row = game_row(outcome(rec), ctx, deal, rot, seats, dice_seed)
        out.append((row, rec if ctx.keep_records else None))
    return out


def places(game: Outcome, stake: str) -> list[int]:
    """Finishing place of each seat (1 = best; equal results share a place)."""
    n = len(game.final_stacks)
    elim = [math.inf if e is None else e for e in game.eliminated]
    won = [s in game.winners for s in range(n)]
    if stake in ("chips", "penalty"):  # fewer chips / penalty points is better
        keys = [(won[s], -game.final_stacks[s], 0.0) for s in range(n)]
    else:
        keys = [(won[s], game.final_stacks[s], elim[s]) for s in range(n)]
    return [1 + sum(k > keys[s] for k in keys) for s in range(n)]


def game_row(game: Outcome, ctx: DealContext, deal: int, rot: int, seats: list[int], dseed: int) -> dict:
    """The ``results.json`` entry of one game (``games.csv`` has a line per seat of it)."""
    start, stake = ctx.ruleset.starting_stack, ctx.ruleset.stake
    sign = -1 if stake in ("chips", "penalty") else 1  # chips and penalty points: fewer is better
    return {
        "game": deal * ctx.players + rot,
        "deal": deal,
        "rotation": rot,
        "dice_seed": dseed,
        "agents": [ctx.names[i] for i in seats],
        "rounds": game.rounds,
        "truncated": game.truncated,
        "final_stacks": list(game.final_stacks),
        "winners": list(game.winners),
        "result": [sign * (c - start) for c in game.final_stacks],
        "win": [1 / len(game.winners) if s in game.winners else 0.0 for s in range(ctx.players)],
        "place": places(game, stake),
    }
