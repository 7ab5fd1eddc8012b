"""The JAX PPO (train/jax_ppo.py): a tiny end-to-end run that trains, exports and evaluates exactly; the
config's errors; the self-play advantage; the policy file and its numpy agent."""

from __future__ import annotations

import json

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("optax")

import jax.numpy as jnp  # noqa: E402

from zanzibar_env.agents.exact import exploitability  # noqa: E402
from zanzibar_env.agents.jax_ppo_agent import JaxPPOAgent, load_policy, save_policy  # noqa: E402
from zanzibar_env.core.onehot import onehot  # noqa: E402
from zanzibar_env.core.registry import make_agent  # noqa: E402
from zanzibar_env.envs.vector import ZanzibarVectorEnv  # noqa: E402
from zanzibar_env.train.config.jax import load_jax_config  # noqa: E402
from zanzibar_env.train.jax_ppo import Net, Transition, actor_layers, gae, main, normalise  # noqa: E402
from zanzibar_env.train.results.runs import read_eval_csv  # noqa: E402

TINY = ["num_envs=16", "n_steps=4", "batch_size=32", "total_timesteps=128", "n_epochs=1", "net_arch=[16]"]


def _sets(values: list[str]) -> list[str]:
    return [a for v in values for a in ("--set", v)]


@pytest.mark.slow  # ~40 s of compilation on 2 cores
def test_tiny_run_trains_exports_and_evaluates(tmp_path, capsys):
    """Both env groups (self-play and `optimal`), two updates, the exact regret at each evaluation; the
    policy file loads as `jax_ppo:PATH` and gives the same exact figures."""
    sets = [*TINY, f"runs_dir={tmp_path}", f"compile_cache={tmp_path / 'cache'}", "eval_freq=64"]
    assert main(_sets(sets)) == 0
    (run,) = [p for p in tmp_path.iterdir() if p.name.startswith("ZanzibarRound-jax__")]
    rows = read_eval_csv(run / "eval.csv")
    assert [r["timesteps"] for r in rows] == [64.0, 128.0]
    result = json.loads((run / "result.json").read_text())
    assert result["timesteps"] == 128 and result["train_seconds"] > 0
    for seat in ("regret_seat0", "regret_seat1"):
        assert (
            0 <= result[seat] < 4
        )  # chips per round: a best response gains something, never above the stake
    agent = make_agent(result["agent"])
    assert isinstance(agent, JaxPPOAgent)
    ex = exploitability(agent, "classic")
    assert (ex["seat0"], ex["seat1"]) == pytest.approx((result["regret_seat0"], result["regret_seat1"]))
    assert "exact regret rolling first" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("learning_rat=1e-3", "unknown config key 'learning_rat'"),
        ("learning_rate=-1", "config key 'learning_rate': bad value '-1'"),
        ("opponent=greedyy", "config key 'opponent': bad value 'greedyy'"),
        ("batch_size=3000", "a divisor of n_steps * num_envs"),
        ("net_arch=[]", "config key 'net_arch'"),
        ("seat=left", "config key 'seat': bad value 'left'"),
        ("first_frac=1.5", "config key 'first_frac': bad value '1.5'"),
        ("first_frac=0.3", "config key 'first_frac': bad value '0.3'; allowed: the default 0.5 unless seat"),
    ],
)
def test_bad_config_is_a_clear_error(override, message, capsys):
    with pytest.raises(ValueError, match=message.replace("*", r"\*").replace("[", r"\[")):
        load_jax_config(None, [override])
    assert main(["--set", override]) == 2
    assert message.split("'")[0] in capsys.readouterr().err


def test_split_seats_fix_the_learner_first_in_first_frac_of_the_bot_envs():
    from zanzibar_env.train.jax_training.envs import make_groups

    cfg = load_jax_config(None, ["num_envs=64", "self_play_frac=0.25", "seat=split", "first_frac=0.25"])
    groups = [(g.size, g.self_play, g.env.fixed_seat) for g in make_groups(cfg)]
    assert groups == [(16, True, None), (12, False, 0), (36, False, 1)]
    cfg = load_jax_config(None, ["num_envs=64", "self_play_frac=0", "seat=split", "first_frac=0"])
    assert [(g.size, g.env.fixed_seat) for g in make_groups(cfg)] == [(64, 1)]


def test_self_play_needs_a_zero_sum_ruleset():
    with pytest.raises(ValueError, match=r"config key 'self_play_frac'.*zero-sum"):
        load_jax_config(None, ["ruleset=lives"])
    assert load_jax_config(None, ["ruleset=lives", "self_play_frac=0"]).self_play_frac == 0


