"""The 2-player game learned from scratch: tabular self-play Q-learning on the JAX env, ``python -m
train.jax_game [--config PATH] [--set key=value ...]``.

In the spirit of PureJaxRL: one file that shows its loop, everything per step under ``jit``. The env
(:mod:`zanzibar_env.jax`) plays whole 2-player games from the starting stacks with reward ``win`` (+1
to the winner, -1 to the other, once, at the game's end); the learner plays both seats (self-play).
Nothing of the exact solvers is read: no imitation, no solver values, no exploiter, no bot opponent.

**What is learned.** One action value per information state and action (:class:`GameIndex`: the own
stack, the first roller's hand and the roll limit for the second roller, the rolls used, the dice:
293,888 rows x 8 hold masks in classic), as a win-or-lose value in ``[-1, 1]`` for the seat to move.
The game is one of perfect information (each decision sees everything that has happened; chance is the
dice), so one-step Q-learning with a negamax target is sound: after a decision the target is the
reward at the game's end, else the best value of the next decision, with its sign flipped where the
other seat makes it (``V_me(s') = -V_other(s')``, zero-sum). Every env's step updates its row, so a
step of ``num_envs`` tables is ``num_envs`` updates (one scatter); a row-action's step size is
``max(1 / visits, alpha_min)``: a running mean of its targets at first, a moving one later (the targets
move as the values behind them are learned). Exploration: ``eps`` random legal actions, falling
linearly from ``eps_start`` to ``eps_end``.

The greedy policy is written as ``policy.npz`` (the greedy action of every row,
:mod:`zanzibar_env.agents.game_table_agent`: the agent ``game_table:PATH``); with ``eval_exact`` its
exact game exploitability (:func:`zanzibar_env.agents.exact.game_exploitability`, from the starting
stacks, the policy rolling first and second) is measured every ``eval_every_s`` seconds of training
and at the end: the learning curve (``eval.csv``). Evaluations are not counted as training time.
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from zanzibar_env.extras import requires_extra

with requires_extra("jax", "the JAX game learner (train/jax_game.py)"):
    import jax
    import jax.numpy as jnp

from zanzibar_env.agents.game_table_agent import GameIndex, GameTableAgent, save_table
from zanzibar_env.core import kernel as K
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.preflight import preflight
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.core.safe_io import atomic_write_text
from zanzibar_env.jax import Env
from zanzibar_env.train.config.jax_game import (
    DEFAULT_GAME_CONFIG,
    JaxGameConfig,
    load_game_config,
    save_game_config,
)
from zanzibar_env.train.config.options import config_parser
from zanzibar_env.train.results.runs import EVAL_CSV, command_line, git_commit, make_run_dir, write_eval_csv

NA = 8  # hold masks (7 = stop)
#: A round's outcome for the seat to move: its chips after minus before (d = -4..-1, 1..4; payments are
#: 1-4 chips) and whether it rolls first in the next round: class ``(d + 4 - (d > 0)) * 2 + first``.
NC = 16
_D = np.repeat(np.r_[-4:0, 1:5], 2)  # [NC] the chips each class adds to the mover's stack
_FIRST = np.tile([False, True], 8)  # [NC] the mover opens the next round
FLIP = np.array([(7 - c // 2) * 2 + 1 - c % 2 for c in range(NC)])  # the same outcome seen by the other seat
_KEEPS = sorted({tuple(sorted(MULTISETS[m][i] for i in K.KEPT[a])) for m in range(56) for a in range(K.STOP)})


def after_table(rules: Any) -> np.ndarray:
    """``int32[56, 8]``: the afterstate of hold mask ``a`` on multiset ``m``: the dice kept (one of the 28
    sorted sets of 0-2 dice) to be thrown with, or, for stop (7), the hand kept: ``28 + its rank``."""
    out = np.zeros((56, NA), np.int32)
    for m in range(56):
        for a in range(K.STOP):
            out[m, a] = _KEEPS.index(tuple(sorted(MULTISETS[m][i] for i in K.KEPT[a])))
        out[m, K.STOP] = len(_KEEPS) + int(rules.table.rank_of_multiset[m])
    return out


class Learner(NamedTuple):
    """What the jitted loop carries: the outcome shares of every afterstate ``psi`` (``float32[A, NC]``)
    and of every afterstate pooled over the stacks ``pool``, their visits, the round-start values ``u``
    and their visits (``[stacks]``), the tables and a key."""

    psi: jax.Array
    visits: jax.Array
    pool: jax.Array
    pool_visits: jax.Array
    u: jax.Array
    u_visits: jax.Array
    env: Any  # zanzibar_env.jax.State, batched [num_envs]
    key: jax.Array


class Step(NamedTuple):
    """One step of every table (``[num_envs]`` arrays; ``[n_steps, num_envs]`` after the scan)."""

    row: jax.Array  # int32: the mover's information state
    action: jax.Array  # int32
    explore: jax.Array  # bool: the action was a random one
    opens: jax.Array  # bool: the round's first decision (first roller, one roll used)
    stack: jax.Array  # int32: the mover's stack
    same: jax.Array  # bool: the next decision is the same seat's
    ends: jax.Array  # bool: the round (or the game) ended in this step
    done: jax.Array  # bool: the game ended in this step (the table began the next)
    outcome: jax.Array  # int32: where ``ends``: the round's outcome class for the mover
    next_psi: jax.Array  # float32[NC]: the next decision's outcome shares under its greedy action


class Trainer:
    """The env, the row index and the jitted ``chunk`` (a rollout and its update) for one config."""

    def __init__(self, cfg: JaxGameConfig) -> None:
        self.cfg = cfg
        self.env = Env(cfg.ruleset, 2, opponents=None, episode="game", reward="win", skip_no_decision=True)
        self.index = GameIndex(cfg.ruleset)
        self._init = jax.vmap(self.env.init)
        self._step = jax.vmap(self.env.step_autoreset)
        self.chunk = jax.jit(self._chunk, donate_argnums=0)
        ix = self.index
        self.after = jnp.asarray(after_table(load_ruleset(cfg.ruleset)))
        self.na = int(self.after.max()) + 1  # afterstates per context
        ctx = np.arange(ix.num_rows // 56)  # a row's context: the row without its dice
        first = ctx < ix.first_rows // 56
        self.pool_of = jnp.asarray(
            np.where(first, ctx % ix.u, ix.u + (ctx - ix.first_rows // 56) % (ix.nr * ix.pairs))
        )
        self.num_ctx, self.num_pool = len(ctx), ix.u + ix.nr * ix.pairs

    def init(self, key: jax.Array) -> Learner:
        k_env, k = jax.random.split(key)
        env = self._init(jax.random.split(k_env, self.cfg.num_envs))

        def zeros(*shape: int) -> jax.Array:  # (separate buffers: all donated)
            return jnp.zeros(shape, jnp.float32)

        def share(n: int) -> jax.Array:
            return jnp.full((n * self.na, NC), 1.0 / NC, jnp.float32)

        n, p, stacks = self.num_ctx, self.num_pool, self.index.stacks
        return Learner(
            share(n), zeros(n * self.na), share(p), zeros(p * self.na), zeros(stacks), zeros(stacks), env, k
        )

    def afterstates(self, rows: jax.Array, actions: jax.Array | None = None) -> tuple[jax.Array, jax.Array]:
        """``(own, pooled)`` afterstate numbers of every action (``[B, 8]``) or of ``actions`` (``[B]``)."""
        ctx, m = rows // 56, rows % 56
        after = self.after[m] if actions is None else self.after[m, actions]
        c, p = (ctx, self.pool_of[ctx]) if actions is not None else (ctx[:, None], self.pool_of[ctx][:, None])
        return c * self.na + after, p * self.na + after

    def shares(self, ln: Learner, rows: jax.Array) -> jax.Array:
        """``float32[B, 8, NC]``: the outcome shares of every action, the own afterstate's shrunk towards
        the pooled one's by ``kappa`` pseudo-visits (few visits: mostly the pooled estimate)."""
        own, pooled = self.afterstates(rows)
        w = ln.visits[own] / (ln.visits[own] + self.cfg.kappa)
        return w[..., None] * ln.psi[own] + (1.0 - w[..., None]) * ln.pool[pooled]

    def eps(self, done_steps: jax.Array) -> jax.Array:
        """The exploration rate after ``done_steps`` decisions (linear from eps_start to eps_end)."""
        c = self.cfg
        span = max(c.eps_decay * c.total_timesteps, 1.0)
        frac = jnp.clip(done_steps / span, 0.0, 1.0)
        return c.eps_start + (c.eps_end - c.eps_start) * frac

    def outcome_values(self, u: jax.Array, x: jax.Array) -> jax.Array:
        """``float32[..., NC]``: the value of each outcome class for a mover holding ``x`` chips: +1 if
        its stack empties (it wins), -1 if the other's does, else the next round's value ``u`` (for the
        seat rolling first) with the mover's sign."""
        top = self.index.top
        after = jnp.clip(x[..., None] + jnp.asarray(_D), 0, top)
        first = jnp.asarray(_FIRST)
        nxt = jnp.where(first, u[after], -u[top - after])
        return jnp.where(after == 0, 1.0, jnp.where(after == top, -1.0, nxt))

    def look(self, ln: Learner, obs: jax.Array, legal: jax.Array) -> tuple[jax.Array, ...]:
        """``(rows, stacks, action values [B, 8] with illegal actions at -inf, psi [B, 8, NC])``."""
        rows, x = self.index.rows(obs, jnp), self.index.own_stack(obs, jnp)
        psi = self.shares(ln, rows)
        q = jnp.einsum("bac,bc->ba", psi, self.outcome_values(ln.u, x))
        return rows, x, jnp.where(legal, q, -jnp.inf), psi

    def _act(self, ln: Learner, eps: jax.Array) -> tuple[Learner, Step]:
        """Every table's mover acts (eps-greedy) and the tables step to the next decision."""
        s = ln.env
        key, k_rand, k_eps = jax.random.split(ln.key, 3)
        rows, x, q, _ = self.look(ln, s.observation, s.legal_action_mask)
        rand = jax.random.categorical(k_rand, jnp.where(s.legal_action_mask, 0.0, -jnp.inf))
        explore = jax.random.uniform(k_eps, rows.shape) < eps
        a = jnp.where(explore, rand, jnp.argmax(q, -1)).astype(jnp.int32)
        mover = s.current_player
        s2 = self._step(s, a)
        done = s2.terminated | s2.truncated
        won = jnp.take_along_axis(s2.rewards, mover[:, None], 1)[:, 0] > 0
        other = jnp.take_along_axis(s.stacks, 1 - mover[:, None], 1)[:, 0]
        d = jnp.take_along_axis(s2.stacks, mover[:, None], 1)[:, 0] - x
        first = s2.start == mover
        d, first = jnp.where(done, jnp.where(won, -x, other), d), jnp.where(done, won, first)
        outcome = (d + 4 - (d > 0)) * 2 + first
        _, _, q2, psi2 = self.look(ln, s2.observation, s2.legal_action_mask)
        next_psi = jnp.take_along_axis(psi2, jnp.argmax(q2, -1)[:, None, None], 1)[:, 0]
        step = Step(
            row=rows,
            action=a,
            explore=explore,
            opens=(s.pos == 0) & (s.rolls == 1),
            stack=x,
            same=s2.current_player == mover,
            ends=done | (s2.rounds != s.rounds),
            done=done,
            outcome=jnp.clip(outcome, 0, NC - 1).astype(jnp.int32),
            next_psi=next_psi,
        )
        return ln._replace(env=s2, key=key), step

    def targets(self, tr: Step) -> jax.Array:
        """``float32[n_steps, num_envs, NC]``: each decision's target shares of the round's outcomes, a
        lambda-return inside the round (cut after a random action, as Watkins' Q(lambda)): the outcome
        where the round ends, the next decision's shares (seen from the other seat where it moves)."""
        lam, flip = self.cfg.lam, jnp.asarray(FLIP)

        def back(
            carry: tuple[jax.Array, jax.Array], t: Step
        ) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
            g_next, explore_next = carry
            mix = jnp.where(explore_next[:, None], t.next_psi, lam * g_next + (1.0 - lam) * t.next_psi)
            mix = jnp.where(t.same[:, None], mix, mix[:, flip])
            g = jnp.where(t.ends[:, None], jax.nn.one_hot(t.outcome, NC), mix)
            return (g, t.explore), g

        last = (tr.next_psi[-1], jnp.ones_like(tr.explore[-1]))
        return jax.lax.scan(back, last, tr, reverse=True)[1]

    def average(
        self,
        values: jax.Array,
        visits: jax.Array,
        at: tuple[jax.Array, ...],
        target: jax.Array,
        w: jax.Array,
        floor: float,
    ) -> tuple[jax.Array, jax.Array]:
        """Move ``values[at]`` towards the mean of their targets in this batch (``w``: 1 where a sample
        counts, else 0) by ``max(k / visits, k * floor)`` (at most 1), ``k`` the entry's samples in the
        batch: the running mean of every target so far while ``1 / visits > floor``."""
        visits2 = visits.at[at].add(w)
        k = (visits2 - visits)[at]
        size = jnp.minimum(1.0, jnp.maximum(k / jnp.maximum(visits2[at], 1.0), k * floor))
        per = w * size / jnp.maximum(k, 1.0)  # each of the k samples' share of the step
        per = per.reshape(per.shape + (1,) * (target.ndim - per.ndim))
        return values.at[at].add(per * (target - values[at])), visits2

    def _chunk(self, ln: Learner, base: jax.Array) -> tuple[Learner, jax.Array]:
        """``cfg.chunk`` steps of every table (a scan, the tables held), then one update from all of
        them; ``base``: decisions learned from before this call. Returns the learner and games ended."""
        eps = self.eps(base)
        ln, tr = jax.lax.scan(lambda c, _: self._act(c, eps), ln, None, length=self.cfg.chunk)
        g = self.targets(tr).reshape(-1, NC)
        flat = jax.tree.map(lambda a: a.reshape((-1, *a.shape[2:])), tr)
        ones = jnp.ones(flat.row.shape, jnp.float32)
        own, pooled = self.afterstates(flat.row, flat.action)
        psi, visits = self.average(ln.psi, ln.visits, (own,), g, ones, self.cfg.alpha_min)
        pool, pool_visits = self.average(ln.pool, ln.pool_visits, (pooled,), g, ones, self.cfg.alpha_min)
        # the round's value before its first throw (for the first roller): the mean best value of the
        # first decisions, with the new shares
        ln = ln._replace(psi=psi, visits=visits, pool=pool, pool_visits=pool_visits)
        q = jnp.einsum("bac,bc->ba", self.shares(ln, flat.row), self.outcome_values(ln.u, flat.stack)).max(-1)
        u, u_visits = self.average(
            ln.u, ln.u_visits, (flat.stack,), q, flat.opens.astype(jnp.float32), self.cfg.u_alpha_min
        )
        return ln._replace(u=u, u_visits=u_visits), tr.done.sum()

    def greedy(self, ln: Learner) -> np.ndarray:
        """``int8[rows]``: the greedy action of every row (all hold masks are legal in these rulesets)."""
        rows = jnp.arange(self.index.num_rows)
        x = jnp.asarray(self.index.row_stacks())
        q = jnp.einsum("rac,rc->ra", self.shares(ln, rows), self.outcome_values(ln.u, x))
        return np.asarray(jnp.argmax(q, -1)).astype(np.int8)

    def meta(self) -> dict[str, Any]:
        return {"ruleset": self.cfg.ruleset, "learner": "tabular self-play (train/jax_game.py)"}


