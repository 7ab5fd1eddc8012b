"""The local backend: deals played in this process (``--jobs 1``) or in a pool of worker processes.

Deals go out in chunks of consecutive deals; a worker plays a chunk in lockstep
(:func:`~zanzibar_env.train.tournament.lockstep.play_deals`) and hands it back whole, in deal order.
:func:`local_pool` starts the workers before the timed part, as the Ray backend connects first: each
worker loads the tournament's context and plays one deal for nothing (imports, model files, solved
tables, all loaded once), so the games per second measure play, not start-up.

Which pool (:func:`pool_method`): ``fork`` when the platform has it and torch is not loaded, which needs
no ``if __name__ == "__main__":`` guard in the calling script and sends nothing through pickle (lambda
policies work). Once torch is loaded forking is unsafe, so workers are spawned; spawning re-runs the
calling script in every worker and pickles the agents, so when the script has no ``__main__`` guard or
an agent cannot be pickled (a lambda policy) the deals are played in this process instead, with a
one-line warning saying why. Results never depend on which: every game is seeded from the deal alone.
Workers ignore Ctrl-C (the main process stops them and keeps the chunks finished).
"""

from __future__ import annotations

import ast
import multiprocessing as mp
import pickle
import signal
import sys
import warnings
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import Any

from zanzibar_env.train.tournament.deals import DealContext, DealGames
from zanzibar_env.train.tournament.failures import AgentFailed
from zanzibar_env.train.tournament.lockstep import play_deals

#: Most games in one chunk played in lockstep (a chunk's games come back together, when its last ends).
MAX_CHUNK_GAMES = 8192

_CTX: DealContext | None = None  # in a pool worker: the tournament's context, set once


def _init_worker(ctx: DealContext) -> None:
    global _CTX
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
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
    with a tail of steps for its longest games, with few rows left to batch, so fewer, larger chunks
    (``docs/benchmarks.md``, "Tournaments"). Game by game 1-16 deals, about 8 chunks per job."""
    if not lockstep:
        return max(1, min(16, deals // (jobs * 8)))
    return max(1, min(MAX_CHUNK_GAMES // players, -(-deals // jobs)))


@contextmanager
def local_pool(ctx: DealContext, jobs: int) -> Iterator[Any]:
    """``jobs`` worker processes holding ``ctx``, started and warmed up (``None`` for one job, or when
    :func:`pool_method` finds no safe way to start workers: the deals are then played here)."""
    if jobs == 1:
        yield None
        return
    method, why = pool_method(ctx)
    if method is None:
        warnings.warn(f"jobs={jobs}: playing in this process, since {why}", RuntimeWarning, stacklevel=4)
        yield None
        return
    with mp.get_context(method).Pool(jobs, initializer=_init_worker, initargs=(ctx,)) as pool:
        pool.map(_ready, range(jobs), chunksize=1)
        yield pool


def run_deals_local(ctx: DealContext, deals: int, jobs: int = 1, pool: Any = None) -> Iterator[DealGames]:
    """Every deal's games, in deal order, played here (``jobs == 1``) or by ``jobs`` processes (in
    ``pool``, from :func:`local_pool`, or in a pool started here)."""
    size = chunk_size(deals, jobs, ctx.players, ctx.lockstep and not ctx.keep_records)
    spans = [(start, min(start + size, deals)) for start in range(0, deals, size)]
    if pool is None and jobs > 1:
        with local_pool(ctx, jobs) as started:
            if started is not None:
                yield from run_deals_local(ctx, deals, jobs, started)
                return
    results = pool.imap(_play, spans) if pool is not None else None
    for span in spans:
        try:
            games = play_deals(ctx, range(*span)) if results is None else _next(results)
        except AgentFailed as e:  # the span's deals before the failing one, played again here, are kept
            raise (yield from _deals_before(ctx, span[0], e)) from None
        yield from games


def _deals_before(
    ctx: DealContext, start: int, failed: AgentFailed
) -> Generator[DealGames, None, AgentFailed]:
    """The games of deals ``start ..`` before ``failed``'s deal that the failure lost with its chunk (a
    chunk is played and returned as a whole; in lockstep its deals advance together), played again here:
    the same games (each deal's dice are its own). Where an agent fails in one of them too, the deals
    before that one; returns the failure of the first failing deal (the one game by game play meets)."""
    while failed.deal > start:
        try:
            games = play_deals(ctx, range(start, failed.deal))
        except AgentFailed as e:  # (in an earlier deal: fewer deals each time)
            failed = e
            continue
        yield from games
        break
    return failed


def _unguarded_script() -> str | None:
    """The calling script's path if spawned workers would re-run it and it has no ``__main__`` guard."""
    main = sys.modules.get("__main__")
    spec_name = getattr(getattr(main, "__spec__", None), "name", None)
    path = getattr(main, "__file__", None)
    if spec_name is not None or not isinstance(path, str):  # `python -m`, a REPL, a notebook: not re-run
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return path
    for node in tree.body:
        if (
            isinstance(node, ast.If)
            and "__main__" in ast.unparse(node.test)
            and "__name__" in ast.unparse(node.test)
        ):
            return None
    return path


def pool_method(ctx: DealContext) -> tuple[str | None, str]:
    """``(start method, "")`` for a worker pool, or ``(None, why)`` to play the deals in this process."""
    if "fork" in mp.get_all_start_methods() and "torch" not in sys.modules:
        return "fork", ""
    script = _unguarded_script()
    if script is not None:
        return (
            None,
            f'the script {script!r} has no `if __name__ == "__main__":` guard (spawned workers re-run it)',
        )
    try:
        pickle.dumps(ctx)
    except Exception as e:  # PicklingError, AttributeError, TypeError: a lambda or a local class
        return None, f"an agent cannot be sent to spawned workers ({type(e).__name__}: {str(e)[:120]})"
    return "spawn", ""


def _next(results: Any) -> list[DealGames]:
    """The next result of ``imap``, waited for in short steps: a signal delivered to one of the pool's
    threads is then still seen by the main thread within 0.2 s (a plain wait would not wake for it)."""
    while True:
        try:
            return results.next(timeout=0.2)
        except mp.TimeoutError:
            continue
