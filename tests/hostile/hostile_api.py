"""Generators of hostile Python API arguments for :mod:`tests.hostile.hostile`: the envs (single, vector, PettingZoo).

Each generator ``(rng, scratch_dir, n)`` yields curated cases (every hostile example we document)
and then ``n`` random ones: hostile values for one or more arguments of a public function or
method, judged by an *oracle* (the documented rule for that argument). An input the oracle calls
valid must be accepted and must work (the env resets and steps, the game replays, the text is clean);
one it calls invalid must give a clear ``ValueError``/``TypeError``. Where the documentation leaves a
value open the case accepts either outcome (``bad=False``) and still checks an accepted result.

A call made out of order (``step`` before ``reset``) must raise Gymnasium's ``ResetNeeded`` (the envs'
own subclasses it) with a one-line message; :func:`_in_order` turns it into the ``ValueError`` the
harness counts as clear, and lets any other exception through.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .hostile import Case
from .hostile_cases import HOSTILE_VALUES, _pick

#: Values tried for any argument: the shared hostile ones, numpy scalars and strings that look like bools.
VALUES: list[Any] = [
    *HOSTILE_VALUES, np.int64(1), np.float64(1.0), np.bool_(True), "false", "true", "0", "random", b"x",
    (1, 2), np.array([1, 2]), np.array(3), -(10**30), object(),
]  # fmt: skip
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # anything a terminal may act on (not \t or \n)


def _int(v: Any, lo: int, hi: int | None = None) -> bool:
    """An integer (Python or numpy, not a bool) in ``lo..hi``."""
    ok = isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
    return ok and v >= lo and (hi is None or v <= hi)


def _seed_ok(v: Any) -> bool:
    return v is None or _int(v, 0)


def _options_ok(options: Any, seat_ok: Callable[[Any], bool | None]) -> bool:
    """``reset(options=...)`` of the Gymnasium envs: ``None`` or a dict whose only key is ``"seat"``."""
    if options is None:
        return True
    if not isinstance(options, dict) or not set(options) <= {"seat"}:
        return False
    return options.get("seat") is None or bool(seat_ok(options["seat"]))


def _in_order(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` with a call-order error (Gymnasium's ``ResetNeeded``) turned into a ``ValueError``."""
    from gymnasium.error import ResetNeeded

    def run() -> Any:
        try:
            return fn()
        except ResetNeeded as e:
            raise ValueError(str(e)) from None

    return run


# ---- agents given as objects -----------------------------------------------------------------------
class _ActNotCallable:
    act = 5


class _NoAct:
    pass


class _Stopper:
    def act(self, view: Any) -> int:
        return 7


def _agents() -> list[tuple[Any, bool | None]]:
    """``(agent spec, valid as an env opponent)``: names, instances, a class, broken objects."""
    from zanzibar_env.agents.heuristics import GreedyAgent

    return [
        ("random", True), ("greedy", True), (GreedyAgent(), True), (_Stopper(), True), (GreedyAgent, False),
        (_ActNotCallable(), False), (_NoAct(), False), (lambda v: 7, False), ("nope", False), (None, False),
        (3, False), ("ppo:/nonexistent/m.zip", False), ("no_such_module_xyz:Bot", False), ("", False),
    ]  # fmt: skip


# ---- the single Gymnasium env ----------------------------------------------------------------------
def _env_oracle(key: str, v: Any, n: int) -> bool | None:
    """Whether ``v`` is a valid ``key=`` of the single env for ``n`` players (``None``: either way)."""
    choices = {
        "reward": ("chips", "win"),
        "episode": ("game", "round"),
        "obs_type": ("flat", "onehot", "dict"),
    }
    if key in choices:
        return isinstance(v, str) and v in choices[key]
    if key == "num_players":
        return _int(v, 2, 8)
    if key == "seat":
        return (isinstance(v, str) and v == "random") or _int(v, 0, n - 1)
    if key == "max_rounds":
        return v is None or _int(v, 1)
    if key == "skip_no_decision":
        return isinstance(v, (bool, np.bool_))
    if key == "render_mode":
        return v is None or (isinstance(v, str) and v in ("ansi", "rgb_array", "human"))
    if key == "ruleset":
        from zanzibar_env import Ruleset, available_rulesets

        return isinstance(v, Ruleset) or (isinstance(v, str) and v in available_rulesets()) or None
    return None