def exact_game(agent: Any, ruleset: str) -> dict[str, float]:
    """The exact game exploitability of ``agent`` rolling first, second, and their mean."""
    from zanzibar_env.agents.exact import game_exploitability

    ex = game_exploitability(agent, ruleset)
    return {"exploit_first": ex["seat0"], "exploit_second": ex["seat1"], "exploit_mean": ex["average"]}


def train(
    cfg: JaxGameConfig, log: Callable[[str], None] = print
) -> tuple[np.ndarray, list[dict[str, float]]]:
    """Train from ``cfg``; returns the greedy actions and the evaluation rows (``timesteps``, ``games``,
    ``train_seconds``: wall time of training so far, compilation included, evaluations excluded,
    ``cpu_seconds`` likewise, and with ``eval_exact`` the exact game exploitability)."""
    if cfg.compile_cache is not None:
        jax.config.update("jax_compilation_cache_dir", str(Path(cfg.compile_cache).expanduser()))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    t0, c0, paused, cpu_paused = time.perf_counter(), time.process_time(), 0.0, 0.0
    trainer = Trainer(cfg)
    ln = trainer.init(jax.random.PRNGKey(cfg.seed))
    rows: list[dict[str, float]] = []
    done_steps, games, next_eval = 0, 0, cfg.eval_every_s if cfg.eval_every_s else float("inf")
    per_chunk = cfg.num_envs * cfg.chunk
    for i in range(1, cfg.num_chunks + 1):
        ln, ended = trainer.chunk(ln, jnp.asarray(done_steps, jnp.float32))
        games += int(ended)  # (waits for the chunk)
        done_steps += per_chunk
        elapsed = time.perf_counter() - t0 - paused
        last = i == cfg.num_chunks or (cfg.max_train_seconds and elapsed >= cfg.max_train_seconds)
        if elapsed < next_eval and not last:
            continue
        t1, c1 = time.perf_counter(), time.process_time()
        row = {
            "timesteps": float(done_steps),
            "games": float(games),
            "train_seconds": elapsed,
            "cpu_seconds": c1 - c0 - cpu_paused,
            "steps_per_second": done_steps / elapsed,
        }
        if cfg.eval_exact:
            row.update(exact_game(GameTableAgent(table=(trainer.greedy(ln), trainer.meta())), cfg.ruleset))
        rows.append(row)
        log(" ".join(f"{k} {v:.6g}" for k, v in row.items()))
        while next_eval <= elapsed:
            next_eval += cfg.eval_every_s
        paused, cpu_paused = paused + time.perf_counter() - t1, cpu_paused + time.process_time() - c1
        if last:
            break
    return trainer.greedy(ln), rows


