"""Results pinned by content and version; custom ruleset files everywhere; run_tournament from a plain script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import zanzibar_env as zz
from zanzibar_env.core.provenance import RECORD_FORMAT, engine_version, ruleset_digest
from zanzibar_env.core.records import GameRecord

ROOT = Path(__file__).resolve().parents[2]


def _ruleset_file(tmp_path: Path, base: str, name: str, **changes: object) -> Path:
    options = {**zz.load_ruleset(base).to_dict(), "name": name, **changes}
    path = tmp_path / f"{name}_{base}.yaml"
    path.write_text(yaml.safe_dump(options))
    return path


# ---- rulesets by content -----------------------------------------------------------------------------
def test_digest_is_the_content_not_the_name_or_path(tmp_path: Path) -> None:
    classic = zz.load_ruleset("classic")
    same = zz.load_ruleset(_ruleset_file(tmp_path, "classic", "classic"))
    assert ruleset_digest(same) == ruleset_digest(classic)
    assert ruleset_digest(classic.replace(starting_stack=5)) != ruleset_digest(classic)
    assert ruleset_digest(classic.replace(name="other")) != ruleset_digest(classic)  # the name is content


def test_tournament_with_a_custom_ruleset_file(tmp_path: Path) -> None:
    from zanzibar_env.train.tournament import main

    rules = _ruleset_file(tmp_path, "classic", "my_rules", starting_stack=5)
    out = tmp_path / "D"
    assert main(["--agents", "random,greedy", "--players", "2", "--games", "8", "--ruleset", str(rules),
                 "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    doc = json.loads((out / "results.json").read_text())
    assert doc["format"] == 2 and doc["engine"] == engine_version() and doc["complete"] is True
    assert doc["ruleset"] == "my_rules" and doc["ruleset_sha256"] == ruleset_digest(zz.load_ruleset(rules))
    assert doc["ruleset_options"]["starting_stack"] == 5
    assert json.loads((out / "run.json").read_text())["format"] == 2


def test_a_lives_ruleset_named_classic_is_reported_in_lives(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from zanzibar_env.train.tournament import main, run_tournament
    from zanzibar_env.train.tournament.stats import result_unit

    rules = zz.load_ruleset(_ruleset_file(tmp_path, "lives", "classic"))
    assert rules.stake == "lives"
    result = run_tournament(["random", "greedy"], players=2, games=4, ruleset=rules, progress=False)
    assert result.rules is rules and "lives" in result_unit(result.rules)
    path = tmp_path / "lives_classic.yaml"
    path.write_text(yaml.safe_dump(rules.to_dict()))
    assert main(["--agents", "random,greedy", "--players", "2", "--games", "4", "--ruleset", str(path),
                 "--no-progress"]) == 0  # fmt: skip
    assert "lives change / round" in capsys.readouterr().out


# ---- records: format and engine -------------------------------------------------------------------
def test_records_carry_format_engine_and_digest() -> None:
    rec = zz.play_game("classic", num_players=2, seed=1, max_rounds=3)
    d = rec.to_dict()
    assert d["format"] == RECORD_FORMAT and d["engine"] == engine_version()
    assert d["ruleset_sha256"] == ruleset_digest(zz.load_ruleset("classic"))
    assert GameRecord.from_json(rec.to_json()).to_dict() == d


def test_an_old_record_loads_and_a_failed_replay_says_which_version(tmp_path: Path) -> None:
    from zanzibar_env.ui.replay import verify

    d = zz.play_game("classic", num_players=2, seed=1, max_rounds=3).to_dict()
    old = {k: v for k, v in d.items() if k not in ("format", "engine", "ruleset_sha256")}
    rec = GameRecord.from_dict(old)
    assert rec.format == 1 and "format" not in rec.to_dict()
    assert verify(rec)[0]  # a genuine old record still replays
    old["ruleset"]["starting_stack"] = 7  # as if the rules had changed between versions
    ok, verdict = verify(GameRecord.from_dict(old))
    assert (
        not ok and "record format 1 from an earlier zanzibar-env" in verdict and "this is format 2" in verdict
    )


def test_a_newer_record_format_is_refused_plainly(tmp_path: Path) -> None:
    d = zz.play_game("classic", num_players=2, seed=1, max_rounds=3).to_dict()
    d.update(format=RECORD_FORMAT + 1, engine="zanzibar-env 9.0.0")
    path = tmp_path / "new.jsonl"
    path.write_text(json.dumps(d) + "\n")
    with pytest.raises(ValueError, match=r"record format 3 from zanzibar-env 9\.0\.0; this is format 2"):
        zz.load_games(path)


def test_an_edited_ruleset_fails_its_digest(tmp_path: Path) -> None:
    from zanzibar_env.ui.replay import verify

    d = zz.play_game("classic", num_players=2, seed=1, max_rounds=3).to_dict()
    d["ruleset"]["description"] = "edited"
    ok, verdict = verify(GameRecord.from_dict(d))
    assert not ok and "ruleset_sha256" in verdict


# ---- run_tournament from a plain script ---------------------------------------------------------------
SCRIPT = """
import warnings
{imports}
import numpy as np
from zanzibar_env.agents.policy import PolicyAgent
from zanzibar_env.train.tournament import run_tournament

agent = PolicyAgent(lambda obs: np.full(len(obs), 7), output="actions")  # always stop: a lambda policy
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    r = run_tournament(["random", agent], players=2, games=8, jobs=2, progress=False)
serial = run_tournament(["random", agent], players=2, games=8, jobs=1, progress=False)
assert r.games == serial.games, "jobs=2 and jobs=1 differ"
print("WARN", [str(w.message) for w in caught])
print("OK", len(r.games))
"""


@pytest.mark.parametrize("torch_loaded", [False, True])
def test_run_tournament_from_a_script_without_main_guard(tmp_path: Path, torch_loaded: bool) -> None:
    script = tmp_path / "plain.py"
    script.write_text(SCRIPT.format(imports="import torch" if torch_loaded else ""))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert "OK 8" in out.stdout
    if torch_loaded:  # spawn would re-run this unguarded script: played here, with a warning saying why
        assert "playing in this process" in out.stdout and "__main__" in out.stdout
    else:
        assert "WARN []" in out.stdout  # fork: a real pool, no guard needed, the lambda never pickled
