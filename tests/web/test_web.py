"""The arena (``zanzibar serve``) through Starlette's TestClient: play, hints, replays, tournaments, the
solved policy, and hostile requests (each refused with a clear JSON error while the server keeps serving)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

import zanzibar_env as zz
from tests.web.web_oracle import exact_values, seat_views
from zanzibar_env.web import games as web_games
from zanzibar_env.web.app import Config, create_app
from zanzibar_env.web.hints import ask_view

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    rec = zz.play_game("classic", zz.make_agent("greedy"), num_players=2, seed=3)
    rec.save(tmp_path / "saved.jsonl")
    (tmp_path / "notes.jsonl").write_text("not a record\n")
    (tmp_path.parent / "outside.jsonl").write_text(rec.to_json() + "\n")
    return TestClient(create_app(Config(replays=tmp_path, max_games=8)), raise_server_exceptions=False)


def _play(client: TestClient, body: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play a game to its end, choosing the second-listed legal hold; the final state and the feedback."""
    state = client.post("/api/games", json=body).json()
    feedback = []
    for _ in range(2000):
        if state["over"]:
            break
        legal = [h["action"] for h in state["legal"]]
        hints = {h["action"]: h["value"] for h in state.get("hints", [])}
        r = client.post(
            f"/api/games/{state['id']}/move", json={"action": legal[min(1, len(legal) - 1)]}
        ).json()
        assert {v["action"]: v["value"] for v in r["feedback"]["values"]} == hints
        feedback.append(r["feedback"])
        state = r["state"]
    assert state["over"]
    return state, feedback


@pytest.mark.parametrize(("ruleset", "players"), [("classic", 2), ("lives", 3)])
def test_a_whole_game_with_exact_hints(client: TestClient, ruleset: str, players: int) -> None:
    body = {"ruleset": ruleset, "players": players, "bots": ["greedy"], "hints": True, "seed": 5, "seat": 1}
    state, feedback = _play(client, body)
    text = client.get(f"/api/games/{state['id']}/record").text
    record = zz.GameRecord.from_json(text)
    decisions = list(seat_views(record, seat=1))
    assert len(decisions) == len(feedback) > 0
    for (view, action), fb in zip(decisions, feedback, strict=True):
        exact = exact_values(view)
        shown = {v["action"]: v["value"] for v in fb["values"]}
        assert shown.keys() == exact.keys() and fb["action"] == action
        assert all(abs(shown[a] - exact[a]) < 1e-5 for a in exact)
        assert abs(fb["cost"] - (max(exact.values()) - exact[action])) < 1e-5
    replay = client.get(f"/api/games/{state['id']}/replay", params={"step": 0}).json()
    last = client.get(f"/api/games/{state['id']}/replay", params={"step": replay["steps"] - 1}).json()
    assert "<svg" in last["svg"] and ("win" in last["status"] or "No winner" in last["status"])


def test_hints_toggle_and_capped_payments_are_explained(client: TestClient) -> None:
    state = client.post("/api/games", json={"bots": ["optimal"], "seed": 2}).json()
    assert "hints" not in state
    state = client.post(f"/api/games/{state['id']}/hints", json={"hints": True}).json()
    assert state["hints"][0]["loss"] == 0
    rules = zz.load_ruleset("classic")
    rec = zz.RoundRecord(0, [1, 5], 3, losers=[1], winner=0, transfers=[-1, 1], stacks_after=[0, 6])
    rec.turns = [zz.TurnRecord(0, category="zanzibar"), zz.TurnRecord(1, category="points")]
    from zanzibar_env.web.rules_help import capped_payments

    (line,) = capped_payments(rec, rules, ["You", "Player 2"])
    assert "owed 4 chips but held only 1" in line


def test_ask_the_solved_policy(client: TestClient) -> None:
    body = {
        "ruleset": "classic",
        "players": 3,
        "hands": [[1, 1, 1]],
        "first_rolls": 2,
        "dice": [2, 5, 6],
        "roll": 1,
    }
    r = client.post("/api/ask", json=body).json()
    view = ask_view(zz.load_ruleset("classic"), 3, [[1, 1, 1]], 2, [2, 5, 6], 1)
    assert view.roll_limit == 2 and view.lowest is not None and view.lowest.dice == (1, 1, 1)
    exact = exact_values(view)
    assert r["best"] == max(exact, key=exact.get) and r["roll_limit"] == 2 and r["seat"] == 1
    second = sorted(exact.values())[-2]
    assert abs(r["margin"] - (max(exact.values()) - second)) < 1e-5


def test_replays_from_the_folder_given_at_start(client: TestClient) -> None:
    assert client.get("/api/replays").json()["files"] == ["notes.jsonl", "saved.jsonl"]
    first = client.get("/api/replays/saved.jsonl", params={"game": 1, "step": 0}).json()
    end = client.get("/api/replays/saved.jsonl", params={"game": 1, "step": first["steps"] - 1}).json()
    assert "wins" in end["status"]
    bad = client.get("/api/replays/notes.jsonl")
    assert bad.status_code == 422 and "not a game record" in bad.json()["error"]
    assert str(ROOT) not in bad.json()["error"]


