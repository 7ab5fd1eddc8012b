"""The arena's routes: a Starlette app serving one HTML page, its script, and a small JSON API.

``create_app(config)`` builds it; ``zanzibar serve`` (:mod:`.cli`) runs it with uvicorn. Every handler
checks its input (:mod:`.checks`), runs its work in a worker thread under a time limit, and answers
errors as ``{"error": "..."}`` with a 4xx/5xx status, never a traceback.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zanzibar_env.extras import requires_extra

with requires_extra("web", "the arena (zanzibar serve)"):
    import anyio
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Route

from zanzibar_env.core.rules import available_rulesets
from zanzibar_env.ui.render_cli import load_record
from zanzibar_env.ui.svg import record_snapshots, snapshot_svg
from zanzibar_env.ui.table import Snapshot

from . import checks
from .games import GameStore, Refused
from .hints import ask_view, hold_values, hold_words, what_values_mean
from .rules_help import rules_help
from .tournaments import TournamentStore

log = logging.getLogger("zanzibar_env.web")
STATIC = Path(__file__).parent / "static"
_FILES = {"app.js": "text/javascript", "style.css": "text/css"}


@dataclass(frozen=True)
class Config:
    """The server's limits (``zanzibar serve --help`` names each)."""

    replays: Path | None = None  # the only folder replays are read from
    max_games: int = 64
    idle_seconds: float = 1800.0
    request_seconds: float = 10.0
    max_tournament_games: int = 500
    workers: int = 4


class Arena:
    """The state behind the routes: open games, tournaments, replay frames (a small LRU cache)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.games = GameStore(config.max_games, config.idle_seconds)
        self.tournaments = TournamentStore()
        #: worker threads of the requests: a few (many threads only take turns on the interpreter lock)
        self.workers = anyio.CapacityLimiter(config.workers)
        self._frames: OrderedDict[tuple[str, float, int], list[Snapshot]] = OrderedDict()
        self._lock = threading.Lock()

    def frames(self, path: Path, game: int) -> list[Snapshot]:
        key = (str(path), path.stat().st_mtime, game)
        with self._lock:
            if key in self._frames:
                self._frames.move_to_end(key)
                return self._frames[key]
        try:
            snaps = list(record_snapshots(load_record(path, game)))
        except ValueError as e:
            raise Refused(str(e).replace(str(path.parent), "<replays>"), 422) from None
        with self._lock:
            self._frames[key] = snaps
            while len(self._frames) > 16:
                self._frames.popitem(last=False)
        return snaps


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _work(request: Request, fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a worker thread; answer 504 if it takes longer than the request limit."""
    limit = request.app.state.arena.config.request_seconds
    with anyio.move_on_after(limit) as scope:
        return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True, limiter=_arena(request).workers)
    if scope.cancelled_caught:
        raise Refused(f"the request took longer than {limit:g} s; try again (solved tables are cached)", 504)