def run(
    cfg: JaxGameConfig, argv: list[str] | None = None, log: Callable[[str], None] | None = print
) -> dict[str, Any]:
    """One run: a run directory, training, ``policy.npz``, ``eval.csv`` and ``result.json`` (the last
    evaluation row, the run directory and the agent's name); returns that result."""
    run_dir = make_run_dir(cfg.runs_dir, cfg.run_name_prefix)
    save_game_config(cfg, run_dir / "config.yaml")
    command = command_line(argv or []).replace("train.ppo", "train.jax_game")
    meta = {
        "command": command,
        "git_commit": git_commit(),
        "started_unix": int(time.time()),
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
    }
    atomic_write_text(run_dir / "run.json", json.dumps(meta, indent=2) + "\n")
    actions, rows = train(cfg, log=log or (lambda _: None))
    write_eval_csv(run_dir / EVAL_CSV, rows)
    path = run_dir / "policy.npz"
    save_table(
        path,
        actions,
        {
            "ruleset": cfg.ruleset,
            "seed": cfg.seed,
            "command": command,
            "learner": "tabular self-play Q-learning (train/jax_game.py)",
        },
    )
    out: dict[str, Any] = {
        "seed": cfg.seed,
        **rows[-1],
        "run_dir": str(run_dir),
        "agent": f"game_table:{path}",
    }
    atomic_write_text(run_dir / "result.json", json.dumps(out, indent=2) + "\n")
    if log is not None:
        log(_summary(out))
    return out


def _summary(out: dict[str, Any]) -> str:
    line = (
        f"trained {out['timesteps']:.0f} decisions ({out['games']:.0f} games) in {out['train_seconds']:.1f} s"
    )
    if "exploit_mean" in out:
        line += f"; exact game exploitability rolling first {out['exploit_first']:.6f}, second "
        line += f"{out['exploit_second']:.6f}, mean {out['exploit_mean']:.6f}"
    return line + f"; policy: {out['agent']}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else argv
    description = "Tabular self-play of the 2-player game on the JAX env, from a YAML config."
    ap = config_parser(
        "zanzibar_env.train.jax_game",
        description,
        JaxGameConfig,
        load_game_config,
        DEFAULT_GAME_CONFIG.stem,
        "jax_game_",
        argv,
    )
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 on a bad config)."""
    args = parse_args(argv)
    try:
        preflight("jax-game")
        cfg = load_game_config(args.config, args.overrides)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    run(cfg, sys.argv[1:] if argv is None else argv)
    return 0


if __name__ == "__main__":
    from zanzibar_env.core.interrupts import run_command

    sys.exit(run_command(main, "jax-game"))
