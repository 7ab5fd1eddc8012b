"""The local backend: deals played in this process (``--jobs 1``) or in a pool of worker processes.

Which pool (:func:`pool_method`): ``fork`` when the platform has it and torch is not loaded, which needs
no ``if __name__ == "__main__":`` guard in the calling script and sends nothing through pickle (lambda
policies work). Once torch is loaded forking is unsafe, so workers are spawned; spawning re-runs the
calling script in every worker and pickles the agents, so when the script has no ``__main__`` guard or
an agent cannot be pickled (a lambda policy) the deals are played in this process instead, with a
one-line warning saying why. Results never depend on which: every game is seeded from the deal alone.
Workers ignore Ctrl-C (the main process stops them and keeps the deals finished).
"""

from __future__ import annotations

import ast
import multiprocessing as mp
import pickle
import signal
import sys
import warnings
from collections.abc import Iterator
from typing import Any

from zanzibar_env.train.tournament.deals import DealContext, DealGames, play_deal

_CTX: DealContext | None = None  # in a pool worker: the tournament's context, set once


def _init_worker(ctx: DealContext) -> None:
    global _CTX
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    _CTX = ctx


def _play(deals: range) -> list[DealGames]:
    assert _CTX is not None, "worker not initialised"
    return [play_deal(_CTX, d) for d in deals]


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


def run_deals_local(ctx: DealContext, deals: int, jobs: int = 1) -> Iterator[DealGames]:
    """Every deal's games, in deal order, played here (``jobs == 1``) or by ``jobs`` processes."""
    method, why = ("", "") if jobs == 1 else pool_method(ctx)
    if jobs == 1 or method is None:
        if why:
            warnings.warn(f"jobs={jobs}: playing in this process, since {why}", RuntimeWarning, stacklevel=3)
        yield from (play_deal(ctx, d) for d in range(deals))
        return
    chunk = max(1, min(16, deals // (jobs * 8)))
    with mp.get_context(method).Pool(jobs, initializer=_init_worker, initargs=(ctx,)) as pool:
        chunks = [range(d, min(d + chunk, deals)) for d in range(0, deals, chunk)]
        results = pool.imap(_play, chunks)
        for _ in chunks:
            yield from _next(results)


def _next(results: Any) -> list[DealGames]:
    """The next result of ``imap``, waited for in short steps: a signal delivered to one of the pool's
    threads is then still seen by the main thread within 0.2 s (a plain wait would not wake for it)."""
    while True:
        try:
            return results.next(timeout=0.2)
        except mp.TimeoutError:
            continue
