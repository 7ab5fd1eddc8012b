"""The native vector env: API, exact agreement with the single env on scripted dice, and in distribution."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from scipy.stats import chi2_contingency

import zanzibar_env  # noqa: F401  (registers the ids)
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.dice import ScriptedDice
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch, encode, encode_batch
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.envs.env import ZanzibarEnv
from zanzibar_env.envs.vector import ZanzibarVectorEnv


def policy(obs: np.ndarray, holds: bool = True) -> np.ndarray:
    """A deterministic action from observations ``[B, 33]`` (mixes dice, rolls and stacks)."""
    o = np.atleast_2d(obs).astype(np.float64)
    key = np.rint(
        o[:, 0] * 42 + o[:, 1] * 18 + o[:, 2] * 6 + o[:, 4] * 3 + o[:, 16] * 20 + o[:, 8] * 7
    ).astype(int)
    a = key % 8
    return a if holds else np.where(a % 2 == 0, 0, 7)


class ObsBot(BaseAgent):
    """A deterministic bot that acts by :func:`policy` on its own observation (scalar and batched)."""

    name = "obsbot"

    def act(self, view: View) -> int:
        return int(policy(encode(view), view.ruleset.holds_allowed)[0])

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        return policy(encode_batch(batch), batch.ruleset.holds_allowed)


class ObsBotNoBatch(ObsBot):
    """The same bot without ``act_batch`` (exercises the vector env's per-row fallback)."""

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        raise NotImplementedError


RULESETS = {
    "classic": "classic",
    "simple_scoring": "simple_scoring",
    "alt_chips": "alt_chips",
    "lives": "lives",
    # exercise every option: no holds, everyone tied loses, fixed limit, instant 4-5-6 (worst so far loses)
    "odd": load_ruleset(
        "classic",
        holds_allowed=False,
        tie_rule="all",
        first_roller_sets_limit=False,
        instant_zanzibar="worst_so_far_loses",
        starting_stack=5,
    ),
    "lives_rolloff": load_ruleset(
        "lives", tie_rule="rolloff", first_roller_sets_limit=True, starting_stack=4
    ),
    # the three options of RULES.md §7-§9, each against the engine on scripted dice
    "lives_by_top": load_ruleset(
        "lives",
        payment="lives_by_highest_hand",
        lives_table={"zanzibar": 2, "three_of_a_kind": "face", "pair": 1, "sum": 1},
        instant_zanzibar="worst_so_far_loses",
        starting_stack=6,
    ),
    "penalty": load_ruleset("penalty", num_rounds=4),
    "penalty_by_top": load_ruleset(
        "penalty",
        num_rounds=3,
        payment="lives_by_highest_hand",
        lives_table={"zanzibar": 0, "three_of_a_kind": "face", "pair": 1, "sum": 1},
        tie_rule="rolloff",
    ),
    "penalty_limit": load_ruleset("penalty", num_rounds=None, penalty_limit=3),
    "best": load_ruleset("classic", final_hand="best", starting_stack=6),
    "best_lives": load_ruleset("lives", final_hand="best", first_roller_sets_limit=True, starting_stack=3),
}


def _compare(
    ruleset: object, n: int, episode: str, reward: str, rows: int, bot: BaseAgent, seat: int = 0
) -> int:
    """Step ``rows`` single envs and one vector env on the same scripted dice for up to three
    episodes per row (through the vector env's autoreset); every output must agree exactly."""
    rules = ruleset if not isinstance(ruleset, str) else load_ruleset(ruleset)
    rng = np.random.default_rng(7 + seat)
    faces = [rng.integers(1, 7, 60_000).tolist() for _ in range(rows)]
    kw = dict(
        ruleset=rules, num_players=n, opponents=bot, reward=reward, episode=episode, max_rounds=25, seat=seat
    )
    singles = [ZanzibarEnv(dice=ScriptedDice(faces[i]), **kw) for i in range(rows)]
    vec = ZanzibarVectorEnv(rows, **kw)
    vec.set_dice_sources([ScriptedDice(f) for f in faces])
    obs_v, _ = vec.reset()
    np.testing.assert_array_equal(obs_v, np.stack([e.reset(seed=0)[0] for e in singles]))
    live, episodes, steps = np.ones(rows, bool), np.zeros(rows, int), 0
    while live.any():
        act = policy(obs_v, rules.holds_allowed)
        obs_v, rew_v, term_v, trunc_v, info = vec.step(act)
        for i in np.flatnonzero(live):
            e = singles[i]
            o, r, te, tr, _ = e.step(int(act[i]))
            assert (te, tr) == (term_v[i], trunc_v[i]), f"row {i} step {steps}"
            assert r == pytest.approx(rew_v[i]), f"row {i} step {steps}"
            np.testing.assert_array_equal(info["final_obs"][i] if te or tr else obs_v[i], o)
            if te or tr:
                episodes[i] += 1
                # the engine starts the next round when a lives agent is out; the vector env does not
                out = rules.stake == "lives" and e._final_stacks[seat] == 0
                if episodes[i] == 3 or out:
                    live[i] = False
                else:
                    np.testing.assert_array_equal(e.reset()[0], obs_v[i])
        steps += 1
    return steps


@pytest.mark.parametrize("name", list(RULESETS))
@pytest.mark.parametrize("n", [2, 4])
def test_agrees_with_single_env_on_scripted_dice(name: str, n: int) -> None:
    combos = (("game", "chips"), ("game", "win"), ("round", "win"), ("round", "chips"))
    for k, (episode, reward) in enumerate(combos):
        _compare(
            RULESETS[name], n, episode, reward, rows=4 if episode == "game" else 12, bot=ObsBot(), seat=k % n
        )


def test_per_row_fallback_agrees() -> None:
    _compare("classic", 3, "game", "chips", rows=3, bot=ObsBotNoBatch())


def _round_rewards_single(n_eps: int, ruleset: str, n: int) -> list[float]:
    env = ZanzibarEnv(ruleset=ruleset, num_players=n, episode="round")
    env.action_space.seed(1)
    out = []
    env.reset(seed=3)
    for _ in range(n_eps):
        total, done = 0.0, False
        while not done:
            _, r, te, tr, _ = env.step(env.action_space.sample())
            total += r
            done = te or tr
        out.append(total)
        env.reset()
    return out


def _round_rewards_vector(n_eps: int, ruleset: str, n: int) -> list[float]:
    vec = ZanzibarVectorEnv(256, ruleset=ruleset, num_players=n, episode="round")
    vec.reset(seed=4)
    rng = np.random.default_rng(5)
    acc = np.zeros(256)
    out: list[float] = []
    while len(out) < n_eps:
        _, r, te, tr, _ = vec.step(rng.integers(8, size=256))
        acc += r
        ended = te | tr
        out.extend(acc[ended].tolist())
        acc[ended] = 0.0
    return out[:n_eps]


@pytest.mark.parametrize(("ruleset", "n"), [("classic", 2), ("lives", 3), ("alt_chips", 3)])
def test_round_reward_distribution_matches_single_env(ruleset: str, n: int) -> None:
    """Chi-square test of the per-round reward distribution (random play); false-alarm rate 1e-3."""
    a = _round_rewards_single(3000, ruleset, n)
    b = _round_rewards_vector(3000, ruleset, n)
    values = sorted(set(a) | set(b))
    table = np.array([[a.count(v) for v in values], [b.count(v) for v in values]])
    table = table[:, table.sum(0) >= 10]  # pool nothing, drop values too rare for the test
    p = chi2_contingency(table).pvalue
    assert p > 1e-3, (values, table, p)


def test_make_vec_and_spaces() -> None:
    for env_id in ("Zanzibar-v1", "ZanzibarRound-v1"):
        vec = gym.make_vec(env_id, num_envs=8, vectorization_mode="vector_entry_point", ruleset="lives")
        assert isinstance(vec.unwrapped, ZanzibarVectorEnv)
        assert vec.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
        obs, info = vec.reset(seed=0)
        assert vec.observation_space.contains(obs)
        assert info["action_mask"].shape == (8, 8) and info["action_mask"].dtype == bool
        assert vec.unwrapped.episode == ("round" if env_id == "ZanzibarRound-v1" else "game")


def test_same_step_autoreset_final_obs() -> None:
    vec = ZanzibarVectorEnv(16, episode="round", reward="win", seed=0)
    obs, _ = vec.reset(seed=0)
    seen = 0
    for _ in range(20):
        obs, r, te, tr, info = vec.step(np.full(16, 7))
        ended = te | tr
        if ended.any():
            seen += 1
            assert (info["_final_obs"] == ended).all() and (info["_final_info"] == ended).all()
            for i in np.flatnonzero(ended):
                fo = info["final_obs"][i]
                assert fo.shape == (33,) and (fo[:16] == 0).all() and fo[32] == 2 / 8
                assert r[i] in (-1.0, 0.0, 1.0)
                assert info["final_info"]["num_rounds"][i] == 1
        # every returned obs is a new (or running) episode's decision, not a terminal one
        assert (obs[:, 0] > 0).sum() >= 16 - vec.passing.sum()
    assert seen > 0


def test_same_seed_same_trajectory() -> None:
    runs = []
    for _ in range(2):
        vec = ZanzibarVectorEnv(32, ruleset="classic", num_players=3, seed=0)
        obs, _ = vec.reset(seed=11)
        rng = np.random.default_rng(0)
        traj = [obs]
        for _ in range(200):
            obs, r, te, tr, _ = vec.step(rng.integers(8, size=32))
            traj += [obs, r, te, tr]
        runs.append(traj)
    for x, y in zip(*runs, strict=True):
        np.testing.assert_array_equal(x, y)


def test_chips_conserved_and_nonnegative() -> None:
    vec = ZanzibarVectorEnv(64, ruleset="alt_chips", num_players=5, seed=0)
    vec.reset(seed=2)
    rng = np.random.default_rng(1)
    for _ in range(150):
        vec.step(rng.integers(8, size=64))
        assert (vec.stacks.sum(1) == 100).all() and (vec.stacks >= 0).all()


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="ruleset"):
        ZanzibarVectorEnv(2, ruleset="nope")
    with pytest.raises(ValueError, match="unknown agent"):
        ZanzibarVectorEnv(2, opponents="nobody")
    with pytest.raises(ValueError, match="seat"):
        ZanzibarVectorEnv(2, seat=2)
    for n in (1, 9):
        with pytest.raises(ValueError, match="num_players"):
            ZanzibarVectorEnv(2, num_players=n)
    with pytest.raises(ValueError, match="opponents"):
        ZanzibarVectorEnv(2, num_players=3, opponents=["random"])
    with pytest.raises(ValueError, match="not found"):
        ZanzibarVectorEnv(2, opponents="ppo:/no/such/model.zip")
    with pytest.raises(ValueError, match="reward"):
        ZanzibarVectorEnv(2, reward="money")
    with pytest.raises(ValueError, match="num_envs"):
        ZanzibarVectorEnv(0)
    vec = ZanzibarVectorEnv(2, ruleset=RULESETS["odd"])
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros(2, int))
    vec.reset(seed=0)
    masks = vec.action_masks()
    assert masks.dtype == bool and masks.shape == (2, 8)
    if not vec.passing.any():
        assert masks.sum(1).tolist() == [2, 2]
        with pytest.raises(ValueError, match="illegal action 3"):
            vec.step(np.array([3, 3]))


