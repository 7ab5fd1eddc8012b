"""Learning the full game (train/sb3/game_learn.py, train/game_curve.py): the game best response, imitation,
the exact game curve in eval.csv, tiny runs of the shipped game configs, and bad inputs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from tests.cli_args import set_args
from zanzibar_env.agents.exact import game_best_response, game_exploitability, win_probability
from zanzibar_env.agents.exact.decisions import decision_batch, decision_rows
from zanzibar_env.agents.exact.game import GameSpec, Pairs
from zanzibar_env.core.observation import decode
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.train import evaluate, game_curve, ppo
from zanzibar_env.train.config.training import load_config, read_yaml
from zanzibar_env.train.sb3.game_learn import exact_decisions, sampled_games

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "num_envs=8",
    "n_steps=64",
    "batch_size=128",
    "n_epochs=1",
    "net_arch=[16]",
    "eval_games=10",
    "progress_bar=false",
    "tensorboard=false",
]


def _small_rules(tmp_path: Path, chips: int) -> Path:
    """``classic`` with ``chips`` chips each, as a ruleset file."""
    text = (ROOT / "configs" / "rules" / "classic.yaml").read_text()
    path = tmp_path / f"classic{chips}.yaml"
    path.write_text(
        text.replace("starting_stack: 20", f"starting_stack: {chips}").replace("name: classic", "name: c")
    )
    return path


def _rows(path: Path) -> list[dict[str, float]]:
    with path.open() as fh:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)]


def test_game_best_response_matches_exploitability() -> None:
    stacks = (2, 2)
    br = game_best_response("optimal", "classic", stacks)
    ex = game_exploitability("optimal", "classic", stacks)
    assert br.value_second == pytest.approx(ex["best_response_vs_seat0"], abs=1e-12)
    assert br.value_first == pytest.approx(ex["best_response_vs_seat1"], abs=1e-12)
    # played by look-up, it reaches those values against the agent from either seat
    assert 1 - win_probability("optimal", br, "classic", stacks, 0) == pytest.approx(
        br.value_second, abs=1e-12
    )
    assert 1 - win_probability("optimal", br, "classic", stacks, 1) == pytest.approx(
        br.value_first, abs=1e-12
    )
    # against the game-optimal policy the best response gains nothing
    opt = game_best_response("optimal_game", "classic", stacks)
    assert opt.value_second == pytest.approx(1 - ex["game_value_seat0"], abs=1e-9)
    with pytest.raises(ValueError, match="not a state"):
        opt.policy.tables(load_ruleset("classic"), 3, 3)  # type: ignore[attr-defined]


def test_exact_decisions_are_every_decision_with_the_teacher_action() -> None:
    rules = load_ruleset("classic", starting_stack=2)
    obs, acts = exact_decisions(make_agent("optimal_game"), rules)
    spec = GameSpec.of(rules)
    pairs = Pairs.reachable(spec, (2, 2))
    batch = decision_batch(spec, pairs, decision_rows(spec, pairs))
    assert obs.shape == (len(batch), 33) and np.array_equal(acts, make_agent("optimal_game").act_batch(batch))


def test_sampled_games_results_and_truncation() -> None:
    rules = load_ruleset("classic", starting_stack=2)
    obs, acts, result = sampled_games(make_agent("optimal"), rules, 3, 4, seed=1, max_rounds=None)
    assert len(obs) == len(acts) == len(result) > 0 and set(np.unique(result)) <= {-1.0, 0.5, 1.0}
    assert ((acts >= 0) & (acts <= 7)).all()
    with pytest.raises(ValueError, match="ended within max_rounds"):
        sampled_games(make_agent("optimal"), load_ruleset("classic"), 2, 2, seed=1, max_rounds=1)


def test_sampled_games_against_bots_record_only_the_teacher_seat() -> None:
    """The table teacher's games: only seat 0's decisions (seat 0 relative: ``players_after`` runs through
    every position as the first roller rotates), each with seat 0's result."""
    rules = load_ruleset("classic", starting_stack=2)
    bots = [make_agent("random", seed=1), make_agent("optimal")]
    obs, acts, result = sampled_games(make_agent("greedy"), rules, 3, 6, 1, None, bots)
    assert len(obs) == len(acts) == len(result) > 0 and set(np.unique(result)) <= {-1.0, 0.5, 1.0}
    seen = [decode(o, rules) for o in obs]
    assert {d["players_after"] for d in seen} == {0, 1, 2}  # the teacher rolled first, second and last
    assert all(d["num_players"] == 3 and sum(d["stacks"]) == 6 for d in seen)  # type: ignore[arg-type]
    assert ((acts >= 0) & (acts <= 7)).all()
    calls = []

    class Counting(type(make_agent("greedy"))):  # type: ignore[misc]
        def act(self, view):  # type: ignore[no-untyped-def]
            calls.append(view.seat)
            return super().act(view)

    bots = [make_agent("random", seed=1), make_agent("optimal")]  # the same random stream again
    obs2, acts2, _ = sampled_games(Counting(), rules, 3, 6, 1, None, bots)
    assert len(calls) == len(obs2) and set(calls) == {0} and np.array_equal(acts2, acts)


