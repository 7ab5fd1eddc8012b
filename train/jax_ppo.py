"""PPO on the JAX env, the whole rollout and update under ``jit``: ``python -m train.jax_ppo [--config PATH]
[--set key=value ...]``.

In the spirit of CleanRL's ``ppo.py`` and PureJaxRL: one file that shows its loop. The env
(:mod:`zanzibar_env.jax`, one 2-player round per episode) is ``vmap``-ed over ``num_envs`` tables and
stepped ``n_steps`` times by ``lax.scan``; generalised advantage estimation runs as a reverse scan; the
update is ``n_epochs`` passes of shuffled minibatches (another scan) with the clipped objective, an
entropy bonus and a value loss; one ``jit``-ed function does all of it per update. The policy is a
masked categorical over the 8 hold masks (illegal actions get no probability), the policy and value
are two MLPs on the one-hot observation (:func:`zanzibar_env.core.onehot.onehot`, the same formulas
as the envs' ``obs_type="onehot"``). Plain game rewards: chips won or lost in the round.

Two kinds of envs share each rollout (``self_play_frac``):

* **self-play**: the learner plays both seats (the env's multi-agent form, Pgx's ``current_player``).
  The round is zero-sum in chips, so the advantage of a seat's decision is estimated "negamax" style:
  the value of the next state counts with its sign flipped when the other seat moves there
  (``V_me(s') = -V_other(s')``), and GAE's recursion flips the sign of the later advantage in the same
  way. The first roller's last decision is then judged by the critic's value of the second roller's
  position, not by the second roller's dice alone: less noise than the round's result.
* **against a bot** (``opponent``, played inside the env's ``step``; the learner's ``seat`` fixed, drawn
  per episode, or fixed per env with ``first_frac`` of them rolling first under ``split``): the
  learner's decisions are its own consecutive steps.

At the end the policy's weights are written to ``policy.npz`` in the run directory
(:mod:`zanzibar_env.agents.jax_ppo_agent` reads them with numpy, no JAX needed: the agent
``jax_ppo:PATH`` plays its most likely legal action), and, with ``eval_exact``, the exact regret of
that agent in each seat (:func:`zanzibar_env.agents.exact.exploitability`) is printed and saved as
``exact.json``. One run trains one seed (``--set seed=K``); run the command once per seed for several.
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import itertools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from zanzibar_env.core.preflight import preflight
from zanzibar_env.extras import requires_extra

with requires_extra("jax", "the JAX PPO (train/jax_ppo.py)"):
    import jax
    import jax.numpy as jnp
    import optax

from zanzibar_env.agents.jax_ppo_agent import MLPPolicy, save_policy
from zanzibar_env.agents.policy import PolicyAgent
from zanzibar_env.core.interrupts import exit_code_of, run_command, stopped_by
from zanzibar_env.core.made_for import ruleset_claim
from zanzibar_env.core.observation import OBS_LAYOUT
from zanzibar_env.core.onehot import onehot, ruleset_dims
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.core.safe_io import atomic_write_text, check_free_space
from zanzibar_env.train.config import JaxPPOConfig, load_jax_config, save_jax_config
from zanzibar_env.train.config.jax import DEFAULT_JAX_CONFIG
from zanzibar_env.train.config.options import config_parser
from zanzibar_env.train.jax_training import EnvGroup, make_groups
from zanzibar_env.train.jax_training.keep import keep_interrupted, policy_bytes
from zanzibar_env.train.results.runs import EVAL_CSV, command_line, git_commit, make_run_dir, write_eval_csv

Params = dict[str, Any]
ACTIVATIONS: dict[str, Callable[[jax.Array], jax.Array]] = {"tanh": jnp.tanh, "relu": jax.nn.relu}
IS_FIRST = OBS_LAYOUT["is_first"][0]  # observation slot: 1 if the seat to move rolls first


# ---- the networks: two MLPs (policy: 8 logits; value: 1) on the one-hot observation -----------------
def init_mlp(key: jax.Array, sizes: list[int], last_scale: float) -> list[dict[str, jax.Array]]:
    """Orthogonal weights (gain sqrt(2) in hidden layers, ``last_scale`` in the last), zero biases."""
    layers = []
    for i, (n_in, n_out) in enumerate(itertools.pairwise(sizes)):
        key, k = jax.random.split(key)
        gain = last_scale if i == len(sizes) - 2 else np.sqrt(2.0)
        w = jax.nn.initializers.orthogonal(gain)(k, (n_in, n_out), jnp.float32)
        layers.append({"w": w, "b": jnp.zeros(n_out, jnp.float32)})
    return layers


def mlp(layers: list[dict[str, jax.Array]], x: jax.Array, act: Callable[[jax.Array], jax.Array]) -> jax.Array:
    for layer in layers[:-1]:
        x = act(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


class Net:
    """The policy and value networks of a config (input: :func:`features` of the flat observation)."""

    def __init__(self, cfg: JaxPPOConfig) -> None:
        self.dims = ruleset_dims(load_ruleset(cfg.ruleset))
        self.onehot, self.hidden = cfg.features == "onehot", list(cfg.net_arch)
        self.act = ACTIVATIONS[cfg.activation]
        self.in_size = int(self.features(jnp.zeros((1, 33), jnp.float32)).shape[-1])

    def features(self, obs: jax.Array) -> jax.Array:
        return onehot(obs, *self.dims, xp=jnp) if self.onehot else obs

    def init(self, key: jax.Array) -> Params:
        ka, kc = jax.random.split(key)
        return {
            "actor": init_mlp(ka, [self.in_size, *self.hidden, 8], 0.01),
            "critic": init_mlp(kc, [self.in_size, *self.hidden, 1], 1.0),
        }

    def __call__(self, params: Params, obs: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(log-probabilities [B, 8], value [B])``; illegal actions get probability 0 (a finite logit of
        -1e9, so that no gradient meets ``0 * inf``)."""
        return self.heads(params, self.features(obs), mask)

    def heads(self, params: Params, x: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
        """:meth:`__call__` on features ``x`` already computed (the rollout stores them once: the update
        reads each row ``n_epochs`` times)."""
        logits = jnp.where(mask, mlp(params["actor"], x, self.act), -1e9)
        return jax.nn.log_softmax(logits), mlp(params["critic"], x, self.act)[..., 0]


class Transition(NamedTuple):
    """One step of every env (arrays ``[num_envs, ...]``; stacked ``[n_steps, num_envs, ...]`` by the scan)."""

    x: jax.Array  # float32[in_size], the network's input: features of the mover's observation (the first 33)
    mask: jax.Array  # bool[8], its legal actions
    action: jax.Array  # int32
    logp: jax.Array  # float32: log-probability of the action when it was sampled
    value: jax.Array  # float32: the critic's value of obs (for the seat to move)
    reward: jax.Array  # float32: the mover's reward from this step (chips, at the round's end)
    done: jax.Array  # bool: the episode ended in this step (the env was then reset)
    same: jax.Array  # bool: the seat to move next (same episode) is the same seat


def gae(traj: Transition, last_value: jax.Array, gamma: float, lam: float) -> tuple[jax.Array, jax.Array]:
    """Advantages and value targets ``[n_steps, num_envs]`` by a reverse scan; the next state's value and
    advantage count with a minus sign where the other seat moves there (zero-sum: negamax)."""

    def back(
        carry: tuple[jax.Array, jax.Array], t: Transition
    ) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
        next_adv, next_value = carry
        sign = jnp.where(t.done, 0.0, jnp.where(t.same, 1.0, -1.0))
        delta = t.reward + gamma * sign * next_value - t.value
        adv = delta + gamma * lam * sign * next_adv
        return (adv, t.value), adv

    _, adv = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), traj, reverse=True)
    return adv, adv + traj.value