@pytest.mark.parametrize("name", ["classic", "alt_chips", "lives", "odd", "penalty", "best"])
def test_table_encoding_is_encode_batch(name: str) -> None:
    for n in (2, 3, 8):
        vec = ZanzibarVectorEnv(64, ruleset=RULESETS[name], num_players=n, opponents="random", seed=0)
        vec.reset(seed=n)
        rng = np.random.default_rng(n)
        for _ in range(40):
            rows = np.flatnonzero(~vec.passing)
            np.testing.assert_array_equal(vec.encode_rows(rows), encode_batch(vec.view_batch(rows)))
            vec.step(np.where(vec.action_masks()[:, 1], rng.integers(8, size=64), 7))


@pytest.mark.parametrize(
    ("field", "value"),
    [("dice", 0), ("dice", 7), ("players_after", 8), ("lowest_count", -1), ("lowest_rank", 999),
     ("highest_rank", -2), ("rolls_used", 4), ("is_first", 2)],
)  # fmt: skip
def test_encode_batch_refuses_values_no_view_holds(field: str, value: int) -> None:
    vec = ZanzibarVectorEnv(4, opponents="random", seed=0)
    vec.reset(seed=1)
    batch = vec.view_batch(np.arange(4))
    encode_batch(batch)  # the batch as the env made it encodes
    getattr(batch, field)[0] = value
    with pytest.raises(ValueError, match=f"ViewBatch.{field} must lie in"):
        encode_batch(batch)


