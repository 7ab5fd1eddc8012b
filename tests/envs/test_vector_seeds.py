"""Per-env seeds in the vector env: env ``i``'s episodes depend on its own seed (and actions) only.

Gymnasium's semantics for ``reset(seed=[s_0, ..., s_{N-1}])``: each seed seeds one sub-env. Every draw
of a row (dice, roll-offs, the learner's seat, stochastic opponents through ``batch.row_rng``) comes
from its own counter-based stream (``zanzibar_env.core.streams``), so a row plays the same whatever
the batch size, its position or the other rows.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import vector as VW

import zanzibar_env  # noqa: F401  (registers the ids)
from zanzibar_env.core.bots import RandomAgent
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.streams import WIDTH, RowStreams
from zanzibar_env.envs.vector import ZanzibarVectorEnv

MODES = [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP]


def _row(x: Any, i: int) -> Any:
    """Row ``i`` of an observation, info value or final info (dicts and object arrays alike)."""
    if isinstance(x, dict):
        return {k: _row(v, i) for k, v in x.items()}
    v = x[i]
    return None if v is None else np.array(v).tolist()


def _trace(seeds: list[int], row: int, steps: int, **kw: Any) -> list[Any]:
    """What env ``row`` of a batch seeded ``seeds`` returns over ``steps`` steps; its actions are
    drawn from its legal actions by a generator of its own (the same for the same seed)."""
    vec = ZanzibarVectorEnv(len(seeds), **kw)
    obs, info = vec.reset(seed=seeds)
    pick = np.random.default_rng(seeds[row] + 1000)
    out: list[Any] = [(_row(obs, row), _row(info, row))]
    for _ in range(steps):
        act = np.zeros(len(seeds), np.int64)  # the other rows stop whenever they can: their own game
        act[:] = np.where(info["action_mask"][:, 7], 7, 0)
        act[row] = pick.choice(np.flatnonzero(info["action_mask"][row]))
        obs, rew, term, trunc, info = vec.step(act)
        keys = sorted(k for k in info if not k.startswith("_") and (k not in ("final_obs", "final_info")))
        final = info["_final_obs"][row] if "_final_obs" in info else False
        extra = (_row(info["final_obs"], row), _row(info["final_info"], row)) if final else None
        out.append((_row(obs, row), float(rew[row]), bool(term[row]), bool(trunc[row]),
                    {k: _row(info[k], row) for k in keys}, extra))  # fmt: skip
    return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("opponents", ["optimal", "random"])
def test_an_env_plays_as_it_would_alone(opponents: str, mode: AutoresetMode) -> None:
    """Env 1 of [a, b, c] plays as env 0 of [b] and env 2 of [x, y, b] (2-player games: roll-offs)."""
    kw = dict(opponents=opponents, autoreset_mode=mode, max_episode_steps=30)
    a, b, c, x, y = 11, 22, 33, 44, 55
    want = _trace([b], 0, 80, **kw)
    assert want == _trace([a, b, c], 1, 80, **kw)
    assert want == _trace([x, y, b], 2, 80, **kw)
    ends = sum(1 for t in want[1:] if t[2] or t[3])
    assert ends >= 2  # several episodes (and autoresets) inside the trace


def test_per_env_streams_in_rounds_with_many_players() -> None:
    """Rounds of 4 players (``random`` opponents, seat drawn each episode): same per-env independence."""
    kw = dict(num_players=4, episode="round", opponents="random", ruleset="alt_chips")
    want = _trace([7], 0, 60, **kw)
    assert want == _trace([3, 7], 1, 60, **kw)
    assert want == _trace([7, 1, 2, 3, 4], 0, 60, **kw)
    assert len({t[4]["seat"] for t in want[1:]}) > 1  # the learner's seat was drawn more than once


def test_int_seed_is_seed_plus_index() -> None:
    """An int seed ``s`` seeds env ``i`` with ``s + i`` (as Gymnasium's ``SyncVectorEnv``) and reproduces."""
    want = _trace([5, 6, 7], 2, 30)
    vec = ZanzibarVectorEnv(3)
    first = vec.reset(seed=5)[0]
    np.testing.assert_array_equal(first, vec.reset(seed=[5, 6, 7])[0])
    np.testing.assert_array_equal(first, vec.reset(seed=np.array([5, 6, 7]))[0])
    assert want == _trace([7], 0, 30)
    ctor = ZanzibarVectorEnv(3, seed=5)  # the constructor seed is a reset seed
    np.testing.assert_array_equal(ctor.reset()[0], first)
    assert ctor.np_random_seed == 5


def test_none_in_a_seed_list_keeps_that_env_going() -> None:
    vec = ZanzibarVectorEnv(2, episode="round")
    vec.reset(seed=[3, 4])
    for _ in range(5):
        vec.step(np.full(2, 7))
    obs = vec.reset(seed=[None, 4])[0]
    np.testing.assert_array_equal(obs[1], ZanzibarVectorEnv(1, episode="round").reset(seed=[4])[0][0])
    again = ZanzibarVectorEnv(2, episode="round")
    again.reset(seed=[3, 4])
    for _ in range(5):
        again.step(np.full(2, 7))
    np.testing.assert_array_equal(obs[0], again.reset(seed=[None, 99])[0][0])  # env 0 continued alike


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ([1, 2], "2 entries for 3 envs"),
        ([1, 2, 3, 4], "4 entries for 3 envs"),
        (-1, "non-negative"),
        ([1, -2, 3], r"seed\[1\] must be None or a non-negative integer"),
        ([1, 2.5, 3], r"seed\[1\]"),
        ([1, 2, True], r"seed\[2\]"),
        (True, "seed must be"),
        (1.5, "seed must be"),
        ("7", "seed must be"),
        (np.zeros((3, 1), np.int64), "seed must be"),
    ],
)
def test_bad_seeds_name_the_problem(bad: Any, problem: str) -> None:
    vec = ZanzibarVectorEnv(3)
    with pytest.raises(ValueError, match=problem) as err:
        vec.reset(seed=bad)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=problem):
        ZanzibarVectorEnv(3, seed=bad)


