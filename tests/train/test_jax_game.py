"""The game learner from scratch (train/jax_game.py): the information-state rows, the outcome classes
and targets, the config's errors, the policy file and its agent, a tiny end-to-end run."""

from __future__ import annotations

import json

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

from zanzibar_env.agents.exact.decisions import action_probabilities, decision_batch, decision_rows  # noqa: E402
from zanzibar_env.agents.exact.value import game_system  # noqa: E402
from zanzibar_env.agents.game_table_agent import GameIndex, GameTableAgent, load_table, save_table  # noqa: E402
from zanzibar_env.core.observation import encode_batch  # noqa: E402
from zanzibar_env.core.registry import make_agent  # noqa: E402
from zanzibar_env.jax import Env  # noqa: E402
from zanzibar_env.train.config.jax_game import load_game_config  # noqa: E402
from zanzibar_env.train.jax_game import _D, _FIRST, FLIP, NC, Step, Trainer, main  # noqa: E402
from zanzibar_env.train.results.runs import read_eval_csv  # noqa: E402


@pytest.fixture(scope="module")
def game_decisions():
    """Every decision of the 2-player classic game from 20-20 (the exact evaluation's batch)."""
    _, _, system = game_system("classic", None)
    rows = decision_rows(system.spec, system.pairs)
    return rows, decision_batch(system.spec, system.pairs, rows)


def test_every_decision_of_the_game_has_its_own_row(game_decisions):
    rows, batch = game_decisions
    index = GameIndex("classic")
    r = index.rows(encode_batch(batch))
    assert len(np.unique(r)) == len(r) == 279_552
    assert 0 <= r.min() and r.max() < index.num_rows
    stacks = np.where(rows[0] == 0, batch.stacks[:, 0], batch.stacks[:, 0])  # own stack first
    assert (index.row_stacks()[r] == stacks).all()


def test_the_jax_env_reads_the_same_rows():
    """Rows read from the JAX env's observations (jax.numpy) are rows of the game's decisions, and the
    own stack is the acting seat's."""
    env = Env("classic", 2, opponents=None, episode="game", reward="win", skip_no_decision=True)
    s = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 64))
    index = GameIndex("classic")
    r = np.asarray(index.rows(s.observation, jnp))
    np.testing.assert_array_equal(r, index.rows(np.asarray(s.observation)))
    own = np.asarray(s.stacks)[np.arange(64), np.asarray(s.current_player)]
    np.testing.assert_array_equal(index.row_stacks()[r], own)


def test_outcome_classes_seen_by_the_other_seat():
    assert (FLIP[FLIP] == np.arange(NC)).all()
    assert (_D[FLIP] == -_D).all() and (_FIRST[FLIP] == ~_FIRST).all()


def test_outcome_values_end_the_game_where_a_stack_empties():
    tr = Trainer(load_game_config(None, ["num_envs=2"]))
    u = jnp.linspace(1, -1, tr.index.stacks)
    v = np.asarray(tr.outcome_values(u, jnp.asarray([2, 38])))
    give2 = list(_D).index(-2)  # the mover gives 2 chips, rolls first next
    assert v[0, give2] == 1.0 and v[1, give2 + 1] == pytest.approx(float(u[36]))
    take2 = NC - 1 - give2  # the mover receives 2 chips, the other rolls first
    assert v[1, take2 - 1] == -1.0 and v[0, take2 - 1] == pytest.approx(-float(u[36]))


def test_targets_are_the_round_outcome_seen_by_each_mover():
    """Two steps of one table: the first roller stops (the other seat moves next), the second's step ends
    the round with outcome class 3: the first roller's target is that outcome flipped."""
    tr = Trainer(load_game_config(None, ["num_envs=1", "lam=1"]))
    f, t = jnp.asarray([[False], [False]]), jnp.asarray([[True], [True]])
    step = Step(
        row=jnp.zeros((2, 1), jnp.int32), action=jnp.zeros((2, 1), jnp.int32), explore=f, opens=f,
        stack=jnp.full((2, 1), 20), same=f, ends=jnp.asarray([[False], [True]]), done=f,
        outcome=jnp.asarray([[0], [3]]), next_psi=jnp.full((2, 1, NC), 1.0 / NC),
    )  # fmt: skip
    g = np.asarray(tr.targets(step))
    assert g[1, 0].argmax() == 3 and g[1, 0].max() == 1.0
    assert g[0, 0].argmax() == FLIP[3] and g[0, 0].max() == 1.0
    del t


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("alpha_mn=1e-3", "unknown config key 'alpha_mn'"),
        ("eps_start=2", "config key 'eps_start': bad value '2'"),
        ("eps_end=0.9", "config key 'eps_end'"),
        ("ruleset=lives", "config key 'ruleset'"),
    ],
)
def test_bad_config_keys_are_refused(override, message):
    with pytest.raises(ValueError, match=message):
        load_game_config(None, [override])


def test_bad_config_exits_2(capsys):
    assert main(["--set", "kappa=-1"]) == 2
    assert "kappa" in capsys.readouterr().err


def test_policy_file_round_trip_and_errors(tmp_path, game_decisions):
    index = GameIndex("classic")
    actions = np.full(index.num_rows, 7, np.int8)
    save_table(tmp_path / "p.npz", actions, {"ruleset": "classic"})
    agent = make_agent(f"game_table:{tmp_path / 'p.npz'}")
    assert isinstance(agent, GameTableAgent)
    probs = action_probabilities(agent, game_decisions[1])
    assert (probs[:, 7] == 1).all()  # a valid agent over every decision of the game
    with pytest.raises(ValueError, match="does not exist"):
        load_table(tmp_path / "nope.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a game table policy file"):
        load_table(tmp_path / "bad.npz")
    save_table(tmp_path / "short.npz", actions[:10], {"ruleset": "classic"})
    with pytest.raises(ValueError, match="int8 actions for the"):
        load_table(tmp_path / "short.npz")
    with pytest.raises(ValueError, match="covers rulesets with stake='chips'"):
        GameIndex("lives")


def test_shipped_baseline_plays():
    from zanzibar_env.agents import pretrained

    agent = make_agent("jax_game_2p")
    assert isinstance(agent, GameTableAgent) and agent.name == "jax_game_2p"
    prov = pretrained.provenance("jax_game_2p")
    assert prov["seed"] in range(5) and 0 < prov["exploitability"]["mean"] < 0.5


@pytest.mark.slow  # compilation and two exact game evaluations: ~1 min on 2 cores
def test_tiny_run_trains_exports_and_evaluates(tmp_path, capsys):
    sets = ["num_envs=32", "chunk=4", "total_timesteps=256", "eval_every_s=0", f"runs_dir={tmp_path}",
            f"compile_cache={tmp_path / 'cache'}"]  # fmt: skip
    assert main([a for v in sets for a in ("--set", v)]) == 0
    (run,) = [p for p in tmp_path.iterdir() if p.name.startswith("Zanzibar-jax__")]
    (row,) = read_eval_csv(run / "eval.csv")
    result = json.loads((run / "result.json").read_text())
    assert row["timesteps"] == result["timesteps"] == 256 and 0 < result["exploit_mean"] <= 1
    from zanzibar_env.agents.exact import game_exploitability

    ex = game_exploitability(make_agent(result["agent"]), "classic")
    assert ex["average"] == pytest.approx(result["exploit_mean"])
    assert "exact game exploitability rolling first" in capsys.readouterr().out
