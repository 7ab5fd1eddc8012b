"""Tournaments on Ray: the same results as one job, and a killed worker costs no game.

A local Ray (2 CPUs, no dashboard, its files in a temporary folder) is started once for the module
and shut down after it. Ray takes 10-20 s to start on the 2-core machine, so these tests are ``slow``
(``make test-slow``); they run in one xdist group so only one Ray is up at a time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ray_helpers import KillOnceAgent, local_ray
from zanzibar_env.train.tournament import main, run_tournament

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

AGENTS = ["random", "greedy", "threshold", "escape", "optimal"]


@pytest.fixture(scope="module")
def ray_2cpus():  # type: ignore[no-untyped-def]
    with local_ray() as ray_module:
        yield ray_module


def test_cli_outputs_identical_to_one_job(ray_2cpus: object, tmp_path: Path) -> None:
    base = ["--agents", ",".join(AGENTS), "--players", "3", "--games", "150", "--seed", "11"]
    base += ["--max-rounds", "40", "--no-progress"]
    assert main([*base, "--out", str(tmp_path / "one")]) == 0
    assert main([*base, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    for name in ("games.csv", "results.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes(), name
    assert '"backend": "ray"' in (tmp_path / "ray" / "run.json").read_text()


def test_killed_worker_is_retried_without_losing_or_repeating_a_game(
    ray_2cpus: object, tmp_path: Path
) -> None:
    marker = tmp_path / "kill-me"
    kwargs = dict(players=2, games=400, seed=3, progress=False)
    one = run_tournament([KillOnceAgent(marker), "greedy", "escape"], **kwargs)  # type: ignore[arg-type]
    marker.touch()
    on_ray = run_tournament(
        [KillOnceAgent(marker), "greedy", "escape"],
        backend="ray",
        **kwargs,  # type: ignore[arg-type]
    )
    assert not marker.exists(), "no worker ran the killing agent"
    assert [g["game"] for g in on_ray.games] == list(range(400))
    assert on_ray.games == one.games
    assert on_ray.summary == one.summary
