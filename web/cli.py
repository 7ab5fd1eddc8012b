"""``zanzibar serve``: run the arena on this machine (``python -m zanzibar_env.web.cli``).

Binds 127.0.0.1 (this machine only) unless ``--host`` says otherwise, and prints the address.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
from collections.abc import Sequence
from pathlib import Path

from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.extras import requires_extra


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.web.cli"), description="The Zanzibar arena in a web browser."
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    p.add_argument("--replays", default=None, help="folder of saved games (*.jsonl) the replay page may read")
    p.add_argument("--max-games", type=int, default=64, help="games open at once (more are refused)")
    p.add_argument("--idle-minutes", type=float, default=30.0, help="a game untouched this long expires")
    p.add_argument("--request-seconds", type=float, default=10.0, help="time limit of one request")
    return p


def _check(args: argparse.Namespace) -> Path | None:
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0-65535, got {args.port}")
    if not 1 <= args.max_games <= 10_000:
        raise ValueError(f"--max-games must be 1-10000, got {args.max_games}")
    if not 0 < args.idle_minutes <= 24 * 60 or not 0 < args.request_seconds <= 600:
        raise ValueError("--idle-minutes must be in (0, 1440] and --request-seconds in (0, 600]")
    if args.replays is None:
        return None
    folder = Path(args.replays)
    if not folder.is_dir():
        raise ValueError(f"--replays {args.replays!r} is not a folder")
    return folder.resolve()


def _is_local(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the options, print the address and serve until Ctrl-C."""
    p = _parser()
    args = p.parse_args(argv)
    try:
        replays = _check(args)
    except ValueError as e:
        p.error(str(e))
    with requires_extra("web", "zanzibar serve"):
        import uvicorn

        from .app import Config, create_app
    config = Config(replays, args.max_games, args.idle_minutes * 60, args.request_seconds)
    sock = _bind(args.host, args.port)
    port = sock.getsockname()[1]
    where = "this machine only" if _is_local(args.host) else "REACHABLE FROM OTHER MACHINES"
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Zanzibar arena on http://{host}:{port}/ ({where}; Ctrl-C stops it)", flush=True)
    server = uvicorn.Server(
        uvicorn.Config(create_app(config), log_level="warning", timeout_keep_alive=5, limit_concurrency=256)
    )
    server.run(sockets=[sock])
    return 0


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (``ValueError`` naming the address if it cannot be bound)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock


if __name__ == "__main__":
    raise SystemExit(run_command(main, "serve"))
