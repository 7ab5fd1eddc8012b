"""Progress bars count the unit they name, out of what will really run; tables say how they are sorted."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from zanzibar_env.train.sb3.progress import StepsProgressBar, steps_to_run


@pytest.mark.parametrize(
    ("requested", "rollout", "steps"),
    [(3000, 16384, 16384), (16384, 16384, 16384), (16385, 4096, 20480), (0, 8, 0)],
)
def test_steps_to_run_is_whole_rollouts(requested: int, rollout: int, steps: int) -> None:
    assert steps_to_run(requested, rollout) == steps


def test_the_bar_ends_full_where_ppo_stops() -> None:
    """A request of 3,000 steps with rollouts of 128 x 128 envs: the bar reads 16,384/16,384, not /3,000."""
    env = SimpleNamespace(num_envs=128)
    model = SimpleNamespace(n_steps=128, get_env=lambda: env, num_timesteps=0)
    bar = StepsProgressBar(3000)
    bar.init_callback(model)  # type: ignore[arg-type]
    bar.on_training_start({}, {})
    for _ in range(128):  # one rollout: what PPO runs to pass 3,000 steps
        bar.on_step()
    assert (bar.bar.n, bar.bar.total) == (16384, 16384)
    assert bar.bar.unit == "step" and bar.bar.smoothing == 0
    bar.on_training_end()


def test_tournament_tables_say_how_they_are_sorted(capsys: pytest.CaptureFixture[str]) -> None:
    from zanzibar_env.train.evaluate import format_tournament
    from zanzibar_env.train.tournament import run_tournament
    from zanzibar_env.train.tournament.report import SORT_NOTE, print_table

    result = run_tournament(["random", "greedy"], players=2, games=8, seed=0, progress=False)
    print_table(result)
    out = " ".join(capsys.readouterr().out.split())
    assert "sorted by rating μ−3σ" in out and "not by win rate" in out
    ratings = [a.rating for a in result.summary]
    assert ratings == sorted(ratings, reverse=True)
    from dataclasses import asdict

    text = format_tournament([asdict(a) for a in result.summary])
    assert text.endswith(SORT_NOTE) and f"{result.summary[0].rating:.2f}" in text