ENV_POOLS: dict[str, list[Any]] = {
    "ruleset": ["classic", "lives", "penalty", "nope", "../../x"],
    "num_players": [2, 3, 8, np.int64(4), 9, 1],
    "seat": ["random", 0, 1, np.int64(1), 7, "1"],
    "reward": ["chips", "win", "Chips"],
    "episode": ["game", "round", "rounds"],
    "obs_type": ["flat", "onehot", "dict", "Dict"],
    "max_rounds": [None, 1, 3, np.int64(2), 0],
    "skip_no_decision": [True, False, np.bool_(False), "false", "False", 0, 1, None],
    "render_mode": [None, "ansi", "rgb_array", "human", "rgb"],
}


def _plays(env: Any, steps: int = 30) -> bool:
    """Reset with a seed and step (the last legal action) until the end or ``steps``: spaces respected."""
    obs, info = env.reset(seed=0)
    if not env.observation_space.contains(obs):
        return False
    for _ in range(steps):
        obs, reward, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        if not env.observation_space.contains(obs) or not isinstance(reward, float):
            return False
        if term or trunc:
            break
    return True


def _env_valid(kw: dict[str, Any]) -> Callable[[Any], bool]:
    def valid(env: Any) -> bool:
        u = env.unwrapped
        if "skip_no_decision" in kw and u.skip_no_decision is not bool(kw["skip_no_decision"]):
            return False
        with contextlib.redirect_stdout(io.StringIO()):  # render_mode="human" prints
            ok = _plays(env)
        if env.render_mode in ("ansi", "rgb_array"):
            frame = env.render()
            ok = ok and (isinstance(frame, str) if env.render_mode == "ansi" else frame.ndim == 3)
        return ok and (not _int(kw.get("seat"), 0) or u.seat == kw["seat"])

    return valid


def _random_kwargs(rng: np.random.Generator, pools: dict[str, list[Any]]) -> dict[str, Any]:
    keys = list(pools)
    kw = {}
    for _ in range(int(rng.integers(1, 4))):
        key = _pick(rng, keys)
        kw[key] = _pick(rng, pools[key] + VALUES) if rng.random() < 0.5 else _pick(rng, pools[key])
    return kw


def _verdict(kw: dict[str, Any], oracle: Callable[[str, Any, int], bool | None]) -> bool | None:
    """``False`` if an argument is invalid, ``True`` if all are, else ``None`` (the oracle cannot tell)."""
    n = kw["num_players"] if _int(kw.get("num_players"), 2, 8) else 2
    verdicts = [oracle(k, v, n) for k, v in kw.items()]
    return False if False in verdicts else None if None in verdicts else True


def _env_step(env: Any, action: Any) -> Any:
    env.reset(seed=3)
    return env.step(action)