def normalise(adv: jax.Array, first: jax.Array) -> jax.Array:
    """Advantages scaled to mean 0 and standard deviation 1 within each seat's rows (``first``: the rows
    of the seat that rolls first). The first roller's advantages carry the other seat's dice as noise;
    scaled together, the second roller's would be shrunk by it."""
    out = adv
    for rows in (first, ~first):
        n = jnp.maximum(rows.sum(), 1)
        mean = jnp.where(rows, adv, 0.0).sum() / n
        std = jnp.sqrt(jnp.where(rows, (adv - mean) ** 2, 0.0).sum() / n)
        out = jnp.where(rows, (adv - mean) / (std + 1e-8), out)
    return out


def ppo_loss(
    net: Net,
    params: Params,
    batch: Transition,
    adv: jax.Array,
    target: jax.Array,
    cfg: JaxPPOConfig,
    ent: jax.Array | float,
) -> tuple[jax.Array, dict[str, jax.Array]]:
    """Clipped surrogate + ``vf_coef`` * value MSE - ``ent`` * entropy (advantages normalised per batch)."""
    logp_all, value = net.heads(params, batch.x, batch.mask)
    logp = jnp.take_along_axis(logp_all, batch.action[:, None], 1)[:, 0]
    ratio = jnp.exp(logp - batch.logp)
    a = normalise(adv, batch.x[:, IS_FIRST] > 0.5) if cfg.adv_norm == "seat" else adv
    if cfg.adv_norm == "batch":
        a = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg = -jnp.minimum(ratio * a, jnp.clip(ratio, 1 - cfg.clip_range, 1 + cfg.clip_range) * a).mean()
    v_loss = 0.5 * ((value - target) ** 2).mean()
    p = jnp.exp(logp_all)
    entropy = -jnp.where(batch.mask, p * logp_all, 0.0).sum(-1).mean()
    loss = pg + cfg.vf_coef * v_loss - ent * entropy
    return loss, {"pg_loss": pg, "v_loss": v_loss, "entropy": entropy}


