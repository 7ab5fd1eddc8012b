"""Hostile timing and files: no lost result.

Two tournaments racing into one ``--out``, SIGTERM during a tournament, a signal just after the last game,
Ctrl-C / SIGTERM during JAX training, a run directory without room, and a replay file with one bad record.
Each case pairs an input with the message it now gets and checks what was kept on disk."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from zanzibar_env.core.interrupts import EXIT_TERMINATED, deferred_interrupts
from zanzibar_env.core.safe_io import CLAIM_NAME, DirClaim, check_free_space

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def _popen(args: list[str], err: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, env=ENV, text=True, stdout=subprocess.PIPE,
                            stderr=err)  # fmt: skip


def _wait_for(predicate: Any, seconds: float = 240.0) -> None:
    end = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


# ---- the claim on an output directory -------------------------------------------------------------
def test_a_second_run_cannot_claim_a_directory_in_use(tmp_path: Path) -> None:
    out = tmp_path / "D"
    with DirClaim(out):
        assert (out / CLAIM_NAME).read_text().strip() == str(os.getpid())
        with pytest.raises(ValueError, match=r"--out '.*D' is being written by another run \(process \d+\)"):
            DirClaim(out).__enter__()
    assert not out.exists()  # made for the run, left empty: removed again


def test_a_stale_claim_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "D"
    out.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (out / CLAIM_NAME).write_text(f"{dead.pid}\n")
    with DirClaim(out):
        assert (out / CLAIM_NAME).read_text().strip() == str(os.getpid())


def test_two_tournaments_into_one_out_the_second_is_refused(tmp_path: Path, capsys: Any) -> None:
    from zanzibar_env.train.tournament.cli import main

    out = tmp_path / "D"
    args = ["--agents", "random,greedy", "--players", "2", "--games", "4", "--no-progress", "--out", str(out)]
    with DirClaim(out):  # the first tournament, still playing
        assert main(args) == 2
    assert "is being written by another run" in capsys.readouterr().err
    assert main(args) == 0  # the first one done: the outputs are written
    first = (out / "results.json").read_text()
    assert main(args) == 2  # and never replaced without --force
    assert "already holds" in capsys.readouterr().err and (out / "results.json").read_text() == first


def test_outputs_that_appear_during_the_games_are_not_replaced(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    from zanzibar_env.train.tournament import cli

    out = tmp_path / "D"
    real = cli.play_tournament

    def play_then_race(plan: Any, progress: bool = True) -> Any:
        result = real(plan, progress)
        out.mkdir(exist_ok=True)
        (out / "results.json").write_text("{}")  # another run (without the claim) wrote meanwhile
        return result

    monkeypatch.setattr(cli, "play_tournament", play_then_race)
    code = cli.main(["--agents", "random,greedy", "--players", "2", "--games", "2", "--no-progress",
                     "--out", str(out)])  # fmt: skip
    assert code == 1 and (out / "results.json").read_text() == "{}"
    assert "already holds ['results.json']" in capsys.readouterr().err


# ---- signals ------------------------------------------------------------------------------------------
def test_deferred_interrupts_finish_the_block_and_report(tmp_path: Path) -> None:
    with deferred_interrupts() as held:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        (tmp_path / "written").write_text("x")
    assert isinstance(held.caught, KeyboardInterrupt) and (tmp_path / "written").exists()


def test_sigterm_mid_tournament_keeps_finished_deals(tmp_path: Path) -> None:
    out, err = tmp_path / "D", tmp_path / "err.txt"
    args = ["-m", "train.tournament", "--agents", "random,greedy", "--players", "2", "--games", "10000000"]
    with err.open("w") as fh:
        p = _popen([*args, "--out", str(out)], fh)
        played = re.compile(r"\|\s*[1-9]\d*/")
        _wait_for(lambda: bool(played.search(err.read_text())) or p.poll() is not None)
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=120)
    text = err.read_text()
    assert p.returncode == EXIT_TERMINATED, text
    last = text.strip().splitlines()[-1]
    assert "Traceback" not in text and last.startswith("interrupted:"), last
    assert "marked incomplete (stopped by SIGTERM)" in last
    doc = json.loads((out / "results.json").read_text())
    assert doc["complete"] is False and len(doc["games"]) > 0 and not (out / CLAIM_NAME).exists()


@pytest.mark.parametrize("games", [10**12, 0, 2.5])
def test_a_tournament_count_names_its_limit(games: Any) -> None:
    from zanzibar_env.train.tournament.play import plan_tournament

    with pytest.raises(ValueError, match=r"games must be an integer in 1..10000000, got"):
        plan_tournament(["random", "greedy"], players=2, games=games)


# ---- JAX PPO ----------------------------------------------------------------------------------------
TINY = ["num_envs=16", "n_steps=4", "batch_size=32", "n_epochs=1", "net_arch=[16]", "eval_exact=false"]


def _sets(values: list[str]) -> list[str]:
    return [a for v in values for a in ("--set", v)]


def test_ctrl_c_during_jax_training_keeps_the_updates_done(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    pytest.importorskip("jax")
    from zanzibar_env.train import jax_ppo

    real_compile, calls = jax_ppo.Trainer.compile, [0]

    def compile_then_stop_later(self: Any, key: Any) -> None:
        real_compile(self, key)
        real = self.update

        def update(state: Any) -> Any:
            calls[0] += 1
            if calls[0] == 4:
                raise KeyboardInterrupt  # Ctrl-C during the fourth update
            return real(state)

        self.update = update

    monkeypatch.setattr(jax_ppo.Trainer, "compile", compile_then_stop_later)
    sets = [*TINY, "total_timesteps=6400", f"runs_dir={tmp_path}", f"compile_cache={tmp_path / 'c'}"]
    assert jax_ppo.main(_sets(sets)) == 130
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.fullmatch(r"interrupted: 3 of 100 updates done; policy after update 3 saved to .*policy.npz "
                        r"\(stopped by Ctrl-C\)", line), line  # fmt: skip
    run_dir = next(tmp_path.glob("ZanzibarRound-jax__*"))
    result = json.loads((run_dir / "result.json").read_text())
    assert result["complete"] is False and result["updates"] == 3
    from zanzibar_env.core.registry import make_agent

    make_agent(result["agent"])  # the policy kept plays


def test_jax_training_refuses_a_run_directory_without_room(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"run directory '.*': .* MB free, about .* MB needed"):
        check_free_space(tmp_path, 1 << 62, what="run directory")


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("net_arch=[65536,65536]", r"the run needs about 130 GiB \(.*network 128 GiB"),
        (
            "num_envs=1048576",
            r"the run needs about .* GiB \(rollout .* GiB.*rollout = 2\*n_steps\*num_envs\*\(in\+8\)",
        ),
    ],
)
def test_jax_ppo_memory_is_checked_before_compiling(override: str, message: str) -> None:
    from zanzibar_env.train.config.jax import load_jax_config

    with pytest.raises(ValueError, match=message):
        load_jax_config(None, [override, "max_memory_gb=8"])


# ---- replay files --------------------------------------------------------------------------------------
def test_one_bad_record_costs_only_itself(tmp_path: Path, capsys: Any) -> None:
    import zanzibar_env as zz
    from zanzibar_env.core.records import read_games
    from zanzibar_env.ui.replay import main

    path = tmp_path / "games.jsonl"
    for seed in (1, 2):
        zz.play_game(seed=seed, max_rounds=2).save(path)
    lines = path.read_text().splitlines()
    bad = json.loads(lines[0])
    bad["seed"] = 1.5
    path.write_text("\n".join([json.dumps(bad), lines[1]]) + "\n")
    games, problems = read_games(path)
    assert games[0] is None and games[1] is not None
    assert problems == [f"{path}:1: not a game record: seed must be null or an integer, got 1.5"]
    assert main([str(path)]) == 1
    out = re.sub(r"\s+", "", capsys.readouterr().out)  # (the console wraps long lines)
    expected = f"warning: {path}:1: not a game record: seed must be null or an integer, got 1.5 (skipped)"
    assert re.sub(r"\s+", "", expected) in out and "Game2of2" in out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_just_after_the_last_game_keeps_every_game(tmp_path: Path, capsys: Any, monkeypatch: Any,
                                                            sig: int) -> None:  # fmt: skip
    from zanzibar_env.train.tournament import cli

    real = cli.print_table

    def table_then_signal(result: Any) -> None:
        os.kill(os.getpid(), sig)  # arrives while the results are being shown and written
        real(result)

    monkeypatch.setattr(cli, "print_table", table_then_signal)
    out = tmp_path / "D"
    code = cli.main(["--agents", "random,greedy", "--players", "2", "--games", "4", "--no-progress",
                     "--out", str(out)])  # fmt: skip
    assert code == (143 if sig == signal.SIGTERM else 130)
    last = capsys.readouterr().err.strip().splitlines()[-1]
    how = "SIGTERM" if sig == signal.SIGTERM else "Ctrl-C"
    assert last == f"interrupted: after the last game, all 4 games kept, written to {out} (stopped by {how})"
    assert json.loads((out / "results.json").read_text())["complete"] is True
