"""Load on the arena: N concurrent clients play 2-player games with hints against ``zanzibar serve`` on
localhost; prints requests per second and the p50 / p95 latency of a move with hints, with the CPU model.

Each client opens a game (hints on, a ``greedy`` bot), plays the best hold the hints show, waits
``--think`` seconds between moves (a person's pace; 0 = as fast as possible), and closes each finished
game. The run is bounded by ``--seconds`` and ``--clients`` (at most 200). The reference, measured in the
same run, is the same move played in-process (``Session.move`` and ``Session.state``, no HTTP).

    .venv/bin/python -m benchmarks.web_load [--clients 50] [--seconds 20] [--think 0.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from zanzibar_env.train.results.repro import cpu_model


async def _request(
    conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    """One HTTP/1.1 request on a kept-alive connection; the status and the decoded JSON."""
    reader, writer = conn
    data = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
    writer.write(head.encode() + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return status, json.loads(await reader.readexactly(length)) if length else None


async def _client(port: int, deadline: float, think: float, seed: int, out: dict[str, list]) -> None:
    conn = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.monotonic() < deadline:
            t0 = time.perf_counter()
            status, state = await _request(
                conn, "POST", "/api/games", {"bots": ["greedy"], "hints": True, "seed": seed}
            )
            out["other"].append(time.perf_counter() - t0)
            if status != 200:
                out["errors"].append(status)
                await asyncio.sleep(0.2)
                continue
            seed += 1000
            while not state["over"] and time.monotonic() < deadline:
                await asyncio.sleep(think)
                t0 = time.perf_counter()
                status, r = await _request(
                    conn, "POST", f"/api/games/{state['id']}/move", {"action": state["hints"][0]["action"]}
                )
                out["move"].append(time.perf_counter() - t0)
                if status != 200:
                    out["errors"].append(status)
                    break
                state = r["state"]
            await _request(conn, "DELETE", f"/api/games/{state['id']}")
    finally:
        conn[1].close()


def _in_process(moves: int) -> list[float]:
    """The reference: the same move with hints, in-process (no HTTP, no JSON)."""
    from zanzibar_env.core.rules import load_ruleset
    from zanzibar_env.web.games import GameStore

    store, seed = GameStore(max_games=4), 0
    times: list[float] = []
    while len(times) < moves:
        s = store.open(load_ruleset("classic"), 2, ["greedy"], 0, True, seed)
        while not s.game.done and len(times) < moves:
            action = s.state()["hints"][0]["action"]
            t0 = time.perf_counter()
            s.move(action)
            s.state()
            times.append(time.perf_counter() - t0)
        store.close(s.id)
        seed += 1
    return times


def _pct(xs: list[float], q: float) -> float:
    return 1000 * statistics.quantiles(xs, n=100)[int(q) - 1] if len(xs) > 1 else float("nan")


async def _run(port: int, args: argparse.Namespace) -> dict[str, list]:
    out: dict[str, list] = {"move": [], "other": [], "errors": []}
    deadline = time.monotonic() + args.seconds
    await asyncio.gather(*(_client(port, deadline, args.think, k, out) for k in range(args.clients)))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--clients", type=int, default=50, help="concurrent clients (1-200)")
    p.add_argument("--seconds", type=float, default=20.0, help="length of the run (1-120)")
    p.add_argument("--think", type=float, default=0.5, help="seconds a client waits between moves (0-10)")
    args = p.parse_args()
    if not 1 <= args.clients <= 200 or not 1 <= args.seconds <= 120 or not 0 <= args.think <= 10:
        p.error("--clients must be 1-200, --seconds 1-120 and --think 0-10")
    ref = _in_process(300)
    cmd = [sys.executable, "-m", "zanzibar_env.web.cli", "--port", "0", "--max-games", str(4 * args.clients)]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        port = int(line.split()[3].rstrip("/").rsplit(":", 1)[1])
        t0 = time.perf_counter()
        out = asyncio.run(_run(port, args))
        wall = time.perf_counter() - t0
    finally:
        server.terminate()
        server.wait(timeout=30)
    moves, total = out["move"], len(out["move"]) + len(out["other"])
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"CPU: {cpu_model()}  (cores: {os.cpu_count()}; load average during the run: {load})")
    print(
        f"clients {args.clients}, think {args.think:g} s, {wall:.1f} s: {total} requests, {total / wall:.1f} requests/s"
    )
    print(
        f"move with hints over HTTP: {len(moves)} moves, p50 {_pct(moves, 50):.1f} ms, p95 {_pct(moves, 95):.1f} ms"
    )
    print(f"reference, the same move in-process: p50 {_pct(ref, 50):.1f} ms, p95 {_pct(ref, 95):.1f} ms")
    print(f"ratio HTTP / in-process at p50: {_pct(moves, 50) / _pct(ref, 50):.1f}")
    print(f"errors: {len(out['errors'])} {sorted(set(out['errors']))}")


if __name__ == "__main__":
    main()
