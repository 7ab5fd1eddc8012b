"""Hostile inputs to the JAX env's compiled loops: setups whose loop the rules alone do not end.

Opponents that never let the learner reach a decision (one that always stops at once, before a learner
rolling second: a roll limit of one) under ``skip_no_decision=True``, and a roll-off that runs out of
scripted dice, used to loop for ever inside ``lax.while_loop``. Each now ends: an eager call raises a
clear ``ValueError``; under ``jit`` and ``vmap`` the state comes back truncated with ``State.halted``
set. The cases run in a subprocess with a timeout, so that a regression fails instead of hanging."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[2]
NO_DECISION = (
    r"no decision in 1000 resets: the opponents \(stopper\) never let the learner at seat 1 reach a "
    r"decision of 'classic' at 2 players .* give other opponents or seats, or set skip_no_decision=False"
)
SCRIPT = r"the dice script ran out in a roll-off after 6 faces: the tied seats would throw its last face"


def _scenario() -> None:
    """The cases, run in the subprocess: prints one JSON object of what each call gave."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from zanzibar_env.core.policy_table import PolicyTable
    from zanzibar_env.jax import Env, auto_reset

    out: dict[str, Any] = {}

    def eager(name: str, call: Any) -> None:
        try:
            call()
            out[name] = "no error"
        except ValueError as e:
            out[name] = str(e)

    stopper = PolicyTable("features", name="stopper", actions=np.full(1, 7, np.int8))
    env = Env("classic", 2, opponents=stopper, seat=1)
    key = jax.random.PRNGKey(0)
    eager("init", lambda: env.init(key))
    s = jax.jit(env.init)(key)
    out["jit"] = [int(s.halted), bool(s.truncated)]
    b = jax.vmap(env.init)(jax.random.split(key, 3))
    out["vmap"] = [np.asarray(b.halted).tolist(), np.asarray(b.truncated).tolist()]
    eager("check", lambda: env.check_halted(b))
    # a step that begins new episodes: the state of a learner that can decide, stepped by the stuck env
    free = Env("classic", 2, opponents=stopper, seat=1, skip_no_decision=False).init(key)
    free = free.replace(env_key=env.key)
    t = jax.jit(env.step_autoreset)(free, jnp.int32(7))
    out["step_autoreset"] = [int(t.halted), bool(t.truncated)]
    step = jax.jit(auto_reset(env.step, env.init))
    out["auto_reset"] = [int(step(free, jnp.int32(7), key).halted)]
    out["seat_random"] = bool(Env("classic", 2, opponents=stopper).init(key).halted == 0)
    self_play = Env("classic", 2, opponents=None, seat=0, skip_no_decision=False)
    tied = self_play.init(key, dice=[1, 2, 3, 1, 2, 3])  # both seats throw 1-2-3: a roll-off, no dice left
    eager("script", lambda: self_play.step(tied, 7))
    r = jax.jit(self_play.step)(tied, jnp.int32(7))
    out["script_jit"] = [int(r.halted), bool(r.truncated)]
    print(json.dumps(out))


def test_loops_that_could_run_for_ever_end_flagged_or_with_a_clear_error() -> None:
    code = "from tests.hostile.test_hostile_surfaces_loops import _scenario; _scenario()"
    try:
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
        )
    except subprocess.TimeoutExpired:
        pytest.fail("a JAX loop did not end within 300 s (the loop bound is gone)")
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    import re

    assert re.search(NO_DECISION, got["init"]), got["init"]
    assert re.search(NO_DECISION, got["check"]), got["check"]
    assert got["jit"] == [1, True]
    assert got["vmap"] == [[1, 1, 1], [True, True, True]]
    assert got["step_autoreset"] == [1, True]
    assert got["auto_reset"] == [1]
    assert got["seat_random"]  # the learner rolls first in some episodes: it decides, nothing is flagged
    assert re.search(SCRIPT, got["script"]), got["script"]
    assert got["script_jit"] == [2, True]
