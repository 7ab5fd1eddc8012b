"""The Python API's boundary: one check per argument kind (seeds, flags, options, agents, agent names,
observations), calls out of order, the parallel env's waiting mask under TorchRL, ``ansi`` rendering
without Pillow and terminal text without control characters. The generators of
:mod:`tests.hostile.hostile_api` run in :mod:`tests.hostile.test_hostile`; these are their property-based twins."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .hostile import Case, classify
from .hostile_api import CONTROL, ENV_POOLS, _env_oracle, _env_valid, _seed_ok

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
ROOT = Path(__file__).resolve().parents[2]
ANY = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(), st.text(max_size=6),
    st.lists(st.integers(0, 9), max_size=3), st.sampled_from([np.int64(2), np.float64(1.0), np.bool_(True)]),
)  # fmt: skip


def _check(case: Case) -> None:
    outcome, detail = classify(case)
    assert outcome in ("clear", "accepted"), f"{outcome}: {detail}"


@SETTINGS
@given(
    st.sampled_from(sorted(ENV_POOLS)),
    st.one_of(ANY, st.sampled_from([v for p in ENV_POOLS.values() for v in p])),
)
def test_any_value_for_an_env_argument(key: str, value: Any) -> None:
    from zanzibar_env.envs.env import ZanzibarEnv

    bad = _env_oracle(key, value, 2) is False
    _check(
        Case(f"{key}={value!r}", lambda: ZanzibarEnv(**{key: value}), bad=bad, valid=_env_valid({key: value}))
    )


SEED_ENTRY_POINTS = {
    "env": lambda s: __import__("zanzibar_env.envs.env", fromlist=["x"]).ZanzibarEnv().reset(seed=s),
    "vector": lambda s: (
        __import__("zanzibar_env.envs.vector", fromlist=["x"]).ZanzibarVectorEnv(2).reset(seed=s)
    ),
    "aec": lambda s: __import__("zanzibar_env.envs.multiagent", fromlist=["x"]).env().reset(seed=s),
    "parallel": lambda s: (
        __import__("zanzibar_env.envs.parallel", fromlist=["x"]).parallel_env().reset(seed=s)
    ),
    "play_game": lambda s: __import__("zanzibar_env").play_game(seed=s, max_rounds=2),
    "play_round": lambda s: __import__("zanzibar_env").play_round(seed=s),
}


@SETTINGS
@given(st.sampled_from(sorted(SEED_ENTRY_POINTS)), ANY)
def test_any_seed_everywhere(where: str, seed: Any) -> None:
    """Seeds are ``None`` or non-negative integers (numpy's too), refused with one message everywhere."""
    scalar_list = where == "vector" and isinstance(seed, list) and len(seed) == 2
    _check(
        Case(
            f"{where} seed={seed!r}",
            lambda: SEED_ENTRY_POINTS[where](seed),
            bad=not (_seed_ok(seed) or scalar_list),
        )
    )
    if not _seed_ok(seed) and not isinstance(seed, list):
        with pytest.raises(ValueError, match=r"^seed must be None or a non-negative integer"):
            SEED_ENTRY_POINTS[where](seed)


@SETTINGS
@given(st.one_of(ANY, st.sampled_from(["player_0", "player_1", "player_2", "player_9"])))
def test_any_agent_name_in_pettingzoo(agent: Any) -> None:
    from zanzibar_env.envs.multiagent import env
    from zanzibar_env.envs.parallel import parallel_env

    aec, par = env(num_players=2), parallel_env(num_players=2)
    aec.reset(seed=0)
    known = agent in ("player_0", "player_1")
    for call in (
        lambda: aec.observe(agent),
        lambda: aec.action_space(agent),
        lambda: par.observation_space(agent),
    ):
        _check(Case(f"agent {agent!r}", call, bad=not known))
    if not known:
        with pytest.raises(ValueError, match=r"the agents are \['player_0', 'player_1'\]"):
            aec.action_space(agent)


@SETTINGS
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=30, max_size=36))
def test_decode_any_floats(values: list[float]) -> None:
    """``decode`` gives a clear error, or a dict whose dice are faces (or all 0) and table size 2-8."""
    from zanzibar_env import load_ruleset
    from zanzibar_env.core.observation import decode

    def valid(d: Any) -> bool:
        dice = d["dice"]
        return (all(1 <= x <= 6 for x in dice) or dice == (0, 0, 0)) and 2 <= d["num_players"] <= 8

    _check(
        Case(
            "decode",
            lambda: decode(np.array(values), load_ruleset("classic")),
            bad=len(values) != 33,
            valid=valid,
        )
    )