def env_api_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """The single env: constructor kwargs, ``reset`` seeds and options, ``step`` actions, call order."""
    import gymnasium as gym

    from zanzibar_env.envs.env import ZanzibarEnv

    yield Case("gym.make skip_no_decision='false'", lambda: gym.make("Zanzibar-v1", skip_no_decision="false"))
    yield Case("reset(options='x')", lambda: ZanzibarEnv().reset(options="x"))  # type: ignore[arg-type]
    yield Case("reset(options={'sat': 0})", lambda: ZanzibarEnv().reset(options={"sat": 0}))
    yield Case("reset(seed=1.5)", lambda: ZanzibarEnv().reset(seed=1.5))  # type: ignore[arg-type]
    yield Case("reset(seed=-1)", lambda: ZanzibarEnv().reset(seed=-1))
    yield Case("reset(seed='abc')", lambda: gym.make("Zanzibar-v1").reset(seed="abc"))
    yield Case("step before reset", _in_order(lambda: ZanzibarEnv().step(7)))
    yield Case("reset(seed=np.int64)", lambda: ZanzibarEnv().reset(seed=np.int64(3)), bad=False)
    yield Case(
        "reset(options={'seat': 'random'})",
        lambda: ZanzibarEnv(num_players=3).reset(options={"seat": "random"}),
        bad=False,
    )
    for spec, ok in _agents():
        yield Case(f"opponents={spec!r}", lambda s=spec: ZanzibarEnv(opponents=s), bad=not ok)
    for k in range(n):
        kw = _random_kwargs(rng, ENV_POOLS)
        verdict = _verdict(kw, _env_oracle)
        yield Case(
            f"env kwargs {k} {kw!r}",
            lambda kw=kw: ZanzibarEnv(**kw),
            bad=verdict is False,
            valid=_env_valid(kw),
        )
        seed = _pick(rng, [None, 0, 5, np.int64(2), np.uint8(9), 10**30, *VALUES])
        options = _pick(
            rng, [None, {}, {"seat": 0}, {"seat": 2}, {"seat": "random"}, {"seat": None}, *VALUES]
        )
        if isinstance(options, dict) and rng.random() < 0.3:
            options["seat"] = _pick(rng, VALUES)
        ok = _seed_ok(seed) and _options_ok(options, lambda s: _env_oracle("seat", s, 3))
        yield Case(
            f"env reset {k} seed={seed!r} options={options!r}",
            lambda s=seed, o=options: ZanzibarEnv(num_players=3).reset(seed=s, options=o),
            bad=not ok,
        )
        action = _pick(rng, [0, 3, 7, np.int64(7), np.array(7), *VALUES])
        ok = _int(action, 0, 7) or (
            isinstance(action, np.ndarray) and action.shape == () and _int(action.item(), 0, 7)
        )
        yield Case(f"env step {k} {action!r}", lambda a=action: _env_step(ZanzibarEnv(), a), bad=not ok)


# ---- the vector env --------------------------------------------------------------------------------
VEC_POOLS: dict[str, list[Any]] = {
    "num_envs": [1, 4, np.int64(2), 0, -1, "4"],
    "seat": ["random", 0, 1, ["random", 0, 1, 0], [0, 1], ("random",) * 4, np.array([0, 1, 0, 1])],
    "seed": [None, 0, 7, np.int64(3), [1, 2, 3, 4], [None, 1, None, 2], -3, 1.5, "abc"],
    "autoreset_mode": ["same_step", "next_step", "Same_Step", 3],
    "max_episode_steps": [None, 1, 5, 0, -2, 2.0],
    "skip_no_decision": [True, False, "false", 1, None],
    "obs_type": ["flat", "onehot", "dict", "Dict"],
    "render_mode": [None, "ansi"],
    "reward": ["chips", "win", "WIN"],
    "max_rounds": [None, 2, 0],
}


def _vec_oracle(key: str, v: Any, n: int, num_envs: int = 4) -> bool | None:
    if key == "num_envs":
        return _int(v, 1)
    if key == "seat":
        if isinstance(v, (list, tuple, np.ndarray)) and np.ndim(v) == 1:
            return len(v) == num_envs and all(_env_oracle("seat", s, n) for s in v)
        return _env_oracle("seat", v, n)
    if key == "seed":
        if isinstance(v, list):
            return len(v) == num_envs and all(_seed_ok(s) for s in v)
        return _seed_ok(v)
    if key == "autoreset_mode":
        return v in ("same_step", "next_step")
    if key == "max_episode_steps":
        return v is None or _int(v, 1)
    if key == "render_mode":
        return v is None
    return _env_oracle(key, v, n)