def test_game_run_end_to_end_with_imitation_exploiter_and_curve(tmp_path: Path) -> None:
    rules = _small_rules(tmp_path, 2)
    runs = tmp_path / "runs"
    sets = [*TINY, f"ruleset={rules}", "total_timesteps=1024", "eval_freq=512", "pretrain_epochs=3"]
    sets += ["pretrain_games=5", "exploiter_freq=512", "eval_bots=[optimal_game]", f"runs_dir={runs}"]
    assert ppo.main(["--config", str(ROOT / "configs" / "ppo_game_2p.yaml"), *set_args(sets)]) == 0
    (run_dir,) = runs.iterdir()
    rows = _rows(run_dir / "eval.csv")
    assert [int(r["timesteps"]) for r in rows] == [0, 512, 1024]
    for r in rows:
        assert 0 <= r["game_exploit_mean"] <= 1
        assert r["game_exploit_mean"] == pytest.approx(
            (r["game_exploit_first"] + r["game_exploit_second"]) / 2
        )
    pre = json.loads((run_dir / "pretrain.json").read_text())
    assert pre["teacher"] == "optimal_game" and 0 <= pre["accuracy"] <= 1 and pre["policy_rows"] > 0
    assert (run_dir / "learning_curve.png").stat().st_size > 0
    # the imitated policy is the one evaluated at step 0: its figure is the exact one of that model
    out = tmp_path / "curve.png"
    assert (
        game_curve.main([str(run_dir), "--label", "tiny", "--out", str(out)]) == 0 and out.stat().st_size > 0
    )
    assert game_curve.main([str(run_dir), "--out", str(out)]) == 2  # exists, no --force
    assert game_curve.main([str(tmp_path), "--out", str(tmp_path / "x.png")]) == 2  # not a run


def test_scratch_and_4p_game_configs_run_tiny(tmp_path: Path) -> None:
    rules = _small_rules(tmp_path, 2)
    base = [*TINY, f"ruleset={rules}", "total_timesteps=512", "eval_freq=0", "eval_bots=[optimal]"]
    scratch = [*base, f"runs_dir={tmp_path / 'a'}", "exploiter_freq=256"]
    assert ppo.main(["--config", str(ROOT / "configs" / "ppo_game_2p_scratch.yaml"), *set_args(scratch)]) == 0
    four = [*base, f"runs_dir={tmp_path / 'b'}", "pretrain_games=3", "pretrain_epochs=1"]
    assert ppo.main(["--config", str(ROOT / "configs" / "ppo_game_4p.yaml"), *set_args(four)]) == 0
    (run_dir,) = (tmp_path / "b").iterdir()
    assert json.loads((run_dir / "pretrain.json").read_text())["teacher"] == "optimal"
    assert not any(k.startswith("game_") for k in _rows(run_dir / "eval.csv")[0])
    table = [
        *base,
        f"runs_dir={tmp_path / 'c'}",
        "pretrain_games=3",
        "pretrain_epochs=1",
        "eval_table_games=8",
    ]
    assert ppo.main(["--config", str(ROOT / "configs" / "ppo_game_4p_table.yaml"), *set_args(table)]) == 0
    (run_dir,) = (tmp_path / "c").iterdir()
    assert read_yaml(run_dir / "config.yaml")["opponents"] == ["optimal", "greedy", "escape"]
    row = _rows(run_dir / "eval.csv")[-1]
    wins = [row[f"table_win{k}"] for k in ("", "_optimal", "_greedy", "_escape")]
    assert sum(wins) == pytest.approx(1.0)
    assert 0 <= row["table_win_low"] <= row["table_win"] <= row["table_win_high"] <= 1