class Trainer:
    """The jitted update of a config: ``state -> state, stats`` (one rollout, GAE, ``n_epochs`` passes)."""

    def __init__(self, cfg: JaxPPOConfig) -> None:
        self.cfg, self.net = cfg, Net(cfg)
        self.groups: list[EnvGroup] = make_groups(cfg)
        steps_per_update = cfg.n_epochs * (cfg.rollout // cfg.batch_size)

        def lr(i: jax.Array) -> jax.Array | float:
            """optax's schedule: the learning rate at optimizer step ``i``."""
            frac = 1.0 - (i // steps_per_update) / cfg.num_updates if cfg.lr_schedule == "linear" else 1.0
            return cfg.learning_rate * frac

        self.tx = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(lr, eps=1e-5))
        self.update: Callable[..., Any] = jax.jit(self._update, donate_argnums=0)
        self.init: Callable[..., Any] = jax.jit(self._init)

    def compile(self, key: jax.Array) -> None:
        """Compile :meth:`init` and :meth:`update` ahead of time, the two at once (XLA compiles each on one
        thread; a 2-core machine then spends about half the wall time on it)."""
        from concurrent.futures import ThreadPoolExecutor

        state = jax.eval_shape(self._init, key)
        with ThreadPoolExecutor(2) as pool:
            init = pool.submit(lambda: self.init.lower(key).compile())  # type: ignore[attr-defined]  # jitted, not yet compiled
            update = pool.submit(lambda: self.update.lower(state).compile())  # type: ignore[attr-defined]  # jitted, not yet compiled
            self.init, self.update = init.result(), update.result()

    def _init(self, key: jax.Array) -> tuple[Any, ...]:
        k_net, k_env, key = jax.random.split(key, 3)
        params = self.net.init(k_net)
        envs = [
            g.reset(jax.random.split(k, g.size))
            for g, k in zip(self.groups, jax.random.split(k_env, len(self.groups)), strict=True)
        ]
        return params, self.tx.init(params), envs, key, jnp.asarray(0, jnp.int32)

    def _rollout(
        self, params: Params, envs: list[Any], key: jax.Array
    ) -> tuple[list[Any], Transition, jax.Array]:
        def step(
            carry: tuple[list[Any], jax.Array], _: None
        ) -> tuple[tuple[list[Any], jax.Array], Transition]:
            envs, key = carry
            x = self.net.features(jnp.concatenate([g.obs(e) for g, e in zip(self.groups, envs, strict=True)]))
            mask = jnp.concatenate([g.mask(e) for g, e in zip(self.groups, envs, strict=True)])
            logp_all, value = self.net.heads(params, x, mask)
            key, k_act = jax.random.split(key)
            action = jax.random.categorical(k_act, logp_all).astype(jnp.int32)
            logp = jnp.take_along_axis(logp_all, action[:, None], 1)[:, 0]
            new, parts, at = [], [], 0
            for g, e in zip(self.groups, envs, strict=True):
                e, out = g.step(e, action[at : at + g.size])
                new.append(e)
                parts.append(out)
                at += g.size
            reward, done, same = (jnp.concatenate([p[i] for p in parts]) for i in range(3))
            return (new, key), Transition(x, mask, action, logp, value, reward, done, same)

        (envs, key), traj = jax.lax.scan(step, (envs, key), None, self.cfg.n_steps)
        obs = jnp.concatenate([g.obs(e) for g, e in zip(self.groups, envs, strict=True)])
        mask = jnp.concatenate([g.mask(e) for g, e in zip(self.groups, envs, strict=True)])
        return envs, traj, self.net(params, obs, mask)[1]

    def _update(self, state: tuple[Any, ...]) -> tuple[tuple[Any, ...], dict[str, jax.Array]]:
        cfg = self.cfg
        params, opt_state, envs, key, n = state
        envs, traj, last_value = self._rollout(params, envs, key)
        key = jax.random.fold_in(key, 1)
        adv, target = gae(traj, last_value, cfg.gamma, cfg.gae_lambda)
        flat = jax.tree.map(lambda x: x.reshape(cfg.rollout, *x.shape[2:]), (traj, adv, target))
        ent = cfg.ent_coef * (1.0 - n / cfg.num_updates if cfg.ent_schedule == "linear" else 1.0)
        grad_fn = jax.value_and_grad(
            lambda p, b: ppo_loss(self.net, p, b[0], b[1], b[2], cfg, ent), has_aux=True
        )

        def minibatch(carry: tuple[Params, Any], b: Any) -> tuple[tuple[Params, Any], dict[str, jax.Array]]:
            params, opt_state = carry
            (_, stats), grads = grad_fn(params, b)
            updates, opt_state = self.tx.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), stats

        def epoch(carry: tuple[Params, Any, jax.Array], _: None) -> tuple[tuple[Params, Any, jax.Array], Any]:
            params, opt_state, key = carry
            key, k = jax.random.split(key)
            perm = jax.random.permutation(k, cfg.rollout).reshape(-1, cfg.batch_size)
            (params, opt_state), stats = jax.lax.scan(
                minibatch, (params, opt_state), jax.tree.map(lambda x: x[perm], flat)
            )
            return (params, opt_state, key), stats

        (params, opt_state, key), stats = jax.lax.scan(epoch, (params, opt_state, key), None, cfg.n_epochs)
        stats = {k: v.mean() for k, v in stats.items()}
        stats["episode_reward"] = jnp.where(traj.done, traj.reward, 0.0).sum() / jnp.maximum(
            traj.done.sum(), 1
        )
        return (params, opt_state, envs, key, n + 1), stats