def test_gae_flips_sign_where_the_other_seat_moves():
    """Seat 0 acts, then seat 1 acts and the round ends paying seat 1 `r`: with gamma = lambda = 1 seat 0's
    target is -r (zero-sum) and seat 1's is r; with lambda 0 seat 0's target is -V(seat 1's state)."""
    r, v0, v1 = 1.5, 0.25, -0.5
    t = Transition(
        x=jnp.zeros((2, 1, 33)), mask=jnp.ones((2, 1, 8), bool), action=jnp.zeros((2, 1), jnp.int32),
        logp=jnp.zeros((2, 1)), value=jnp.array([[v0], [v1]]), reward=jnp.array([[0.0], [r]]),
        done=jnp.array([[False], [True]]), same=jnp.array([[False], [False]]),
    )  # fmt: skip
    _, target = gae(t, jnp.array([9.0]), 1.0, 1.0)
    np.testing.assert_allclose(np.asarray(target)[:, 0], [-r, r], rtol=1e-6)
    _, target = gae(t, jnp.array([9.0]), 1.0, 0.0)
    np.testing.assert_allclose(np.asarray(target)[:, 0], [-v1, r], rtol=1e-6)
    t = t._replace(done=jnp.array([[False], [False]]), same=jnp.array([[True], [True]]))
    _, target = gae(t, jnp.array([2.0]), 1.0, 1.0)  # one seat throughout: bootstraps from the last value
    np.testing.assert_allclose(np.asarray(target)[:, 0], [r + 2.0, r + 2.0], rtol=1e-6)


def test_advantages_are_normalised_within_each_seat():
    adv = jnp.array([10.0, -10.0, 30.0, 0.1, 0.3, 0.2])
    first = jnp.array([True, True, True, False, False, False])
    out = np.asarray(normalise(adv, first))
    for rows in (slice(0, 3), slice(3, 6)):
        assert out[rows].mean() == pytest.approx(0, abs=1e-5) and out[rows].std() == pytest.approx(
            1, abs=1e-4
        )
    np.testing.assert_array_equal(np.argsort(out[3:]), [0, 2, 1])  # order kept within a seat


def test_jax_onehot_and_numpy_policy_match_the_network():
    """The one-hot features under jax.numpy equal numpy's on env observations; the exported numpy policy
    gives the JAX network's logits."""
    env = ZanzibarVectorEnv(num_envs=64, ruleset="classic", num_players=2, opponents=["optimal"], seed=3)
    obs, _ = env.reset(seed=3)
    np.testing.assert_array_equal(np.asarray(onehot(jnp.asarray(obs), 42, 3, xp=jnp)), onehot(obs, 42, 3))
    cfg = load_jax_config(None, ["net_arch=[32, 16]", "activation=relu"])
    net = Net(cfg)
    params = net.init(jax.random.PRNGKey(0))
    params["actor"][-1]["w"] = params["actor"][-1]["w"] * 100  # not near-uniform
    logp, _ = net(params, jnp.asarray(obs), jnp.ones((64, 8), bool))
    from zanzibar_env.agents.jax_ppo_agent import MLPPolicy
    from zanzibar_env.train.jax_ppo import policy_meta

    mine = MLPPolicy(actor_layers(params), policy_meta(cfg))(obs)
    want = np.asarray(jax.nn.log_softmax(mine))
    np.testing.assert_allclose(np.asarray(logp), want, atol=1e-4)


def test_policy_file_round_trip_and_bad_files(tmp_path):
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(33, 8)).astype(np.float32), np.zeros(8, np.float32))]
    meta = {"activation": "tanh", "features": "raw", "num_ranks": 42, "max_rolls": 3, "ruleset": "classic"}
    path = tmp_path / "policy.npz"
    save_policy(path, layers, meta)
    got, got_meta = load_policy(path)
    np.testing.assert_array_equal(got[0][0], layers[0][0])
    assert got_meta["activation"] == "tanh"
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(ValueError, match="not a JAX PPO policy file"):
        load_policy(tmp_path / "text.npz")
    np.savez(tmp_path / "other.npz", w0=np.zeros((33, 8), np.float32))
    with pytest.raises(ValueError, match="no meta record"):
        load_policy(tmp_path / "other.npz")
    save_policy(tmp_path / "wide.npz", [(np.zeros((33, 9), np.float32), np.zeros(9, np.float32))], meta)
    with pytest.raises(ValueError, match="9 outputs, not 8 logits"):
        load_policy(tmp_path / "wide.npz")
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"jax_ppo:{tmp_path / 'missing.npz'}")


def test_seed_table_reports_iqm_interval_and_the_target():
    from benchmarks.jax_train import table

    rows = [
        {"seed": s, "train_seconds": 50.0 + s, "compile_seconds": 9.0, "cpu_seconds": 90.0, "timesteps": 1e6,
         "regret_seat0": 0.001 * (s + 1), "regret_seat1": 0.002, "regret_mean": 0.0015}
        for s in range(5)
    ]  # fmt: skip
    out = table(rows, "title")
    assert out.splitlines()[0] == "title" and "IQM" in out
    assert "95% bootstrap interval of the IQM, regret_seat0" in out
    assert "3 of 5" in out  # seeds 0-2: regret <= 0.003 in each seat within 60 s; seeds 3-4 exceed it
