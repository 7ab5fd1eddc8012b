"""Exact 2-player evaluation of an agent: values per seat, best responses and exploitability.

``python -m train.exact_eval --agent greedy --ruleset classic [--json OUT]`` prints, per seat (seat 0
rolls first), the agent's exact expected round result against the optimal agent and against itself,
the value a best response earns against it, the game value under optimal play and the
exploitability (best-response value minus the responder seat's game value), per seat and averaged.
Results are chips given away minus chips received per round (positive = good), or minus lives lost
in lives rulesets. Definitions: :mod:`zanzibar_env.agents.exact`.

``python -m train.exact_eval --game --agent optimal [--stacks 20,20]`` prints the same table for the
whole 2-player game: win probabilities (seat 0 rolls first in the first round) against
``optimal_game`` and against itself, a best response's, the game value and the game exploitability
(:func:`zanzibar_env.agents.exact.game_exploitability`); :func:`game_figures` gives the same figures as the
columns ``game_*`` of a training run's ``eval.csv`` (configs with ``eval_game_exact``).

``python -m train.exact_eval --agent ppo:models/ppo_classic_2p.zip --where`` also prints where the agent
loses rolling second: for each class of the first roller's hand and roll limit, how often optimal first
play (or ``--first BOT``'s) leads there and how much the agent's turn is worth less than the optimal turn
from there.
``--mistakes N`` lists, per seat, the agent's N costliest decisions that differ from optimal play: the
dice, the roll, the first roller's hand and limit (rolling second), the action values of its choice
and of the best action (against optimal play in the other seat) and their gap; for a model agent also
its own probability of a best action there (``p(best)``) and how much of the loss lies where it is < 1%.
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

from zanzibar_env.agents.exact import MAX_STATES, exploitability, game_exploitability

# The limit and the estimate are the library's (the API's game functions take the same max_states).
from zanzibar_env.agents.exact.game_iteration import DEFAULT_MAX_STATES
from zanzibar_env.agents.exact.game_iteration import check_game_size as _check_game_size
from zanzibar_env.core.game import play_game
from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.registry import make_agent, spec_help
from zanzibar_env.core.rules import Ruleset, load_ruleset
from zanzibar_env.core.safe_io import atomic_write_text, check_output
from zanzibar_env.train.results import pin_cpu_kernels


def start_stacks(ruleset: Ruleset) -> tuple[int, int]:
    """The 2-player starting stacks of ``ruleset``."""
    return ruleset.starting_stack, ruleset.starting_stack


def game_figures(agent: Any, ruleset: str | Ruleset) -> dict[str, float]:
    """Exact 2-player game figures of ``agent`` from the starting stacks (win probabilities).

    ``game_exploit_first``/``game_exploit_second``: what a best response gains over the game value
    against the agent rolling first / second in the first round; ``game_exploit_mean``: their mean;
    ``game_win_first_vs_optimal_game``/``..._second_...``: the agent's win probability against
    ``optimal_game`` in that seat.
    """
    rules = load_ruleset(ruleset)
    ex = game_exploitability(agent, rules, start_stacks(rules))
    return {
        "game_exploit_first": float(ex["seat0"]),
        "game_exploit_second": float(ex["seat1"]),
        "game_exploit_mean": float(ex["average"]),
        "game_win_first_vs_optimal_game": float(ex["vs_optimal_game_seat0"]),
        "game_win_second_vs_optimal_game": float(ex["vs_optimal_game_seat1"]),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=command_prog("zanzibar_env.train.exact_eval"), description=__doc__.splitlines()[0]
    )
    p.add_argument("--agent", default="greedy", help=f"the agent: {spec_help()}")
    p.add_argument("--ruleset", default="classic", help="ruleset name or YAML path")
    p.add_argument("--seed", type=int, default=0, help="seed passed to the agent (stochastic agents)")
    p.add_argument("--game", action="store_true", help="evaluate the whole game (win probabilities)")
    p.add_argument("--stacks", default=None, help="starting stacks A,B with --game (default: the ruleset's)")
    p.add_argument(
        "--simulate",
        type=int,
        default=0,
        metavar="N",
        help="with --game: also play N engine games, the agent (seat 0, rolling first) against optimal_game",
    )
    p.add_argument("--where", action="store_true", help="where the agent loses rolling second (2-player)")
    p.add_argument(
        "--first",
        default="optimal",
        metavar="BOT",
        help="with --where: the first roller whose play sets how often each situation comes (optimal)",
    )
    p.add_argument(
        "--mistakes",
        type=int,
        default=0,
        metavar="N",
        help="list the agent's N costliest decisions per seat that differ from optimal play (2-player)",
    )
    p.add_argument(
        "--max-states",
        type=int,
        default=DEFAULT_MAX_STATES,
        metavar="N",
        help=f"with --game: refuse games of more than N stack states before solving (default "
        f"{DEFAULT_MAX_STATES}; the solver's own limit is {MAX_STATES})",
    )
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write the figures as JSON")
    p.add_argument("--force", action="store_true", help="overwrite an existing --json file")
    return p.parse_args(argv)


def evaluate(agent_spec: str, ruleset: str, seed: int = 0) -> dict[str, Any]:
    """All exact figures for ``agent_spec`` under ``ruleset`` (the mapping :func:`main` prints and saves)."""
    rules = load_ruleset(ruleset)
    agent = make_agent(agent_spec, seed=seed)
    ex = exploitability(agent, rules)
    return {"agent": agent_spec, "ruleset": rules.name, "unit": _unit(rules.stake), **ex}


def parse_stacks(text: str | None, start: int) -> tuple[int, int]:
    """``"A,B"`` as two integers (default: ``start`` each); ``ValueError`` otherwise."""
    if text is None:
        return start, start
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"--stacks must be two integers A,B, got {text!r}")
    return int(parts[0]), int(parts[1])


def check_game_size(ruleset: str, stacks: str | None, max_states: int) -> None:
    """``ValueError`` with the estimate when the game from ``stacks`` has more than ``max_states`` stack
    states (the exact analysis's time and memory grow with them: :data:`SECONDS_PER_STATE`,
    :data:`MIB_PER_STATE`)."""
    rules = load_ruleset(ruleset)
    _check_game_size(rules, parse_stacks(stacks, rules.starting_stack), max_states, "--max-states ")


def evaluate_game(agent_spec: str, ruleset: str, stacks: str | None = None, seed: int = 0) -> dict[str, Any]:
    """Exact game figures for ``agent_spec`` (the mapping :func:`main` prints with ``--game``)."""
    rules = load_ruleset(ruleset)
    st = parse_stacks(stacks, rules.starting_stack)
    ex = game_exploitability(make_agent(agent_spec, seed=seed), rules, st)
    unit = f"probability of winning the game from stacks {st[0]}-{st[1]}, seat 0 rolling first"
    ex = {k.replace("vs_optimal_game", "vs_optimal"): v for k, v in ex.items()}
    return {"agent": agent_spec, "ruleset": rules.name, "unit": unit, "stacks": list(st), "game": True, **ex}


def simulate(agent_spec: str, ruleset: str, stacks: list[int], games: int, seed: int = 0) -> dict[str, float]:
    """Seat 0's win rate over ``games`` engine games (seeds ``seed..seed+games-1``): the agent in seat 0,
    rolling first, against ``optimal_game``; with the half-width of its 99% normal interval."""
    pols = [make_agent(agent_spec, seed=seed), make_agent("optimal_game")]
    rules = load_ruleset(ruleset)
    won = 0.0
    for s in range(seed, seed + games):
        winners = play_game(rules, pols, seed=s, stacks=stacks).winners
        won += (0 in winners) / len(winners)
    rate = won / games
    return {"simulated_win_rate": rate, "simulated_ci99": 2.576 * (rate * (1 - rate) / games) ** 0.5}


def second_seat_losses(
    agent_spec: str, ruleset: str, seed: int = 0, first: str = "optimal"
) -> list[dict[str, Any]]:
    """Where an agent rolling second loses against ``first``'s first play (optimal by default), by the first
    roller's hand class (its category; points totals split by rank) and the roll limit it set: ``reach``
    (probability under ``first``'s play), ``loss`` (mean value of the optimal second turn minus the
    agent's, in those states) and ``share`` (reach * loss, which sums to the agent's loss against
    ``first``)."""
    from zanzibar_env.agents.exact import agent_policy, decision_states, solve_round

    ds = decision_states(ruleset)
    spec, table = ds.spec, load_ruleset(ruleset).table
    opt = solve_round(ruleset)
    mine = solve_round(ruleset, fixed={1: agent_policy(make_agent(agent_spec, seed=seed), ds)[1]})
    lead = (
        opt if first == "optimal" else solve_round(ruleset, fixed={0: agent_policy(make_agent(first), ds)[0]})
    )
    first_level = lead[0]
    assert first_level.nxt is not None and first_level.dist is not None
    ok = first_level.nxt[0] >= 0
    reach = np.bincount(first_level.nxt[0][ok], weights=first_level.dist[0][ok], minlength=len(opt[1].keys))
    loss = opt[1].value - mine[1].value
    lo, _, _, lim = spec.decode(opt[1].keys)
    names = [_hand_class(table, int(r)) for r in lo]
    out = []
    for name in dict.fromkeys(names):
        for limit in range(1, spec.max_rolls + 1):
            sel = (np.array(names) == name) & (lim == limit)
            p = float(reach[sel].sum())
            if p > 0:
                share = float(reach[sel] @ loss[sel])
                out.append(
                    {"first_hand": name, "limit": limit, "reach": p, "loss": share / p, "share": share}
                )
    return sorted(out, key=lambda r: -r["share"])


def mistakes(
    agent_spec: str, ruleset: str, seed: int = 0, seats: tuple[int, ...] = (0, 1)
) -> list[dict[str, Any]]:
    """The agent's decisions whose most likely action is worth less than the best one, against optimal play
    in the other seat: one row per decision with ``seat``, ``roll``, ``dice``, the first roller's hand
    class and ``limit`` (seat 1), ``action``/``best`` (hold masks, 7 = stop), their values, the ``gap`` and
    ``reach`` (probability of the round state before the turn under optimal first play; 1 in seat 0).
    Sorted by ``gap * reach``, costliest first."""
    from zanzibar_env.agents.exact import action_values, agent_policy, decision_states, solve_round

    ds = decision_states(ruleset)
    spec, table, opt = ds.spec, load_ruleset(ruleset).table, solve_round(ruleset)
    agent = make_agent(agent_spec, seed=seed)
    mine, best = agent_policy(agent, ds), agent_policy(make_agent("optimal"), ds)
    probs = agent.policy_probs_batch(ds.batch) if hasattr(agent, "policy_probs_batch") else None
    first = opt[0]
    assert first.nxt is not None and first.dist is not None
    ok = first.nxt[0] >= 0
    reach = np.bincount(first.nxt[0][ok], weights=first.dist[0][ok], minlength=len(opt[1].keys))
    rows = []
    for i in np.flatnonzero(np.isin(ds.q, seats)):
        q, st, r, m = (int(x[i]) for x in (ds.q, ds.s, ds.r, ds.m))
        act = int(np.argmax(mine[q][st, r - 1, m]))
        if act == int(np.argmax(best[q][st, r - 1, m])):
            continue
        key = int(opt[q].keys[st])
        qv = action_values(spec, opt, q, key, r, m)
        top = int(np.nanargmax(qv))
        if qv[top] - qv[act] <= 1e-9:  # an equally good action
            continue
        lo, _, _, lim = spec.decode(np.array([key]))
        p_best = float(probs[i][qv >= qv[top] - 1e-9].sum()) if probs is not None else None
        rows.append(
            {
                "seat": q,
                "roll": r,
                "dice": [int(d) for d in ds.batch.dice[i]],
                "first_hand": _hand_class(table, int(lo[0])) if q else "-",
                "limit": int(lim[0]),
                "action": act,
                "value": float(qv[act]),
                "best": top,
                "best_value": float(qv[top]),
                "gap": float(qv[top] - qv[act]),
                "reach": float(reach[st]) if q else 1.0,
                "p_best": p_best,
            }
        )
    return sorted(rows, key=lambda w: -w["gap"] * w["reach"])


def report_mistakes(rows: list[dict[str, Any]], n: int) -> str:
    """The table printed by ``--mistakes N``: the N costliest rows of each seat; for a model agent also
    ``p(best)`` (its own probability of a best action) and how much of the seat's ``gap * reach`` lies
    where that probability is under 1%, i.e. where training no longer tries the better action."""
    head = f"{'seat':>4} {'roll':>4} {'dice':<9} {'first roller ended with':<24} {'lim':>3} "
    head += f"{'act':>4} {'value':>8} {'best':>4} {'value':>8} {'gap':>7} {'reach':>7} {'p(best)':>8}"
    lines = [head]
    for seat in (0, 1):
        mine = [w for w in rows if w["seat"] == seat]
        lines.append(f"seat {seat}: {len(mine)} decisions differ from optimal play; the costliest:")
        for w in mine[:n]:
            dice = "-".join(map(str, w["dice"]))
            p = w.get("p_best")
            lines.append(
                f"{seat:>4} {w['roll']:>4} {dice:<9} {w['first_hand']:<24} {w['limit']:>3} "
                f"{w['action']:>4} {w['value']:>+8.3f} {w['best']:>4} {w['best_value']:>+8.3f} "
                f"{w['gap']:>7.4f} {w['reach']:>7.4f} {'-' if p is None else f'{p:.4f}':>8}"
            )
        if mine and mine[0].get("p_best") is not None:
            lines.append(_collapsed(mine))
    return "\n".join(lines)


def _collapsed(rows: list[dict[str, Any]]) -> str:
    """How much of ``gap * reach`` over ``rows`` lies where the policy gives a best action < 1%."""
    weight = np.array([w["gap"] * w["reach"] for w in rows])
    low = np.array([w["p_best"] < 0.01 for w in rows])
    share = float(weight[low].sum() / weight.sum()) if weight.sum() > 0 else 0.0
    return (
        f"  of these, {int(low.sum())} with p(best) < 1%, holding {share:.0%} of their gap * reach "
        "(the policy has stopped trying the better action there)"
    )


def _hand_class(table: Any, rank: int) -> str:
    """A coarse class of the first roller's hand: its category, points totals split into three bands."""
    if rank >= table.num_ranks:
        return "none"
    hand = table.hand_of_rank(rank)
    if hand.category != "points":
        return hand.category
    return "points < 100" if hand.points < 100 else "points 100-199" if hand.points < 200 else "points 200+"