@pytest.mark.parametrize("bot", ["greedy", "threshold", "escape", "optimal"])
def test_agrees_with_single_env_with_registry_bots(bot: str) -> None:
    """The registry's bots (act_batch on lazy views in the vector env, act on views in the single env)."""
    from zanzibar_env.agents import make_agent

    for ruleset in ("classic", "lives"):
        _compare(ruleset, 3, "game", "chips", rows=4, bot=make_agent(bot), seat=1)


def _random_ruleset(rng: np.random.Generator) -> object:
    """A random valid combination of ruleset options (own-hand payments keep instant 4-5-6 off)."""
    lives = rng.random() < 0.4
    opts: dict[str, object] = {
        "tie_rule": str(rng.choice(["rolloff", "all"])),
        "first_roller_sets_limit": bool(rng.random() < 0.5),
        "holds_allowed": bool(rng.random() < 0.8),
        "max_rolls": int(rng.integers(1, 5)),
        "starting_stack": int(rng.integers(1, 8)),
        "instant_zanzibar": str(rng.choice(["off", "no_loss", "worst_so_far_loses"])),
    }
    if lives:
        opts["hand_ranking"] = str(rng.choice(["zanzibar_421", "zanzibar_456"]))
        opts["lives_lost"] = int(rng.integers(1, 3))
    else:
        opts["payment"] = str(rng.choice(["highest_hand", "own_hand"]))
        if opts["payment"] == "own_hand":
            opts["instant_zanzibar"] = "off"
    return load_ruleset("lives" if lives else "classic", **opts)


