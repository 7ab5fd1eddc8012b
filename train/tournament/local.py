"""The local backend: deals played in this process (``--jobs 1``) or in a pool of worker processes."""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Iterator

from zanzibar_env.train.tournament.deals import DealContext, DealGames, play_deal

_CTX: DealContext | None = None  # in a pool worker: the tournament's context, set once


def _init_worker(ctx: DealContext) -> None:
    global _CTX
    _CTX = ctx


def _play(deal: int) -> DealGames:
    assert _CTX is not None, "worker not initialised"
    return play_deal(_CTX, deal)


def run_deals_local(ctx: DealContext, deals: int, jobs: int = 1) -> Iterator[DealGames]:
    """Every deal's games, in deal order, played here (``jobs == 1``) or by ``jobs`` processes."""
    if jobs == 1:
        yield from (play_deal(ctx, d) for d in range(deals))
        return
    chunk = max(1, min(16, deals // (jobs * 8)))
    # fork starts workers at once; once torch is loaded (ppo agents) forking is unsafe, so spawn
    method = "spawn" if "torch" in sys.modules or "fork" not in mp.get_all_start_methods() else "fork"
    with mp.get_context(method).Pool(jobs, initializer=_init_worker, initargs=(ctx,)) as pool:
        yield from pool.imap(_play, range(deals), chunksize=chunk)