def test_a_tournament_fills_live(client: TestClient) -> None:
    t = client.post("/api/tournaments", json={"bots": ["random", "greedy"], "games": 6, "seed": 1}).json()
    for _ in range(200):
        t = client.get(f"/api/tournaments/{t['id']}").json()
        if t["done"]:
            break
        time.sleep(0.05)
    assert t["played"] == 6 and not t["error"]
    assert sum(r["seats"] for r in t["standings"]) == 12
    assert all(0 <= r["low"] <= r["rate"] <= r["high"] <= 1 for r in t["standings"])


def test_pages_and_rules(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "Zanzibar arena" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/app.py").status_code == 404
    rules = client.get("/api/rules/lives").json()
    assert rules["name"] == "lives" and any("lives" in line for line in rules["rules"])


# ---- hostile requests --------------------------------------------------------------------------------
_HOSTILE = [
    ("post", "/api/games", b"{not json", 400, "not valid JSON"),
    ("post", "/api/games", b"[1, 2]", 400, "must be a JSON object"),
    ("post", "/api/games", json.dumps({"bots": ["nobody"]}).encode(), 400, "unknown bot"),
    ("post", "/api/games", json.dumps({"bots": ["os:system"]}).encode(), 400, "registry name only"),
    ("post", "/api/games", json.dumps({"bots": ["ppo:/etc/passwd"]}).encode(), 400, "registry name only"),
    ("post", "/api/games", json.dumps({"bots": ["../models/x"]}).encode(), 400, "registry name only"),
    ("post", "/api/games", json.dumps({"ruleset": "/etc/passwd"}).encode(), 400, "unknown ruleset"),
    ("post", "/api/games", json.dumps({"players": 9}).encode(), 400, "players must be an integer 2-8"),
    ("post", "/api/games", json.dumps({"players": True}).encode(), 400, "players must be"),
    ("post", "/api/games", json.dumps({"hints": "yes"}).encode(), 400, "hints must be true or false"),
    ("post", "/api/games", b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}", 400, "not valid JSON"),
    ("post", "/api/games", b"{" + b" " * 20000 + b"}", 413, "over 16384 bytes"),
    ("post", "/api/games/nope/move", json.dumps({"action": 7}).encode(), 404, "no open game"),
    ("get", "/api/replays/..%2F..%2Fetc%2Fpasswd", b"", 404, "Not Found"),  # a folder part: no such route
    ("get", "/api/replays/..%2Foutside.jsonl", b"", 404, "Not Found"),
    ("get", "/api/replays/..%5Coutside.jsonl", b"", 400, "not a replay file name"),
    ("get", "/api/replays/..outside.jsonl", b"", 400, "not a replay file name"),
    ("get", "/api/replays/.hidden.jsonl", b"", 400, "not a replay file name"),
    ("get", "/api/replays/%2Fetc%2Fpasswd", b"", 404, "Not Found"),
    ("get", "/api/replays/missing.jsonl", b"", 404, "no replay file"),
    ("get", "/api/replays/saved.jsonl?step=99999", b"", 400, "step must be 0-"),
    ("get", "/api/replays/saved.jsonl?game=-1", b"", 400, "game must be a whole number"),
    ("get", "/api/rules/..%2F..%2Fsecret", b"", 404, "Not Found"),
    ("get", "/api/rules/..secret", b"", 400, "unknown ruleset"),
    ("post", "/api/ask", json.dumps({"dice": [7, 1, 1]}).encode(), 400, "three dice"),
    ("post", "/api/ask", json.dumps({"dice": [1, 2, 3], "roll": 3}).encode(), 400, "roll must be 1-2"),
    (
        "post",
        "/api/tournaments",
        json.dumps({"bots": ["random"], "games": 10**6}).encode(),
        400,
        "games must be",
    ),
    (  # a learned bot made for 2 players is not seated at 4, in a game or a tournament
        "post",
        "/api/games",
        json.dumps({"players": 4, "bots": ["ppo_classic_2p"]}).encode(),
        422,
        "made for tables of 2 players, this table has 4",
    ),
    (
        "post",
        "/api/tournaments",
        json.dumps({"players": 3, "bots": ["ppo_classic_2p", "greedy"], "games": 2}).encode(),
        422,
        "this table has 3",
    ),
    (
        "post",
        "/api/games",
        json.dumps({"ruleset": "simple_scoring", "bots": ["ppo_classic_2p"]}).encode(),
        422,
        "cannot play in the arena under 'simple_scoring'",
    ),
    ("get", "/api/nothing", b"", 404, "Not Found"),
    ("delete", "/api/games", b"", 405, "Method Not Allowed"),
]


@pytest.mark.parametrize(("method", "url", "body", "status", "message"), _HOSTILE)
def test_hostile_requests_get_a_clear_refusal(
    client: TestClient, method: str, url: str, body: bytes, status: int, message: str
) -> None:
    r = client.request(method, url, content=body or None, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text
    assert client.get("/api/meta").status_code == 200  # still serving


def test_a_chunked_body_over_the_cap_is_refused(client: TestClient) -> None:
    def chunks() -> Any:
        for _ in range(100):
            yield b" " * 1024

    r = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_moves_out_of_turn_or_illegal(client: TestClient) -> None:
    state = client.post("/api/games", json={"bots": ["greedy"], "seed": 1}).json()
    url = f"/api/games/{state['id']}/move"
    assert "action must be an integer 0-7" in client.post(url, json={"action": 8}).json()["error"]
    assert client.post(url, json={"action": "7"}).status_code == 400
    r = client.post(f"/api/games/{state['id']}/replay")
    assert r.status_code == 405
    assert client.get(f"/api/games/{state['id']}/replay").status_code == 409


def test_thousands_of_games_are_refused_and_the_server_keeps_serving(client: TestClient) -> None:
    codes = [client.post("/api/games", json={"bots": ["random"], "seed": k}).status_code for k in range(1000)]
    assert codes[:8] == [200] * 8 and set(codes[8:]) == {429}
    r = client.post("/api/games", json={"bots": ["random"]})
    assert "too many open games (8)" in r.json()["error"]
    assert client.get("/api/meta").status_code == 200


def test_idle_games_expire() -> None:
    client = TestClient(create_app(Config(idle_seconds=0.05, max_games=1)))
    gid = client.post("/api/games", json={"bots": ["random"]}).json()["id"]
    time.sleep(0.1)
    assert client.get(f"/api/games/{gid}").status_code == 404
    assert client.post("/api/games", json={"bots": ["random"]}).status_code == 200  # its place is free


def test_slow_and_failing_requests_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    client = TestClient(create_app(Config(request_seconds=0.2)), raise_server_exceptions=False)
    state = client.post("/api/games", json={"bots": ["random"], "seed": 1}).json()
    monkeypatch.setattr(web_games, "hold_values", lambda view: time.sleep(1))
    r = client.post(f"/api/games/{state['id']}/move", json={"action": 7})
    assert r.status_code == 504 and "longer than 0.2 s" in r.json()["error"]

    def boom(view: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(web_games, "hold_values", boom)
    state = client.post("/api/games", json={"bots": ["random"], "seed": 2}).json()
    r = client.post(f"/api/games/{state['id']}/move", json={"action": 7})
    assert r.status_code == 500 and "internal error (RuntimeError)" in r.json()["error"]
    assert "Traceback" not in r.text
    monkeypatch.undo()
    again = client.get(f"/api/games/{state['id']}").json()  # the failed move left the game as it was
    assert again["your_turn"] and again["decisions"] == 0


def test_serve_binds_localhost_and_prints_its_address(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "zanzibar_env.ui.cli", "serve", "--port", "0", "--replays", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("Zanzibar arena on http://127.0.0.1:") and "this machine only" in line
        import urllib.request

        url = line.split()[3]
        with urllib.request.urlopen(url + "api/meta", timeout=10) as resp:
            assert "classic" in json.loads(resp.read())["rulesets"]
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_serve_refuses_bad_options(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "zanzibar_env.ui.cli", "serve", "--replays", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "is not a folder" in out.stderr


def test_a_closed_game_frees_its_place() -> None:
    client = TestClient(create_app(Config(max_games=1)))
    gid = client.post("/api/games", json={"bots": ["random"]}).json()["id"]
    assert client.post("/api/games", json={"bots": ["random"]}).status_code == 429
    assert client.delete(f"/api/games/{gid}").json() == {"closed": True}
    assert client.get(f"/api/games/{gid}").status_code == 404
    assert client.post("/api/games", json={"bots": ["random"]}).status_code == 200


def test_a_state_without_exact_values_is_played_without_them(monkeypatch: pytest.MonkeyPatch) -> None:
    client = TestClient(create_app())
    state = client.post("/api/games", json={"bots": ["random"], "seed": 4, "hints": True}).json()

    def no_table(view: Any) -> Any:
        raise ValueError("no table for this state")

    monkeypatch.setattr(web_games, "hold_values", no_table)
    r = client.post(f"/api/games/{state['id']}/move", json={"action": 7}).json()
    assert r["feedback"]["cost"] is None and "no table for this state" in r["feedback"]["note"]
    if not r["state"]["over"]:
        assert "no table" in r["state"]["hints_error"]


def test_a_bot_made_for_other_tables_is_refused_without_an_opt_in_the_arena_lacks(client: TestClient) -> None:
    r = client.post("/api/games", json={"players": 4, "bots": ["ppo_classic_2p"]})
    assert r.status_code == 422 and "made for tables of 2 players" in r.json()["error"]
    assert "to play it anyway" not in r.json()["error"]