def test_agrees_on_random_rulesets() -> None:
    """Exact agreement on 30 random option combinations, table sizes, seats, episodes and rewards."""
    rng = np.random.default_rng(2024)
    for _ in range(30):
        rules = _random_ruleset(rng)
        n = int(rng.integers(2, 9))
        ep, rw = str(rng.choice(["game", "round"])), str(rng.choice(["chips", "win"]))
        _compare(rules, n, ep, rw, rows=3, bot=ObsBot(), seat=int(rng.integers(n)))


class _Returns:
    """An opponent that always returns the same (possibly bad) action."""

    def __init__(self, value: object) -> None:
        self.value = value

    def act(self, view: object) -> object:
        return self.value

    def act_batch(self, batch: object) -> np.ndarray:
        return np.full(len(batch), self.value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [15, 9, -1, 7.5, 7.0, True, "3"])
@pytest.mark.parametrize("batched", [True, False])
def test_every_opponent_action_is_checked_and_the_row_named(value: object, batched: bool) -> None:
    bot = _Returns(value) if batched else type("Plain", (), {"act": _Returns(value).act})()
    env = ZanzibarVectorEnv(3, opponents=bot, seat=1, seed=0)  # seat 0 (the opponent) acts in reset
    with pytest.raises(ValueError, match=r"in env 0 from an opponent"):
        env.reset(seed=0)


def test_opponent_illegal_without_holds_is_rejected() -> None:
    env = ZanzibarVectorEnv(2, ruleset={**load_ruleset("classic").to_dict(), "holds_allowed": False},
                            opponents=_Returns(3), seat=1, seed=0)  # fmt: skip
    with pytest.raises(ValueError, match=r"illegal action 3 in env 0 from an opponent"):
        env.reset(seed=0)


@pytest.mark.parametrize(
    ("actions", "row"), [([7, 7, 9], 2), ([7, -1, 7], 1), ([7, 7.5, 7], 1), ([8, 7, 7], 0)]
)
def test_every_learner_action_is_checked_and_the_row_named(actions: list[object], row: int) -> None:
    env = ZanzibarVectorEnv(3, seat=0, seed=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=rf"in env {row}"):
        env.step(np.array(actions))


def test_single_env_names_a_bad_opponent() -> None:
    from zanzibar_env.envs.env import ZanzibarEnv

    env = ZanzibarEnv(opponents=_Returns(15), seat=1)
    with pytest.raises(ValueError, match=r"illegal action 15: .*from the opponent in seat 0"):
        env.reset(seed=0)
