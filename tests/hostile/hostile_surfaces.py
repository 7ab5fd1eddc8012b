"""Generators of hostile inputs to the newer surfaces for :mod:`tests.hostile.hostile`: OpenSpiel state strings and
players, the JAX state's bit fields, env options and opponents that never let the learner decide, and agents
used on rules or table sizes they were not made for.

The same conventions as :mod:`tests.hostile.hostile_api`: curated cases first, then ``n`` random ones, each judged
by the documented rule (a valid input must be accepted, any other must get one clear ``ValueError``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import numpy as np

from .hostile import Case
from .hostile_api import VALUES, _int
from .hostile_cases import _pick

HEADER = "zanzibar-state 1"


def _have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def openspiel_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """State strings (garbage, pickles, illegal histories, valid ones) and player arguments."""
    if not _have("pyspiel"):
        return
    import pyspiel

    import zanzibar_env.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("python_zanzibar_round")
    state = game.new_initial_state()
    texts = ["", "garbage", f"{HEADER}\nhistory=", f"{HEADER}\nhistory=5", "history=\nmove_number=0\n__dict__=gA==",
             f"{HEADER}\nhistory=5,100", f"{HEADER}\nhistory=" + "5," * 100 + "5", f"{HEADER}\nhistory=-1"]  # fmt: skip
    for _ in range(n):
        texts.append(
            f"{HEADER}\nhistory=" + ",".join(str(int(v)) for v in rng.integers(0, 400, rng.integers(0, 6)))
        )
    for k, text in enumerate(texts):  # (a random history may be legal: either outcome, but no traceback)
        bad = k < 8 and text not in (f"{HEADER}\nhistory=", f"{HEADER}\nhistory=5")
        yield Case(f"deserialize_state({text[:30]!r})", lambda t=text: game.deserialize_state(t), bad=bad)
    for value in [*VALUES[:10], 0, 1, 2, -1, 5, np.int64(1)] + [_pick(rng, VALUES) for _ in range(n)]:
        ok = _int(value, 0, 1)
        yield Case(f"observation_tensor({value!r})", lambda v=value: state.observation_tensor(v), bad=not ok)


def jax_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Bit-field values through ``State.replace`` and the env's options."""
    if not _have("jax"):
        return
    import jax

    from zanzibar_env.jax._state import RANGES
    from zanzibar_env.jax.env import Env

    state = Env().init(jax.random.PRNGKey(0))
    fields = sorted(RANGES)
    for _ in range(max(n, 4)):
        name = _pick(rng, fields)
        lo, hi = RANGES[name]
        value = _pick(rng, [lo - 1, hi + 1, lo, hi, -5, 123, 2.5, True, *VALUES[:6]])
        ok = _int(value, lo, hi) or (isinstance(value, bool) and name == "turn_over")
        yield Case(f"replace({name}={value!r})", lambda k=name, v=value: state.replace(**{k: v}), bad=not ok)
    for key, value in [
        ("illegal_action_penalty", float("nan")),
        ("illegal_action_penalty", "1"),
        ("skip_no_decision", "false"),
        ("skip_no_decision", 1),
        ("illegal_action_penalty", -2),
    ]:
        ok = key == "illegal_action_penalty" and value == -2
        yield Case(f"Env({key}={value!r})", lambda k=key, v=value: Env(**{k: v}), bad=not ok, timeout=300)
    yield from _stuck_cases()


def _stuck_cases() -> Iterator[Case]:
    """Opponents that always stop at once: a learner rolling second never decides (once a loop for ever)."""
    import jax

    from zanzibar_env.core.policy_table import PolicyTable
    from zanzibar_env.jax.env import Env

    stopper = PolicyTable("features", name="stopper", actions=np.full(1, 7, np.int8))
    for seat, skip in [(1, True), (0, True), (1, False), ("random", True)]:
        env = Env("classic", 2, opponents=stopper, seat=seat, skip_no_decision=skip)
        name = f"Env(opponents=stopper, seat={seat!r}, skip_no_decision={skip}).init"
        yield Case(name, lambda e=env: e.init(jax.random.PRNGKey(0)), bad=seat == 1 and skip, timeout=300)


def made_for_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """A shipped baseline used on other rules, as an env opponent and in a tournament plan."""
    if not _have("torch"):
        return
    import gymnasium as gym

    import zanzibar_env  # noqa: F401
    from zanzibar_env.train.tournament.play import plan_tournament

    for ruleset in ["classic", "simple_scoring", "lives"]:
        bad = ruleset != "classic"
        yield Case(
            f"opponent ppo_classic_2p at {ruleset}",
            lambda r=ruleset: gym.make("Zanzibar-v1", ruleset=r, opponents="ppo_classic_2p"),
            bad=bad,
        )
        yield Case(f"tournament ppo_classic_2p at {ruleset}",
                   lambda r=ruleset: plan_tournament(["ppo_classic_2p", "greedy"], players=2, games=2, ruleset=r),
                   bad=bad)  # fmt: skip
    for players in [2, 3, 4]:  # trained at 2 players (its NAME.json)
        env = partial(gym.make, "ZanzibarRound-v1", num_players=players, opponents="ppo_classic_2p")
        yield Case(f"opponents ppo_classic_2p at {players} players", env, bad=players != 2)
        plan = partial(plan_tournament, ["ppo:ppo_game_4p_teacher", "greedy"], players=players, games=players)
        yield Case(f"tournament ppo:ppo_game_4p_teacher at {players} players", plan, bad=players != 4)


GENERATORS = (openspiel_cases, jax_cases, made_for_cases)
