"""Tournaments in duplicate format: ``python -m train.tournament --agents random,greedy,escape --players 4``.

Scheme. Games come in *deals*. Deal ``d`` draws, from ``SeedSequence([seed, d])``, a line-up of
``players`` agents (the whole list in order when it has exactly ``players`` names; a seeded choice
without replacement when it has more; the list repeated in order when it has fewer) and one dice seed.
The deal is played ``players`` times, once per seat rotation: in rotation ``r`` seat ``s`` holds
line-up agent ``(s + r) % players``, and every rotation replays the same dice stream (``RandomDice``
from the deal's seed), so each agent meets the same luck from every seat and luck largely cancels.
Agents are reseeded from ``(seed, d, line-up position)`` before every game, so a game depends only
on ``(seed, d, r)`` and ``--jobs N`` or ``--backend ray`` (deals as Ray tasks on a cluster,
:mod:`~zanzibar_env.train.tournament.ray_backend`) give exactly the results of ``--jobs 1``.
``--games`` is rounded up to a whole number of deals.

Statistics, per agent: win rate (a game won by k players at once counts 1/k to each), result per
round (chip rulesets: chips given away minus chips received; lives rulesets: lives change; higher is
better), each as a ratio over all the agent's seats with a 95% interval (win rate: Wilson, so a bot
that never wins still gets a non-zero upper bound; result per round: a bootstrap that resamples whole
deals, :mod:`zanzibar_env.train.results.intervals`); mean finishing place; and an openskill Plackett-Luce rating
updated game by game, in game order, from the finishing places (chips: winners, then fewest chips;
lives: winners, then most lives, then latest elimination). Output (``--out``): ``games.csv`` (one
row per game and seat), ``results.json`` (config, summary, every game: the same whatever the backend),
``run.json`` (how it ran: backend, jobs, games/s), ``tournament.png``, and with ``--save-games``
``games.jsonl`` (:meth:`GameRecord.save`).

Speed. A backend hands its workers chunks of consecutive deals, and a worker plays a chunk's games in
lockstep (:mod:`~zanzibar_env.train.tournament.lockstep`): hundreds of games at once through the vector
env's numpy engine (``NumpyGames``), each agent asked once per step for every game where it acts (``act_batch``), with
the very games of the per-game runner (``lockstep=False``; tested byte for byte).

The package, one concept a module: :mod:`~zanzibar_env.train.tournament.deals` (a deal's plan and
play: the interface every backend plays through), :mod:`~zanzibar_env.train.tournament.lockstep` (a
chunk of deals played together), :mod:`~zanzibar_env.train.tournament.local` and
:mod:`~zanzibar_env.train.tournament.ray_backend` (the backends),
:mod:`~zanzibar_env.train.tournament.play` (plan, play, run), :mod:`~zanzibar_env.train.tournament.stats`
(the statistics), :mod:`~zanzibar_env.train.tournament.report` (table and files) and
:mod:`~zanzibar_env.train.tournament.cli` (the command). The names below are the public API; they load on first use, so
``python -m train.tournament`` starts its Ctrl-C handling before anything heavy is imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zanzibar_env.train.tournament.cli import build_parser, main
    from zanzibar_env.train.tournament.deals import DealContext, DealGames, deal_plan, play_deal
    from zanzibar_env.train.tournament.play import (
        BACKENDS,
        Plan,
        TournamentResult,
        plan_tournament,
        play_tournament,
        run_tournament,
    )
    from zanzibar_env.train.tournament.stats import AgentSummary, summarise

_HOMES = {
    "cli": ("build_parser", "main"),
    "deals": ("DealContext", "DealGames", "deal_plan", "play_deal"),
    "play": ("BACKENDS", "Plan", "TournamentResult", "plan_tournament", "play_tournament", "run_tournament"),
    "stats": ("AgentSummary", "summarise"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = [
    "BACKENDS",
    "AgentSummary",
    "DealContext",
    "DealGames",
    "Plan",
    "TournamentResult",
    "build_parser",
    "deal_plan",
    "main",
    "plan_tournament",
    "play_deal",
    "play_tournament",
    "run_tournament",
    "summarise",
]


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (PEP 562)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'zanzibar_env.train.tournament' has no attribute {name!r}")
    return getattr(importlib.import_module(f"zanzibar_env.train.tournament.{module}"), name)
