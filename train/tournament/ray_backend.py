"""The Ray backend: the deals of a tournament spread over Ray tasks (``--backend ray``).

The scheme is the tournament's own: deal ``d`` is a pure function of ``(seed, d)`` (its line-up, dice
seed and agent seeds come from :func:`~zanzibar_env.train.tournament.deals.deal_plan`, agents are
reseeded before every game), so *where* a deal is played changes nothing. This module only decides
where: deals are cut into chunks of consecutive deals, one Ray task per chunk, each playing its deals
in lockstep (:func:`~zanzibar_env.train.tournament.lockstep.play_deals`), and the chunks' results are
handed back in deal order, so ``games.csv`` and ``results.json`` are those of ``--jobs 1``, bit for bit.

Faults: a task whose worker process dies (killed, out of memory, node lost) is re-run by Ray
(``max_retries``); the re-run plays the same deals from the same seeds, and a chunk's result is taken
once, by its position, so no game is lost or counted twice. An exception raised by an agent is not
retried (it would fail again): it ends the tournament with Ray's error.

The tournament's context (agents, ruleset, seeds) is put in the object store once; each worker process
fetches it on its first task of a tournament and keeps it, so a task carries only ``(start, stop)``.
Without ``--address`` a local Ray starts (``--jobs N``: N CPUs; default all) and stops after the
tournament; with ``--address`` the tournament joins that cluster and leaves it running.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from zanzibar_env.extras import requires_extra
from zanzibar_env.train.tournament.deals import DealContext, DealGames
from zanzibar_env.train.tournament.lockstep import play_deals

#: times Ray re-runs a task whose worker died (a system failure); agent errors are not retried
MAX_RETRIES = 3
#: chunks in flight per CPU of the cluster (keeps every worker busy while results stream back)
IN_FLIGHT_PER_CPU = 4

_WORKER_CTX: dict[str, Any] = {}  # in a worker: the context of the tournament it last played


def import_ray(feature: str = "Ray tournaments") -> Any:
    """The ``ray`` module, or :class:`~zanzibar_env.extras.MissingExtraError` naming ``pip install``."""
    with requires_extra("ray", feature):
        import ray
    return ray


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """Ray, connected: to ``address`` (a running cluster), else to a local Ray started here.

    A Ray already initialised in this process is used as it is. A Ray started here (no dashboard,
    ``num_cpus`` CPUs, default all) is shut down on exit; a cluster joined with ``address`` is only
    disconnected from.
    """
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address:
        ray.init(address=address, **kwargs)
    else:  # "local": a Ray of our own, even if a cluster runs on this machine
        ray.init(address="local", num_cpus=num_cpus, **kwargs)
    try:
        yield ray
    finally:
        ray.shutdown()


def chunk_size(deals: int, cpus: int) -> int:
    """Deals per task: about 2 tasks per CPU, at most 512 deals (played together in lockstep: larger
    chunks batch more, smaller ones lose less when a worker dies; ``docs/benchmarks.md``, "Tournaments")."""
    return max(1, min(512, -(-deals // max(1, cpus * 2))))


def _play_chunk(ctx_box: list[Any], key: str, start: int, stop: int) -> list[DealGames]:
    """Play deals ``start..stop-1`` (runs in a Ray worker; ``ctx_box`` holds the context's ref)."""
    ctx = _WORKER_CTX.get(key)
    if ctx is None:
        ray = import_ray()
        ctx = ray.get(ctx_box[0])
        _WORKER_CTX.clear()  # one tournament's agents at a time
        _WORKER_CTX[key] = ctx
    return play_deals(ctx, range(start, stop))


def run_deals_ray(ctx: DealContext, deals: int) -> Iterator[DealGames]:
    """Every deal's games, in deal order, played by Ray tasks on the connected cluster."""
    ray = import_ray()
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    size = chunk_size(deals, cpus)
    task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(_play_chunk)
    box = [ray.put(ctx)]  # a ref inside a list is not resolved by Ray: the worker fetches it once
    key = uuid.uuid4().hex
    starts = iter(range(0, deals, size))
    pending: deque[Any] = deque()

    def submit() -> None:
        start = next(starts, None)
        if start is not None:
            pending.append(task.remote(box, key, start, min(start + size, deals)))

    for _ in range(cpus * IN_FLIGHT_PER_CPU):
        submit()
    while pending:
        chunk = ray.get(pending.popleft())
        submit()
        yield from chunk