# ---- training, export, exact evaluation and the command line -----------------------------------------
def policy_meta(cfg: JaxPPOConfig) -> dict[str, Any]:
    """What a saved policy needs besides its weights (:func:`~zanzibar_env.agents.jax_ppo_agent.save_policy`)."""
    rules = load_ruleset(cfg.ruleset)
    num_ranks, max_rolls = ruleset_dims(rules)
    return {
        "activation": cfg.activation,
        "features": cfg.features,
        "num_ranks": num_ranks,
        "max_rolls": max_rolls,
        **ruleset_claim(rules),
    }


def actor_layers(params: Params) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy network's weights as numpy ``(w, b)`` pairs."""
    return [(np.asarray(x["w"]), np.asarray(x["b"])) for x in jax.device_get(params["actor"])]


def exact_regret(agent: Any, ruleset: str) -> dict[str, float]:
    """The exact regret (best-response gain over the game value, chips per round) of ``agent`` in each
    seat: :func:`zanzibar_env.agents.exact.exploitability`'s ``seat0``, ``seat1`` and ``average``."""
    from zanzibar_env.agents.exact import exploitability

    ex = exploitability(agent, ruleset)
    return {"regret_seat0": ex["seat0"], "regret_seat1": ex["seat1"], "regret_mean": ex["average"]}


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during :func:`train`: the parameters after the last finished update
    (``params``, ``None`` before the first), the evaluation rows so far and the updates done."""

    def __init__(self, params: Any, rows: list[dict[str, float]], done: int, total: int, cause: Any) -> None:
        super().__init__("training interrupted")
        self.params, self.rows, self.done, self.total, self.cause = params, rows, done, total, cause
        self.kept = ""  # what the run kept (set by run(): zanzibar_env.train.jax_training.keep)


def train(
    cfg: JaxPPOConfig,
    log: Callable[[str], None] = print,
    checkpoint: Callable[[Params, list[dict[str, float]]], None] | None = None,
) -> tuple[Params, list[dict[str, float]]]:
    """Train from ``cfg``; returns the final parameters and the evaluation rows: ``timesteps``,
    ``train_seconds`` (wall time of training so far, compilation included, evaluations excluded) and,
    with ``eval_exact``, the exact regrets of the greedy policy every ``eval_freq`` steps and at the end.
    ``compile_seconds`` is the first update's wall time (mostly compiling). ``checkpoint(params, rows)``
    is called after each evaluation; Ctrl-C or SIGTERM raises :class:`TrainingInterrupted`."""
    rows: list[dict[str, float]] = []
    last: list[Any] = [None, 0]  # the parameters after the last finished update, and its number
    try:
        return _train(cfg, log, checkpoint, rows, last)
    except KeyboardInterrupt as e:
        raise TrainingInterrupted(last[0], rows, last[1], cfg.num_updates, e) from None


def _train(
    cfg: JaxPPOConfig, log: Any, checkpoint: Any, rows: list[dict[str, float]], last: list[Any]
) -> Any:
    """The loop of :func:`train` (which see); ``last`` follows the finished updates."""
    if cfg.compile_cache is not None:
        jax.config.update("jax_compilation_cache_dir", str(Path(cfg.compile_cache).expanduser()))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    t0, c0, paused, cpu_paused = time.perf_counter(), time.process_time(), 0.0, 0.0
    trainer = Trainer(cfg)
    trainer.compile(jax.random.PRNGKey(cfg.seed))
    state = trainer.init(jax.random.PRNGKey(cfg.seed))
    compile_s, compile_cpu, every = (
        0.0,
        0.0,
        max(1, cfg.eval_freq // cfg.rollout) if cfg.eval_freq else cfg.num_updates,
    )
    for i in range(1, cfg.num_updates + 1):
        state, stats = trainer.update(state)
        last[:] = [state[0], i]
        if i == 1:
            jax.block_until_ready(state)
            compile_s, compile_cpu = time.perf_counter() - t0, time.process_time() - c0
        if i % every and i < cfg.num_updates:
            continue
        jax.block_until_ready(state)
        t1, c1 = time.perf_counter(), time.process_time()
        row = {
            "timesteps": float(i * cfg.rollout),
            "train_seconds": t1 - t0 - paused,
            "compile_seconds": compile_s,
            "cpu_seconds": time.process_time() - c0 - cpu_paused,
            "compile_cpu_seconds": compile_cpu,
        }
        row.update({k: float(v) for k, v in stats.items()})
        if cfg.eval_exact:
            agent = PolicyAgent(MLPPolicy(actor_layers(state[0]), policy_meta(cfg)), output="logits")
            row.update(exact_regret(agent, cfg.ruleset))
        rows.append(row)
        log(" ".join(f"{k} {v:.5g}" for k, v in row.items()))
        if checkpoint is not None:
            checkpoint(state[0], rows)
        paused, cpu_paused = paused + time.perf_counter() - t1, cpu_paused + time.process_time() - c1
    return state[0], rows


def run(
    cfg: JaxPPOConfig, argv: list[str] | None = None, log: Callable[[str], None] | None = print
) -> dict[str, Any]:
    """One run: a run directory, training, ``policy.npz``, ``eval.csv`` and ``result.json`` (the last
    evaluation row, the run directory and the agent's name); returns that result."""
    run_dir = make_run_dir(cfg.runs_dir, cfg.run_name_prefix)
    save_jax_config(cfg, run_dir / "config.yaml")
    meta = {
        "command": command_line(argv or []).replace("train.ppo", "train.jax_ppo"),
        "git_commit": git_commit(),
        "started_unix": int(time.time()),
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
    }
    atomic_write_text(run_dir / "run.json", json.dumps(meta, indent=2) + "\n")
    check_free_space(run_dir, 4 * policy_bytes(cfg) + (1 << 20), what="run directory")  # before training
    path = run_dir / "policy.npz"

    def save(params: Params, rows: list[dict[str, float]]) -> None:
        if rows:
            write_eval_csv(run_dir / EVAL_CSV, rows)
        save_policy(path, actor_layers(params), policy_meta(cfg))

    try:
        params, rows = train(cfg, log=log or (lambda _: None), checkpoint=save)
    except TrainingInterrupted as stop:
        stop.kept = keep_interrupted(stop, run_dir, save)
        raise
    save(params, rows)
    out: dict[str, Any] = {"seed": cfg.seed, **rows[-1], "run_dir": str(run_dir), "agent": f"jax_ppo:{path}"}
    atomic_write_text(run_dir / "result.json", json.dumps(out, indent=2) + "\n")
    if log is not None:
        log(_summary(out))
    return out


def _summary(out: dict[str, Any]) -> str:
    line = f"trained {out['timesteps']:.0f} steps in {out['train_seconds']:.1f} s"
    line += f" (first update, compiling: {out['compile_seconds']:.1f} s)"
    if "regret_seat0" in out:
        line += f"; exact regret rolling first {out['regret_seat0']:.5f}, "
        line += f"second {out['regret_seat1']:.5f} chips/round"
    return line + f"; policy: {out['agent']}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else argv
    description = "PPO on the JAX env (rollout and update under jit) from a YAML config."
    ap = config_parser(
        "zanzibar_env.train.jax_ppo",
        description,
        JaxPPOConfig,
        load_jax_config,
        DEFAULT_JAX_CONFIG.stem,
        "jax_ppo_",
        argv,
    )
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 on a bad config)."""
    args = parse_args(argv)
    try:
        preflight("jax-train")
        cfg = load_jax_config(args.config, args.overrides)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        run(cfg, sys.argv[1:] if argv is None else argv)
    except TrainingInterrupted as stop:
        print(f"interrupted: {stop.kept} (stopped by {stopped_by(stop)})", file=sys.stderr)
        return exit_code_of(stop)
    except ValueError as e:  # the run directory's space or a disk error, before or after training
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main, "train.jax_ppo"))