def _vec_plays(envs: Any) -> bool:
    obs, infos = envs.reset()
    for _ in range(10):
        if not envs.observation_space.contains(obs):
            return False
        acts = np.array([np.flatnonzero(m)[-1] for m in infos["action_mask"]])
        obs, rewards, *_, infos = envs.step(acts)
    return rewards.dtype.kind == "f"


def vector_api_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """The vector env: constructor kwargs, ``reset`` seeds and options (seats per env), ``step`` actions."""
    from zanzibar_env.envs.vector import ZanzibarVectorEnv as V

    yield Case(
        "vector reset seat random", lambda: V(4, num_players=3).reset(options={"seat": "random"}), bad=False
    )
    yield Case(
        "vector reset seats mixed",
        lambda: V(2, num_players=3).reset(options={"seat": ["random", 2]}),
        bad=False,
        valid=lambda r: r[1]["seat"][1] == 2,
    )
    yield Case("vector reset options='x'", lambda: V(2).reset(options="x"))  # type: ignore[arg-type]
    yield Case("vector reset options={'seats': 0}", lambda: V(2).reset(options={"seats": 0}))
    yield Case("vector step before reset", _in_order(lambda: V(2).step(np.array([7, 7]))))
    yield Case("vector skip_no_decision='false'", lambda: V(2, skip_no_decision="false"))
    for spec, ok in _agents():
        yield Case(f"vector opponents={spec!r}", lambda s=spec: V(2, opponents=s), bad=not ok)
    for k in range(n):
        kw = _random_kwargs(rng, VEC_POOLS)
        num_envs = kw.pop("num_envs", 4)
        nv = num_envs if _int(num_envs, 1) else 4
        verdict = _verdict(kw, lambda key, v, n, nv=nv: _vec_oracle(key, v, n, nv))
        verdict = False if not _int(num_envs, 1) else verdict
        yield Case(
            f"vector kwargs {k} num_envs={num_envs!r} {kw!r}",
            lambda ne=num_envs, kw=kw: V(ne, **kw),
            bad=verdict is False,
            valid=_vec_plays,
        )
        seed = _pick(rng, VEC_POOLS["seed"] + [[0, 1], *VALUES])
        seats = [[0, 1, 2, 0], ["random", 1, 2, 0], [0, 1], 3, 1, "random", np.array([2, 2, 2, 2]), None]
        opt = _pick(rng, [None, {}, *({"seat": s} for s in seats), *VALUES])
        ok = _vec_oracle("seed", seed, 3) and _options_ok(opt, lambda s: _vec_oracle("seat", s, 3))
        yield Case(
            f"vector reset {k} seed={seed!r} options={opt!r}",
            lambda s=seed, o=opt: V(4, num_players=3).reset(seed=s, options=o),
            bad=not ok,
        )
        acts = _pick(rng, [np.array([7, 7, 7, 7]), [0, 1, 2, 3], np.array([7.0] * 4), [7, 7], 7, *VALUES])
        a = np.asarray(acts)
        ok = a.shape == (4,) and a.dtype.kind in "iu" and bool(((a >= 0) & (a <= 7)).all())
        yield Case(f"vector step {k} {acts!r}", lambda x=acts: _env_step(V(4), x), bad=not ok)


# ---- PettingZoo ------------------------------------------------------------------------------------
AGENT_NAMES: list[Any] = ["player_0", "player_1", "player_9", "nobody", "", 0, None, ["player_0"], {"a": 1}]


def _pz(kind: str, **kw: Any) -> Any:
    from zanzibar_env.envs.multiagent import env, raw_env
    from zanzibar_env.envs.parallel import parallel_env

    return {"aec": env, "raw": raw_env, "parallel": parallel_env}[kind](**kw)


def _reset(e: Any, **kw: Any) -> Any:
    e.reset(**kw)
    return e


