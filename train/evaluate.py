"""Evaluate a trained model: exact 2-player figures and matches against the baseline bots.

``python -m train.evaluate MODEL_OR_RUN_DIR [--games N] [--json OUT]`` prints a table and optionally
writes JSON. A run directory means its ``model.zip`` (``--best`` for ``best_model.zip``) with the
run's ``config.yaml`` (ruleset, table size, env); a bare ``model.zip`` uses its sidecar JSON if any,
else the default config. Exact figures (2 players only): the value per round in each seat against
the ``optimal`` bot and the exploitability (best-response gain per round) from :mod:`zanzibar_env.agents.exact`.
Bot matches: ``--games`` episodes of the config's env against each baseline bot, played in the
batched vector env with the learner's greedy (deterministic) policy; mean return with a 95% bootstrap
interval (:mod:`zanzibar_env.train.results.intervals`).
The library functions here are also what the training callback uses.
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from zanzibar_env.agents.ppo_agent import ModelAgent, load_model, predict
from zanzibar_env.core.bots import BaseAgent
from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.preflight import preflight
from zanzibar_env.core.rules import Ruleset, load_ruleset
from zanzibar_env.core.safe_io import atomic_copy, atomic_write_text, check_output
from zanzibar_env.core.safe_load import read_json
from zanzibar_env.envs.sb3 import make_sb3_env
from zanzibar_env.train.config import check_config, int_at_least, table_opponents
from zanzibar_env.train.config.training import (
    TrainConfig,
    apply,
    load_config,
    read_yaml,
)
from zanzibar_env.train.results import eval_rows, mean_interval, pin_cpu_kernels


def exact_figures(agent: BaseAgent, ruleset: str | Ruleset) -> dict[str, float]:
    """Exact 2-player round figures from :func:`zanzibar_env.agents.exact.exploitability` (chips per round).

    ``value_first_vs_optimal``/``value_second_vs_optimal``: the agent's expected result rolling first /
    second against the ``optimal`` bot; ``exploit_first``/``exploit_second``: what a best response gains
    over the game value against the agent in that seat; ``exploit_mean``: their average.
    """
    from zanzibar_env.agents.exact import exploitability

    ex = exploitability(agent, load_ruleset(ruleset))
    return {
        "value_first_vs_optimal": float(ex["vs_optimal_seat0"]),
        "value_second_vs_optimal": float(ex["vs_optimal_seat1"]),
        "exploit_first": float(ex["seat0"]),
        "exploit_second": float(ex["seat1"]),
        "exploit_mean": float(ex["average"]),
    }


def bot_match(model: Any, cfg: TrainConfig, bot: str, games: int, seed: int) -> tuple[float, float, float]:
    """Mean return per episode of the greedy model against ``bot`` in ``cfg``'s env, and the bounds of its
    95% bootstrap interval.

    ``games`` episodes are split evenly over up to 100 parallel envs; each env counts only its quota.
    """
    from zanzibar_env.core.registry import make_agent

    n = max(1, min(games, 100))
    quota = np.full(n, games // n) + (np.arange(n) < games % n)
    env = make_sb3_env(
        cfg.env_id,
        n,
        ruleset=cfg.ruleset,
        num_players=cfg.num_players,
        opponents=make_agent(bot, seed=seed + 1),
        seat=cfg.seat,
        reward=cfg.reward,
        max_rounds=cfg.max_rounds,
        seed=seed,
    )
    env.seed(seed)
    obs = np.asarray(env.reset())
    returns: list[float] = []
    done_count = np.zeros(n, np.int64)
    while (done_count < quota).any():
        step_obs, _, dones, infos = env.step(predict(model, obs, env.action_masks()))
        obs = np.asarray(step_obs)
        for i in np.flatnonzero(dones):
            if done_count[i] < quota[i]:
                returns.append(infos[i]["episode"]["r"])
            done_count[i] += 1
    env.close()
    arr = np.asarray(returns, np.float64)
    return (float(arr.mean()), *mean_interval(arr))


def evaluate_model(
    model: Any, cfg: TrainConfig, games: int, seed: int, exact: bool = True
) -> dict[str, float]:
    """One evaluation row: bot matches (``<bot>_mean``, ``<bot>_low``, ``<bot>_high``), exact round figures if 2-player
    (``exact``), exact game figures (``game_*``) if ``cfg.eval_game_exact`` and win rates at the
    training table (``table_*``, :func:`table_figures`) if ``cfg.eval_table_games``."""
    row: dict[str, float] = {}
    for k, bot in enumerate(cfg.eval_bots):
        row[f"{bot}_mean"], row[f"{bot}_low"], row[f"{bot}_high"] = bot_match(
            model, cfg, bot, games, seed + 1000 * k
        )
    if exact and cfg.num_players == 2:
        row.update(exact_figures(ModelAgent(model), cfg.ruleset))
    if cfg.eval_game_exact:
        from zanzibar_env.train.exact_eval import game_figures

        row.update(game_figures(ModelAgent(model), cfg.ruleset))
    if cfg.eval_table_games:
        row.update(table_figures(model, cfg, cfg.eval_table_games, seed + 5000))
    return row


def table_figures(model: Any, cfg: TrainConfig, games: int, seed: int) -> dict[str, float]:
    """Win rates in a duplicate tournament of the model ("ppo") against its training opponents, clockwise
    as in training: ``table_win`` (the model's), ``table_win_low`` and ``table_win_high`` (its 95% Wilson interval) and
    ``table_win_<name>`` per opponent (``#`` in repeated names becomes ``_``)."""
    from zanzibar_env.train.tournament import run_tournament

    agents: list[Any] = [ModelAgent(model, name="ppo"), *table_opponents(cfg)]
    result = run_tournament(
        agents,
        players=cfg.num_players,
        games=games,
        ruleset=cfg.ruleset,
        seed=seed,
        max_rounds=cfg.max_rounds,
        progress=False,
    )
    by_name = {a.name: a for a in result.summary}
    me = by_name["ppo"]
    out = {"table_win": me.win_rate, "table_win_low": me.win_low, "table_win_high": me.win_high}
    for name in result.config["agents"][1:]:  # the tournament's names in seat order (repeats: #2, #3, ...)
        out[f"table_win_{name.replace('#', '_')}"] = by_name[name].win_rate
    return out


# ---- command line ---------------------------------------------------------------------------------
def resolve(target: str, best: bool = False) -> tuple[Path, TrainConfig]:
    """Model path and config for a run directory or a model file (``ValueError`` if missing or bad): the
    file's ``.json`` description, else the ``config.yaml`` of the run directory holding it, else the
    defaults."""
    p = Path(target)
    info: Any = {}
    if p.is_dir():
        model_path = p / ("best_model.zip" if best else "model.zip")
    else:
        model_path = p
        meta = p.with_suffix(".json")
        if meta.is_file():
            info = read_json(meta, "model description", nan=True)  # size, depth and duplicate keys bounded
        if not isinstance(info, dict) or not isinstance(info.get("config", {}), dict):
            raise ValueError(f"{meta}: expected a JSON object with a 'config' mapping")
    run_cfg = model_path.parent / "config.yaml"  # a run directory, or a checkpoint inside one
    if "config" in info:
        cfg = apply(load_config(), info["config"])
    elif run_cfg.is_file():
        cfg = apply(TrainConfig(), read_yaml(run_cfg))
    else:
        cfg = load_config()
    if not model_path.is_file():
        raise ValueError(f"no model file at {str(model_path)!r}")
    return model_path, check_config(cfg)


def tournament(
    model: Any, cfg: TrainConfig, games: int, seed: int, max_rounds: int | None
) -> list[dict[str, Any]]:
    """A duplicate-format tournament (:func:`zanzibar_env.train.tournament.run_tournament`) of the model ("ppo") and
    the baseline bots at ``cfg``'s table size; one summary dict per agent, best rating first."""
    from dataclasses import asdict

    from zanzibar_env.train.tournament import run_tournament

    agents: list[Any] = [ModelAgent(model, name="ppo"), *cfg.eval_bots]
    result = run_tournament(
        agents,
        players=cfg.num_players,
        games=games,
        ruleset=cfg.ruleset,
        seed=seed,
        max_rounds=max_rounds,
        progress=False,
    )
    return [asdict(a) for a in result.summary]


def format_tournament(rows: list[dict[str, Any]]) -> str:
    """The tournament summary as an aligned text table (95% intervals in brackets), its order stated."""
    from zanzibar_env.train.tournament.report import SORT_NOTE

    head = (
        f"{'agent':<12} {'games':>6} {'win rate':>22} {'net chips given / round':>29} {'mean place':>10} "
        f"{'rating μ−3σ':>12}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['name']:<12} {r['games']:>6} {r['win_rate']:>7.3f} [{r['win_low']:.3f}, {r['win_high']:.3f}] "
            f"{r['per_round']:>+10.3f} [{r['per_round_low']:+.3f}, {r['per_round_high']:+.3f}] "
            f"{r['mean_place']:>10.2f} {r['rating_mu'] - 3 * r['rating_sigma']:>12.2f}"
        )
    return "\n".join([*lines, SORT_NOTE])


def export_paths(model_path: Path, out: str, force: bool) -> Path:
    """The export target ``out`` (a zip) after checking it and its ``.json`` may be written."""
    if Path(out).suffix != ".zip":
        raise ValueError(f"--export {out!r} must name a .zip file (its description goes beside it as .json)")
    dst = check_output(out, force=force, what="--export")
    check_output(dst.with_suffix(".json"), force=force, what="--export description")
    src = model_path.resolve()
    for p in (dst, dst.with_suffix(".json")):
        if p.resolve() in (src, src.with_suffix(".json")):
            raise ValueError(f"--export {out!r} would overwrite the model being evaluated or its description")
    return dst


def export(model_path: Path, cfg: TrainConfig, result: dict[str, Any], out: Path) -> None:
    """Copy ``model_path`` to ``out`` and write ``out.json``: how it was made and its measured figures."""
    run_dir = model_path.parent
    run = read_json(run_dir / "run.json", "run.json", nan=True) if (run_dir / "run.json").is_file() else {}
    rows = eval_rows(run_dir)
    key = "game_exploit_mean" if "game_exploit_mean" in result else "exploit_mean"
    # the evaluation row of this checkpoint: matched by its exact figure, else the run's last (model.zip);
    # a best_model.zip without an exact figure to match has no known row
    same = [r for r in rows if key in result and r.get(key) == result[key]]
    last = rows[-1] if rows and model_path.name != "best_model.zip" else {}
    steps = same[0] if same else last
    atomic_copy(model_path, out)
    meta = {
        "command": run.get("command", "unknown"),
        "seed": cfg.seed,
        "git_commit": run.get("git_commit", "unknown"),
        "source": f"{run_dir.name}/{model_path.name}",
        "timesteps": int(steps["timesteps"]) if "timesteps" in steps else None,
        "train_seconds": steps.get("train_seconds"),
        "size_bytes": out.stat().st_size,
        "exploitability": {
            k: result[f"exploit_{k}"] for k in ("first", "second", "mean") if f"exploit_{k}" in result
        },
        "value_vs_optimal": {
            "first": result.get("value_first_vs_optimal"),
            "second": result.get("value_second_vs_optimal"),
        },
        "units": "chips per round (exact, 2-player classic round)",
        "config": cfg.to_dict(),
    }
    if (
        "game_exploit_mean" in result
    ):  # full-game models (zanzibar_env.train.sb3.game_learn): win probability from 20-20
        meta["game_exploitability"] = {k: result[f"game_exploit_{k}"] for k in ("first", "second", "mean")}
        meta["game_units"] = "win probability a best response gains (exact, 2-player game, starting stacks)"
    atomic_write_text(out.with_suffix(".json"), json.dumps(meta, indent=2) + "\n")


def format_table(result: dict[str, float]) -> str:
    """The evaluation row as an aligned two-column text table."""
    width = max(len(k) for k in result)
    return "\n".join(f"{k:<{width}}  {v: .4f}" for k, v in result.items())


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.evaluate"), description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("target", help="a model .zip or a run directory")
    ap.add_argument("--games", type=int_at_least(1), default=1000, help="episodes against each baseline bot")
    ap.add_argument(
        "--tournament-games",
        type=int_at_least(0),
        default=200,
        help="games of the tournament against the baselines (0 = none)",
    )
    ap.add_argument(
        "--max-rounds",
        type=int_at_least(1),
        default=200,
        help="truncate tournament games after this many rounds",
    )
    ap.add_argument("--seed", type=int_at_least(0), default=12345, help="seed for the bot matches")
    ap.add_argument("--best", action="store_true", help="use best_model.zip of a run directory")
    ap.add_argument("--no-exact", action="store_true", help="skip the exact 2-player figures")
    ap.add_argument("--json", help="write the figures as JSON to this path")
    ap.add_argument(
        "--export", metavar="ZIP", help="copy the model here with a JSON of its provenance and figures"
    )
    ap.add_argument("--force", action="store_true", help="overwrite existing --json/--export files")
    return ap.parse_args(argv)


def prepare(args: argparse.Namespace) -> tuple[Path, TrainConfig, Any, Path | None]:
    """Resolve the target, check every output path and load the model, before any evaluation."""
    model_path, cfg = resolve(args.target, args.best)
    out = export_paths(model_path, args.export, args.force) if args.export else None
    if out is not None:
        eval_rows(model_path.parent)  # the export reads the run's eval.csv: refuse a damaged one now
    if args.json:
        dst = check_output(args.json, force=args.force, what="--json").resolve()
        taken = {model_path.resolve(), model_path.resolve().with_suffix(".json")}
        if out is not None:
            taken |= {out.resolve(), out.resolve().with_suffix(".json")}
        if dst in taken:
            raise ValueError(f"--json {args.json!r} would overwrite the model, its description or the export")
    return model_path, cfg, load_model(model_path), out


def main(argv: list[str] | None = None) -> int:
    pin_cpu_kernels()  # torch's CPU kernels, as every command's (zanzibar_env.train.results.repro)
    args = parse_args(argv)
    try:
        preflight("evaluate", extras=("train", "tournament") if args.tournament_games > 0 else ("train",))
        model_path, cfg, model, out = prepare(args)
    except (ValueError, OSError) as e:  # OSError: e.g. a file name too long for the file system
        print(f"error: {e}", file=sys.stderr)
        return 2
    result = evaluate_model(model, cfg, args.games, args.seed, exact=not args.no_exact)
    print(
        f"model: {model_path}  ({cfg.env_id}, {cfg.ruleset}, {cfg.num_players} players, "
        f"{args.games} episodes per bot)"
    )
    print(format_table(result))
    rows = []
    if args.tournament_games > 0:
        rows = tournament(model, cfg, args.tournament_games, args.seed, args.max_rounds)
        print(f"tournament: {args.tournament_games} games, {cfg.num_players} players, {cfg.ruleset}")
        print(format_tournament(rows))
    if args.json:
        doc = {"model": str(model_path), "games": args.games, **result, "tournament": rows}
        atomic_write_text(args.json, json.dumps(doc, indent=2))
    if out is not None:
        export(model_path, cfg, result, out)
        print(f"exported to {out} (+ .json)")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main, "evaluate"))