def test_table_teacher_config_runs_tiny(tmp_path: Path) -> None:
    """``configs/ppo_game_4p_teacher.yaml`` at 3 players and 2 chips each: the teacher is solved for the
    run's table, imitated, and the run trains and evaluates at that table."""
    rules = _small_rules(tmp_path, 2)
    sets = [*TINY, f"ruleset={rules}", "total_timesteps=512", "eval_freq=0", "eval_bots=[optimal]"]
    sets += ["num_players=3", "opponents=[random,optimal]", "pretrain_games=20", "pretrain_epochs=2"]
    sets += ["eval_table_games=6", f"runs_dir={tmp_path}"]
    assert ppo.main(["--config", str(ROOT / "configs" / "ppo_game_4p_teacher.yaml"), *set_args(sets)]) == 0
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    pre = json.loads((run_dir / "pretrain.json").read_text())
    assert pre["teacher"] == "table_game" and pre["policy_rows"] > 20 and 0 <= pre["accuracy"] <= 1
    row = _rows(run_dir / "eval.csv")[-1]
    assert sum(row[f"table_win{k}"] for k in ("", "_random", "_optimal")) == pytest.approx(1.0)
    # exported without exact figures, the provenance is the run's last evaluation, not its first
    out = tmp_path / "m.zip"
    args = [str(run_dir / "model.zip"), "--no-exact", "--tournament-games", "0", "--games", "4"]
    assert evaluate.main([*args, "--export", str(out)]) == 0
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["timesteps"] == int(row["timesteps"]) > 0 and meta["config"]["pretrain"] == "table_game"


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (["eval_game_exact=true"], ["eval_game_exact", "Zanzibar-v1"]),
        (
            ["env_id=Zanzibar-v1", "num_players=3", "exploiter_frac=0", "eval_game_exact=true"],
            ["eval_game_exact", "num_players 2"],
        ),
        (["pretrain=nobody"], ["pretrain", "nobody"]),
        (["num_players=4", "exploiter_frac=0", "pretrain=optimal_game"], ["pretrain", "2"]),
        (["pretrain=table_game"], ["pretrain", "table_game", "Zanzibar-v1"]),
        (
            [
                "env_id=Zanzibar-v1",
                "num_players=3",
                "exploiter_frac=0",
                "opponents=[optimal_game,optimal]",
                "pretrain=table_game",
            ],
            ["opponents", "optimal_game", "3 players"],  # refused before the pretrain check
        ),
        (
            [
                "env_id=Zanzibar-v1",
                "ruleset=lives",
                "exploiter_frac=0",
                "opponents=[optimal]",
                "pretrain=table_game",
            ],
            ["pretrain", "chips"],
        ),
        (
            [
                "env_id=Zanzibar-v1",
                "num_players=3",
                "exploiter_frac=0",
                "opponents=[optimal,nobody]",
                "pretrain=table_game",
            ],
            ["opponents", "nobody"],
        ),
        (["pretrain_epochs=0"], ["pretrain_epochs"]),
        (["pretrain_games=-1"], ["pretrain_games"]),
        (["eval_table_games=10"], ["eval_table_games", "Zanzibar-v1"]),
        (
            [
                "env_id=Zanzibar-v1",
                "num_players=4",
                "exploiter_frac=0",
                "opponents=[greedy,escape]",
                "eval_table_games=10",
            ],
            ["eval_table_games", "one table"],
        ),
        (
            ["env_id=Zanzibar-v1", "expected_reward=false", "exploiter_frac=0.5", "eval_table_games=10"],
            ["eval_table_games", "exploiter_frac"],
        ),
        (["env_id=Zanzibar-v1", "eval_table_games=-1"], ["eval_table_games"]),
    ],
)
def test_bad_game_keys_are_clear_errors(overrides: list[str], words: list[str]) -> None:
    with pytest.raises(ValueError) as info:
        load_config(overrides=overrides)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize(("gap", "converges"), [(5e-11, True), (1e-6, False)])
def test_strategy_iteration_ends_on_a_rounding_cycle(
    monkeypatch: pytest.MonkeyPatch, gap: float, converges: bool
) -> None:
    """Two policies flipping by rounding (residual < CYCLE_TOL) end the iteration; a real gap does not."""
    from types import SimpleNamespace

    import zanzibar_env.agents.exact.game_iteration as gs

    values = np.array([0.25, 0.75])
    calls = {"n": 0}

    def solve(spec: object, g: np.ndarray, fa: object, fb: object) -> SimpleNamespace:
        calls["n"] += 1
        flip = np.full(3, calls["n"] % 2, np.int8)
        return SimpleNamespace(value=values + gap, policy_a=flip, policy_b=flip)

    system = SimpleNamespace(spec=None, classes=1, end_values=lambda u, f: u, evaluate=lambda sols: values)
    monkeypatch.setattr(gs, "solve_rounds", solve)
    if converges:
        u, (sol,) = gs.iterate(system, [None], [None], u0=values)  # type: ignore[arg-type]
        assert np.array_equal(u, values) and calls["n"] == 3 and sol.policy_a[0] == 0
    else:
        with pytest.raises(RuntimeError, match="did not converge"):
            gs.iterate(system, [None], [None], u0=values)  # type: ignore[arg-type]
