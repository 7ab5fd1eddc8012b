"""The local backend: deals played in this process (``--jobs 1``) or in a pool of worker processes.

Deals go out in chunks of consecutive deals; a worker plays a chunk in lockstep
(:func:`~zanzibar_env.train.tournament.lockstep.play_deals`) and hands it back whole, in deal order.
:func:`local_pool` starts the workers before the timed part, as the Ray backend connects first: each
worker loads the tournament's context and plays one deal for nothing (imports, model files, solved
tables, all loaded once), so the games per second measure play, not start-up.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from zanzibar_env.train.tournament.deals import DealContext, DealGames
from zanzibar_env.train.tournament.lockstep import play_deals

#: Most games in one chunk played in lockstep (a chunk's games come back together, when its last ends).
MAX_CHUNK_GAMES = 8192

_CTX: DealContext | None = None  # in a pool worker: the tournament's context, set once


def _init_worker(ctx: DealContext) -> None:
    global _CTX
    _CTX = ctx
    try:  # warm-up: what agents load lazily is loaded now, before the timed part
        play_deals(ctx, [0])
    except Exception:  # (an agent's error is raised, with its traceback, by the real play)
        pass


def _ready(_: int) -> None:
    """A task that returns once a worker has started."""


def _play(span: tuple[int, int]) -> list[DealGames]:
    assert _CTX is not None, "worker not initialised"
    return play_deals(_CTX, range(*span))


def chunk_size(deals: int, jobs: int, players: int, lockstep: bool = True) -> int:
    """Deals per chunk. In lockstep one chunk per job, up to :data:`MAX_CHUNK_GAMES` games: a chunk ends
    with a tail of steps for its longest games, with few rows left to batch, so fewer, larger chunks are
    faster. Game by game 1-16 deals, about 8 chunks per job."""
    if not lockstep:
        return max(1, min(16, deals // (jobs * 8)))
    return max(1, min(MAX_CHUNK_GAMES // players, -(-deals // jobs)))


@contextmanager
def local_pool(ctx: DealContext, jobs: int) -> Iterator[Any]:
    """``jobs`` worker processes holding ``ctx``, started and warmed up (``None`` for one job: no pool)."""
    if jobs == 1:
        yield None
        return
    # fork starts workers at once; once torch is loaded (ppo agents) forking is unsafe, so spawn
    method = "spawn" if "torch" in sys.modules or "fork" not in mp.get_all_start_methods() else "fork"
    with mp.get_context(method).Pool(jobs, initializer=_init_worker, initargs=(ctx,)) as pool:
        pool.map(_ready, range(jobs), chunksize=1)
        yield pool


def run_deals_local(ctx: DealContext, deals: int, jobs: int = 1, pool: Any = None) -> Iterator[DealGames]:
    """Every deal's games, in deal order, played here (``jobs == 1``) or by ``jobs`` processes (in
    ``pool``, from :func:`local_pool`, or in a pool started here)."""
    size = chunk_size(deals, jobs, ctx.players, ctx.lockstep and not ctx.keep_records)
    spans = [(start, min(start + size, deals)) for start in range(0, deals, size)]
    if jobs == 1:
        for span in spans:
            yield from play_deals(ctx, range(*span))
        return
    if pool is None:
        with local_pool(ctx, jobs) as pool:
            yield from run_deals_local(ctx, deals, jobs, pool)
        return
    for chunk in pool.imap(_play, spans):
        yield from chunk