def report_where(rows: list[dict[str, Any]], first: str = "optimal") -> str:
    """The table printed by ``--where`` (``first``: the first roller's name)."""
    lines = [f"{'first roller ended with':<24}{'limit':>6}{'reach':>9}{'loss there':>12}{'share':>10}"]
    lines += [
        f"{r['first_hand']:<24}{r['limit']:>6}{r['reach']:>9.4f}{r['loss']:>12.5f}{r['share']:>10.5f}"
        for r in rows
    ]
    total = f"total (= loss rolling second against {first})"
    lines.append(f"{total:<51}{sum(r['share'] for r in rows):>10.5f}")
    return "\n".join(lines)


def _unit(stake: str) -> str:
    units = {
        "chips": "chips given away minus received per round",
        "penalty": "minus penalty points per round",
    }
    return units.get(stake, "minus lives lost per round")


def report(fig: dict[str, Any]) -> str:
    """The printed table."""
    opponent = "optimal_game" if fig.get("game") else "optimal"
    rows = [
        (f"value vs {opponent}", "vs_optimal_seat0", "vs_optimal_seat1"),
        ("value vs itself", "vs_self_seat0", "vs_self_seat1"),
        ("best response's value against it", "best_response_vs_seat0", "best_response_vs_seat1"),
        ("game value of the responder's seat", "game_value_seat1", "game_value_seat0"),
        ("exploitability", "seat0", "seat1"),
    ]
    kind = "game" if fig.get("game") else "2-player"
    lines = [
        f"Exact {kind} evaluation of {fig['agent']!r} in ruleset {fig['ruleset']!r} ({fig['unit']})",
        f"{'agent sits in':<38}{'seat 0 (first)':>16}{'seat 1 (second)':>17}",
    ]
    lines += [f"{label:<38}{fig[a]:>+16.6f}{fig[b]:>+17.6f}" for label, a, b in rows]
    lines.append(f"{'exploitability, averaged over seats':<38}{fig['average']:>+16.6f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 on a bad agent or ruleset)."""
    pin_cpu_kernels()  # torch's CPU kernels, as every command's (zanzibar_env.train.results.repro)
    args = parse_args(argv)
    try:
        if args.json is not None:
            check_output(args.json, force=args.force, what="--json")
        if args.where and not args.game:
            make_agent(args.first)  # a bad --first fails here, before any work
        if args.game:
            check_game_size(args.ruleset, args.stacks, args.max_states)
            fig = evaluate_game(args.agent, args.ruleset, args.stacks, args.seed)
        else:
            fig = evaluate(args.agent, args.ruleset, args.seed)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(report(fig))
    if args.where and not args.game:
        fig["where_second"] = second_seat_losses(args.agent, args.ruleset, args.seed, args.first)
        print(f"where it loses rolling second, against {args.first} first play (chips per round):")
        print(report_where(fig["where_second"], args.first))
    if args.mistakes > 0 and not args.game:
        fig["mistakes"] = mistakes(args.agent, args.ruleset, args.seed)
        print("decisions that differ from optimal play (values against optimal play in the other seat):")
        print(report_mistakes(fig["mistakes"], args.mistakes))
    if args.game and args.simulate > 0:
        fig.update(simulate(args.agent, args.ruleset, fig["stacks"], args.simulate, args.seed))
        print(
            f"simulated {args.simulate} games against optimal_game (seat 0 rolls first): win rate "
            f"{fig['simulated_win_rate']:.4f} +- {fig['simulated_ci99']:.4f} (99%), "
            f"exact {fig['vs_optimal_seat0']:.4f}"
        )
    if args.json is not None:
        atomic_write_text(args.json, json.dumps(fig, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main, "exact-eval"))