def _par_step(actions: Any) -> Any:
    e = _pz("parallel")
    e.reset(seed=0)
    return e.step(actions)


def pettingzoo_api_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """The AEC and parallel envs: constructor kwargs, agent names, call order, seeds, options, actions."""
    for kind in ("aec", "raw", "parallel"):
        for method in ("observe", "action_space", "observation_space"):
            for name in AGENT_NAMES:
                if method == "observe" and kind == "parallel":
                    continue
                ok = name in ("player_0", "player_1")
                yield Case(
                    f"{kind}.{method}({name!r})",
                    lambda kd=kind, m=method, a=name: getattr(_reset(_pz(kd), seed=0), m)(a),
                    bad=not ok,
                )
        yield Case(
            f"{kind} step before reset",
            _in_order(lambda kd=kind: _pz(kd).step(7 if kd != "parallel" else {})),
        )
        yield Case(f"{kind} reset(options='x')", lambda kd=kind: _pz(kd).reset(options="x"))
        yield Case(f"{kind} reset(seed=1.5)", lambda kd=kind: _pz(kd).reset(seed=1.5))
        yield Case(f"{kind} reset(seed=np.int64)", lambda kd=kind: _pz(kd).reset(seed=np.int64(2)), bad=False)
        yield Case(
            f"{kind} reset options dummy", lambda kd=kind: _pz(kd).reset(options={"options": 1}), bad=False
        )
    yield Case("aec observe before reset", _in_order(lambda: _pz("aec").observe("player_0")))
    yield Case("raw observe before reset", _in_order(lambda: _pz("raw").observe("player_0")))
    yield Case("raw render before reset", _in_order(lambda: _pz("raw", render_mode="ansi").render()))
    yield Case("raw state before reset", _in_order(lambda: _pz("raw").state()))
    yield Case("parallel state before reset", _in_order(lambda: _pz("parallel").state()))
    for actions in (None, "x", [7], 7, {"player_0": 7, "nobody": 0}, {"player_0": "7"}, {"player_0": 9}):
        yield Case(f"parallel step({actions!r})", lambda a=actions: _par_step(a))
    yield Case(
        "parallel step waiting ignored", lambda: _par_step({"player_0": 7, "player_1": "x"}), bad=False
    )
    pools = {
        k: ENV_POOLS[k]
        for k in ("ruleset", "num_players", "reward", "episode", "obs_type", "max_rounds", "render_mode")
    }
    for k in range(n):
        kw = _random_kwargs(rng, pools)
        kind = _pick(rng, ["aec", "raw", "parallel"])
        verdict = _verdict(kw, _env_oracle)
        yield Case(f"{kind} kwargs {k} {kw!r}", lambda kd=kind, kw=kw: _pz(kd, **kw), bad=verdict is False)
        seed = _pick(rng, [None, 0, 9, np.int64(1), *VALUES])
        opts = _pick(rng, [None, {}, {"options": 1}, *VALUES])
        ok = _seed_ok(seed) and (opts is None or isinstance(opts, dict))
        yield Case(
            f"{kind} reset {k} {seed!r} {opts!r}",
            lambda kd=kind, s=seed, o=opts: _pz(kd).reset(seed=s, options=o),
            bad=not ok,
        )
        action = _pick(rng, [0, 7, np.int64(3), np.array(7), *VALUES])
        ok = _int(action, 0, 7) or (
            isinstance(action, np.ndarray) and action.shape == () and _int(action.item(), 0, 7)
        )
        if kind == "parallel":
            yield Case(
                f"parallel step {k} {action!r}",
                lambda a=action: _par_step({"player_0": a, "player_1": 7}),
                bad=not ok,
            )
        else:
            yield Case(
                f"{kind} step {k} {action!r}",
                lambda kd=kind, a=action: _reset(_pz(kd), seed=0).step(a),
                bad=not ok,
            )


GENERATORS = (env_api_cases, vector_api_cases, pettingzoo_api_cases)