def test_agents_as_objects_are_checked_when_the_env_is_built() -> None:
    import gymnasium as gym

    import zanzibar_env as zz
    from zanzibar_env.agents.heuristics import GreedyAgent

    class ActIsData:
        act = 5

    with pytest.raises(ValueError, match=r"opponents: got the class GreedyAgent.*GreedyAgent\(\)"):
        gym.make("Zanzibar-v1", opponents=GreedyAgent)
    with pytest.raises(ValueError, match=r"opponents must be .* callable \.act"):
        gym.make("Zanzibar-v1", opponents=[ActIsData()])
    with pytest.raises(ValueError, match="policies: got the class GreedyAgent"):
        zz.play_game(policies=GreedyAgent)
    assert zz.play_game(policies=GreedyAgent(), seed=0, max_rounds=2).rounds


def test_flags_options_and_call_order() -> None:
    import gymnasium as gym
    from gymnasium.error import ResetNeeded

    from zanzibar_env.envs.multiagent import env
    from zanzibar_env.envs.parallel import parallel_env
    from zanzibar_env.envs.vector import ZanzibarVectorEnv

    for value in ("false", 0, None):
        with pytest.raises(ValueError, match=f"skip_no_decision must be True or False, got {value!r}"):
            gym.make("ZanzibarRound-v1", skip_no_decision=value)
    assert gym.make("ZanzibarRound-v1", skip_no_decision=np.bool_(True)).unwrapped.skip_no_decision is True
    single = gym.make("Zanzibar-v1", num_players=3, seat=1).unwrapped
    with pytest.raises(ValueError, match="options must be None or a dict"):
        single.reset(options="x")
    with pytest.raises(ValueError, match=r"unknown options \['sat'\]; allowed keys: \['seat'\]"):
        single.reset(options={"sat": 2})
    seats = {single.reset(seed=s, options={"seat": "random"})[1]["seat"] for s in range(20)}
    assert seats == {0, 1, 2} and single.reset(seed=0)[1]["seat"] == 1  # the fixed seat again
    vec = ZanzibarVectorEnv(4, num_players=3)
    assert len(set(vec.reset(seed=0, options={"seat": "random"})[1]["seat"])) > 1
    assert list(vec.reset(seed=0, options={"seat": ["random", 2, 2, 0]})[1]["seat"][1:]) == [2, 2, 0]
    with pytest.raises(ResetNeeded, match=r"^call reset\(\) before step\(\)$"):
        gym.make("Zanzibar-v1").unwrapped.step(7)
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\)$"):  # (also a RuntimeError)
        ZanzibarVectorEnv(2).step(np.array([7, 7]))
    with pytest.raises(ResetNeeded, match="before step"):
        env().step(7)
    with pytest.raises(ResetNeeded, match="before observe"):
        env().observe("player_0")
    with pytest.raises(ResetNeeded, match="before step"):
        parallel_env().step({})
    par = parallel_env()
    par.reset(seed=0)
    with pytest.raises(ValueError, match="actions must be a dict"):
        par.step(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown agents"):
        par.step({"player_0": 7, "nobody": 0})


def test_play_round_nobody_can_pay_and_decode_limits() -> None:
    import zanzibar_env as zz
    from zanzibar_env.core.observation import decode, encode

    with pytest.raises(ValueError, match="a chips round needs a player with chips to pay"):
        zz.play_round(stacks=[0, 0], seed=0)
    assert zz.play_round(stacks=[0, 3], seed=0).stacks_before == [0, 3]
    assert zz.play_round("penalty", stacks=[0, 0], seed=0).stacks_before == [0, 0]  # points count up from 0
    rules = zz.load_ruleset("classic")
    obs = encode(zz.GameState(rules, 3, zz.RandomDice(1)).view()).astype(np.float64)
    assert decode(obs, "classic")["num_players"] == 3
    for i, value, match in ((5, np.nan, r"obs\[5\] is nan"), (20, np.inf, "finite"), (1, 7 / 6, "faces 1-6")):
        bad = obs.copy()
        bad[i] = value
        with pytest.raises(ValueError, match=match):
            decode(bad, rules)
    with pytest.raises(ValueError, match=r"got shape \(32,\)"):
        decode(obs[:32], rules)


def _sample_as_torchrl(mask: np.ndarray, gen: Any) -> int:
    """TorchRL's ``Categorical.rand`` with a mask: ``torch.multinomial(mask.float(), 1)``."""
    import torch

    return int(torch.multinomial(torch.as_tensor(mask).float(), 1, generator=gen))


@pytest.mark.parametrize(
    "kwargs", [{}, {"ruleset": "lives", "num_players": 3}, {"num_players": 4, "episode": "round"}]
)
def test_parallel_waiting_mask_under_torchrl(kwargs: dict[str, Any]) -> None:
    """Waiting agents get one legal action (7, ignored): TorchRL's wrapper passes ``check_env_specs`` and
    rolls out (agents of a lives game leaving included), and its masked sampling never fails."""
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    from zanzibar_env.envs.parallel import WAIT_MASK, parallel_env

    # seeded: TorchRL builds its info specs from the first reset's infos, and cannot from a reset that
    # reports rounds ended before any decision (an instant 4-2-1 in lives: 2% of unseeded resets)
    wrapped = PettingZooWrapper(env=parallel_env(**kwargs), use_mask=True, categorical_actions=True, seed=0)
    check_env_specs(wrapped, seed=0)
    assert wrapped.rollout(200, break_when_any_done=False).batch_size == (200,)
    par, gen = parallel_env(**kwargs), torch.Generator().manual_seed(0)
    obs, _ = par.reset(seed=1)
    while par.agents:
        masks = {a: obs[a]["action_mask"] for a in par.agents}
        deciding = [a for a, m in masks.items() if m.sum() > 1]
        assert len(deciding) == 1 and all(
            (m == WAIT_MASK).all() for a, m in masks.items() if a != deciding[0]
        )
        obs, *_ = par.step({a: _sample_as_torchrl(m, gen) for a, m in masks.items()})


HIDE_PIL = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name == "PIL" or name.startswith("PIL."):
            raise ModuleNotFoundError("No module named 'PIL' (hidden by the test)", name="PIL")
sys.meta_path.insert(0, Hide())
import gymnasium as gym
import zanzibar_env
from zanzibar_env.envs.multiagent import raw_env
env = gym.make("Zanzibar-v1", render_mode="ansi")
env.reset(seed=0)
aec = raw_env(render_mode="ansi")
aec.reset(seed=0)
print(env.render() + aec.render())
try:
    env2 = gym.make("Zanzibar-v1", render_mode="rgb_array"); env2.reset(seed=0); env2.render()
except Exception as e:
    print("rgb:", type(e).__name__, e)
"""


def test_ansi_render_without_pillow() -> None:
    out = subprocess.run(
        [sys.executable, "-c", HIDE_PIL], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert "Zanzibar - classic - round 1" in out.stdout and "Player 1" in out.stdout
    assert "rgb: MissingExtraError" in out.stdout and "[ui]" in out.stdout  # only pictures need Pillow


def test_control_characters_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from rich.console import Console

    import zanzibar_env as zz
    from zanzibar_env.core.provenance import ruleset_digest
    from zanzibar_env.ui.cli import main as zanzibar
    from zanzibar_env.ui.replay import main as replay
    from zanzibar_env.ui.table import printable

    rec = zz.play_game(seed=2, max_rounds=2).to_dict()
    rec["ruleset"]["name"] = "\x1b[2J\x1b[Hwiped\x07\x9b31m"
    rec["ruleset_sha256"] = ruleset_digest(rec["ruleset"])  # a consistent record: only its text is hostile
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    buf = io.StringIO()
    assert replay([str(path)], console=Console(file=buf, width=200), interactive=False) == 0
    assert "Ruleset '[2J[Hwiped31m'" in buf.getvalue() and not CONTROL.search(buf.getvalue())
    assert zanzibar(["replay", str(tmp_path / "\x1b]0;title\x07.jsonl")]) == 2
    err = capsys.readouterr()
    assert "not found" in err.out + err.err and not CONTROL.search(err.out + err.err)
    assert printable("a\tb\nc\x1b[0m\x00\x7f\x85") == "a\tb\nc[0m"


def test_render_command_refuses_unknown_agents_and_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from zanzibar_env.ui.render import main

    for argv, match in (
        (["--agent", "nope"], "unknown agent 'nope'; available: "),
        (["--round", "-5"], "--round must be 1"),
    ):
        with pytest.raises(SystemExit) as e:
            main([*argv, "--out", str(tmp_path / "f.png")])
        assert e.value.code == 2 and match in capsys.readouterr().err
    assert not (tmp_path / "f.png").exists()


def test_module_attr_specs_are_documented_as_running_code() -> None:
    from zanzibar_env.core import registry

    for text in (registry.__doc__ or "", (ROOT / "README.md").read_text(), registry.spec_help()):
        assert "runs" in text and "module" in text