def test_scripted_dice_still_replace_the_streams() -> None:
    """``set_dice_sources`` (tests) replays scripted dice; the streams still draw seats and opponents."""
    from zanzibar_env.core.dice import ScriptedDice

    for seeds in ([0, 1], [5, 9]):
        vec = ZanzibarVectorEnv(2, episode="round", seat=0, opponents="random")
        vec.set_dice_sources([ScriptedDice([2, 3, 5] * 50), ScriptedDice([5, 1, 3] * 50)])
        vec.reset(seed=seeds)
        np.testing.assert_array_equal(vec.view_batch(np.arange(2)).dice, [[2, 3, 5], [1, 3, 5]])
        vec.step(np.array([3, 0]))  # keep two dice / throw all three again: scripted faces
        np.testing.assert_array_equal(vec.view_batch(np.arange(2)).dice, [[2, 2, 3], [1, 3, 5]])


def test_gymnasium_vector_wrappers_with_seed_lists() -> None:
    def run() -> list[Any]:
        env = gym.make_vec("ZanzibarRound-v1", num_envs=4, vectorization_mode="vector_entry_point",
                           autoreset_mode="NextStep", max_episode_steps=5)  # fmt: skip
        env = VW.NormalizeObservation(VW.RecordEpisodeStatistics(env))
        obs, _ = env.reset(seed=[9, 8, 7, 6])
        out = [obs]
        for _ in range(12):
            obs, rew, term, trunc, _ = env.step(np.full(4, 7))
            out += [obs, rew, term, trunc]
        return out

    for x, y in zip(run(), run(), strict=True):
        np.testing.assert_array_equal(x, y)


def test_streams_depend_on_the_row_seed_only() -> None:
    """Draw ``j`` of a row is a function of its seed and ``j``: whatever the batch, the order of draws
    or the refills (more than ``WIDTH`` draws)."""
    big = RowStreams(5)
    big.seed(np.arange(5), [10, 11, 12, 13, 14])
    small = RowStreams(1)
    small.seed(np.arange(1), [12])
    got, want = [], []
    rng = np.random.default_rng(0)
    for _ in range(3 * WIDTH):
        rows = np.flatnonzero(rng.random(5) < 0.5)  # row 2 draws in some calls only
        v = big.throws(rows)
        if 2 in rows:
            got.append(int(v[list(rows).index(2)]))
            want.append(int(small.throws(np.zeros(1, np.int64))[0]))
    assert got == want and len(got) > WIDTH


def test_stream_throws_are_uniform() -> None:
    """Throw indices over 216 outcomes: a chi-square test on 432,000 draws (fails with p < 1e-6)."""
    s = RowStreams(1000)
    s.seed(np.arange(1000), list(range(1000)))
    v = np.concatenate([s.throws(np.arange(1000)) for _ in range(432)])
    counts = np.bincount(v, minlength=216)
    chi2 = float(((counts - 2000.0) ** 2 / 2000.0).sum())
    assert counts.size == 216 and chi2 < 330  # 215 degrees of freedom: P(chi2 > 330) < 1e-6
    u = s.random(np.arange(1000))
    assert ((u >= 0) & (u < 1)).all()
    assert set(s.integers(np.arange(1000), 3).tolist()) == {0, 1, 2}


def test_random_agent_without_row_streams_uses_its_own_generator() -> None:
    """Outside the vector env (no ``batch.row_rng``), ``RandomAgent.act_batch`` draws as before."""
    env = ZanzibarVectorEnv(6, seed=0)
    env.reset(seed=0)
    b = env.view_batch(np.arange(6))
    plain = ViewBatch(**{f: getattr(b, f) for f in b.__dataclass_fields__})
    acts = RandomAgent(seed=3).act_batch(plain)
    np.testing.assert_array_equal(acts, np.random.default_rng(3).integers(8, size=6))
    with_rows = RandomAgent(seed=3).act_batch(b)  # row streams: not the agent's generator
    assert with_rows.shape == (6,)


def test_a_sampling_policy_agent_draws_per_env() -> None:
    """``zanzibar_env.agents.policy.PolicyAgent(sample=True)`` draws through ``batch.row_rng`` too."""
    from zanzibar_env.agents.policy import PolicyAgent

    def agent() -> PolicyAgent:
        return PolicyAgent(lambda obs: np.zeros((len(obs), 8)), output="logits", sample=True, seed=0)

    want = _trace([4], 0, 40, opponents=agent(), episode="round")
    assert want == _trace([9, 4], 1, 40, opponents=agent(), episode="round")


class _OwnRandom(RandomAgent):
    """A stochastic bot that ignores ``batch.row_rng`` (its own generator, reseeded by the env)."""

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return self.rng.integers(8, size=len(batch))


def test_bots_that_ignore_row_streams_still_reproduce_the_run() -> None:
    """Valid and reproducible as a whole (same seeds, same batch), not per env (documented)."""
    assert _trace([1, 2, 3], 1, 40, opponents=_OwnRandom()) == _trace(
        [1, 2, 3], 1, 40, opponents=_OwnRandom()
    )


def test_rng_benchmark_runs() -> None:
    from benchmarks.vector_rng import main

    ((n, streams_us, pool_us),) = main(["--envs", "4", "--steps", "5", "--repeats", "1"])
    assert n == 4 and streams_us >= 0 and pool_us >= 0