async def _body(request: Request) -> dict[str, Any]:
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > checks.MAX_BODY:
        raise Refused(f"request body over {checks.MAX_BODY} bytes", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > checks.MAX_BODY:
            raise Refused(f"request body over {checks.MAX_BODY} bytes", 413)
    return checks.parse_json(body)


def _arena(request: Request) -> Arena:
    arena: Arena = request.app.state.arena
    return arena


# ---- pages and facts -------------------------------------------------------------------------------
async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in _FILES:
        raise Refused(f"no file {name[:60]!r}", 404)
    return FileResponse(STATIC / name, media_type=_FILES[name])


async def meta(request: Request) -> Response:
    arena = _arena(request)
    return JSONResponse(
        {
            "rulesets": available_rulesets(),
            "bots": checks.bot_names(),
            "replays": arena.config.replays is not None,
            "max_games": arena.config.max_games,
        }
    )


async def rules(request: Request) -> Response:
    data = checks.ruleset({"ruleset": request.path_params["name"]})
    return JSONResponse(rules_help(data))


# ---- games -----------------------------------------------------------------------------------------
async def new_game(request: Request) -> Response:
    data = await _body(request)
    rules, n = checks.ruleset(data), checks.players(data)
    bots = checks.bots(data, most=n - 1)
    seat = checks.integer(data, "seat", 0, n - 1, 0)
    hints = checks.flag(data, "hints")
    seed = checks.integer(data, "seed", 0, 2**31 - 1, secrets.randbelow(2**31))
    arena = _arena(request)
    session = await _work(request, lambda: arena.games.open(rules, n, bots, seat, hints, seed))
    return JSONResponse(await _work(request, lambda: _locked(session, session.state)))


def _locked(session: Any, fn: Callable[[], Any]) -> Any:
    if not session.lock.acquire(timeout=5):
        raise Refused("this game is still busy with an earlier request", 409)
    try:
        return fn()
    finally:
        session.lock.release()


async def game_state(request: Request) -> Response:
    session = _arena(request).games.get(request.path_params["gid"])
    return JSONResponse(await _work(request, lambda: _locked(session, session.state)))


async def close_game(request: Request) -> Response:
    _arena(request).games.close(request.path_params["gid"])
    return JSONResponse({"closed": True})


async def move(request: Request) -> Response:
    data = await _body(request)
    action = checks.integer(data, "action", 0, 7)
    session = _arena(request).games.get(request.path_params["gid"])

    def play() -> dict[str, Any]:
        feedback = session.move(action)
        return {"feedback": feedback, "state": session.state()}

    return JSONResponse(await _work(request, lambda: _locked(session, play)))


async def set_hints(request: Request) -> Response:
    data = await _body(request)
    on = checks.flag(data, "hints")
    session = _arena(request).games.get(request.path_params["gid"])

    def toggle() -> dict[str, Any]:
        session.hints = on
        return session.state()

    return JSONResponse(await _work(request, lambda: _locked(session, toggle)))


async def record(request: Request) -> Response:
    session = _arena(request).games.get(request.path_params["gid"])
    text = session.game.record.to_json() + "\n"
    headers = {"Content-Disposition": 'attachment; filename="zanzibar-game.jsonl"'}
    return Response(text, media_type="application/json", headers=headers)


async def game_replay(request: Request) -> Response:
    session = _arena(request).games.get(request.path_params["gid"])
    if not session.game.done:
        raise Refused("a game is replayed once it is over", 409)
    snaps = await _work(request, lambda: list(record_snapshots(session.game.record, session.seat)))
    return JSONResponse(_frame(snaps, request))


def _frame(snaps: list[Snapshot], request: Request) -> dict[str, Any]:
    step = _int_param(request, "step", 0)
    if step >= len(snaps):
        raise Refused(f"step must be 0-{len(snaps) - 1}, got {step}")
    s = snaps[step]
    return {
        "step": step,
        "steps": len(snaps),
        "svg": snapshot_svg(s),
        "status": s.status,
        "last": s.last_round,
    }


# ---- replays, tournaments, the solved policy ---------------------------------------------------------
async def replay_list(request: Request) -> Response:
    folder = _arena(request).config.replays
    if folder is None:
        return JSONResponse(
            {"files": [], "note": "start the server with --replays DIR to replay saved games"}
        )
    files = sorted(p for p in folder.iterdir() if p.suffix in (".jsonl", ".json") and p.is_file())[:500]
    return JSONResponse({"files": [p.name for p in files]})


async def replay_frame(request: Request) -> Response:
    arena = _arena(request)
    path = checks.replay_file(arena.config.replays, request.path_params["name"])
    game = _int_param(request, "game", 1)
    snaps = await _work(request, lambda: arena.frames(path, game))
    return JSONResponse(_frame(snaps, request))


def _int_param(request: Request, key: str, default: int) -> int:
    raw = request.query_params.get(key, str(default))
    if not raw.isdigit() or len(raw) > 7:
        raise Refused(f"{key} must be a whole number, got {raw[:20]!r}")
    return int(raw)


async def start_tournament(request: Request) -> Response:
    data = await _body(request)
    arena = _arena(request)
    rules, n = checks.ruleset(data), checks.players(data)
    lineup = checks.bots(data, "bots", 8)
    games = checks.integer(data, "games", 1, arena.config.max_tournament_games, 20)
    seed = checks.integer(data, "seed", 0, 2**31 - 1, 0)
    t = await _work(request, lambda: arena.tournaments.start(rules, lineup, n, games, seed))
    return JSONResponse(t.report())


async def tournament(request: Request) -> Response:
    return JSONResponse(_arena(request).tournaments.get(request.path_params["tid"]).report())


async def ask(request: Request) -> Response:
    data = await _body(request)
    rules, n = checks.ruleset(data), checks.players(data)
    roll = checks.integer(data, "roll", 1, 10, 1)
    first = checks.integer(data, "first_rolls", 1, 10, rules.max_rolls)

    def answer() -> dict[str, Any]:
        view = ask_view(rules, n, data.get("hands", []), first, data.get("dice"), roll)
        values = hold_values(view)
        rows = values.rows()
        margin = rows[0]["value"] - rows[1]["value"] if len(rows) > 1 else 0.0
        return {
            "seat": view.seat,
            "roll_limit": view.roll_limit,
            "best": values.best,
            "best_text": hold_words(view.dice, values.best),
            "margin": round(margin, 6),
            "values": rows,
            "values_mean": what_values_mean(rules),
        }

    return JSONResponse(await _work(request, answer))


# ---- errors ------------------------------------------------------------------------------------------
async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return _error(exc.status, str(exc))


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(exc.status_code, str(exc.detail))


async def bad_value(request: Request, exc: Exception) -> Response:
    return _error(400, str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__)


async def crashed(request: Request, exc: Exception) -> Response:
    log.exception("request %s failed", request.url.path)
    return _error(500, f"internal error ({type(exc).__name__}); the server keeps serving")


def create_app(config: Config | None = None) -> Starlette:
    """The arena as an ASGI app (``Config()``: no replay folder, the default limits)."""
    routes = [
        Route("/", index),
        Route("/static/{name}", static),
        Route("/api/meta", meta),
        Route("/api/rules/{name}", rules),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{gid}", game_state),
        Route("/api/games/{gid}", close_game, methods=["DELETE"]),
        Route("/api/games/{gid}/move", move, methods=["POST"]),
        Route("/api/games/{gid}/hints", set_hints, methods=["POST"]),
        Route("/api/games/{gid}/record", record),
        Route("/api/games/{gid}/replay", game_replay),
        Route("/api/replays", replay_list),
        Route("/api/replays/{name}", replay_frame),
        Route("/api/tournaments", start_tournament, methods=["POST"]),
        Route("/api/tournaments/{tid}", tournament),
        Route("/api/ask", ask, methods=["POST"]),
    ]
    handlers: dict[Any, Any] = {
        Refused: refused,
        HTTPException: http_error,
        ValueError: bad_value,
        Exception: crashed,
    }
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.arena = Arena(config or Config())
    return app
