"""Exact 2-player evaluation of an agent: values per seat, best responses and exploitability.

``python -m train.exact_eval --agent greedy --ruleset classic [--json OUT]`` prints, per seat (seat 0
rolls first), the agent's exact expected round result against the optimal agent and against itself,
the value a best response earns against it, the game value under optimal play and the
exploitability (best-response value minus the responder seat's game value), per seat and averaged.
Results are chips given away minus chips received per round (positive = good), or minus lives lost
in lives rulesets. Definitions: :mod:`agents.exact`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agents.exact import exploitability
from agents.registry import make_agent
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.core.safe_io import atomic_write_text, check_output


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m train.exact_eval", description=__doc__.splitlines()[0])
    p.add_argument("--agent", default="greedy", help="agent name (random, greedy, optimal, ppo:PATH, ...)")
    p.add_argument("--ruleset", default="classic", help="ruleset name or YAML path")
    p.add_argument("--seed", type=int, default=0, help="seed passed to the agent (stochastic agents)")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write the figures as JSON")
    p.add_argument("--force", action="store_true", help="overwrite an existing --json file")
    return p.parse_args(argv)


def evaluate(agent_spec: str, ruleset: str, seed: int = 0) -> dict[str, Any]:
    """All exact figures for ``agent_spec`` under ``ruleset`` (the mapping :func:`main` prints and saves)."""
    rules = load_ruleset(ruleset)
    agent = make_agent(agent_spec, seed=seed)
    ex = exploitability(agent, rules)
    return {"agent": agent_spec, "ruleset": rules.name, "unit": _unit(rules.stake), **ex}


def _unit(stake: str) -> str:
    return "chips given away minus received per round" if stake == "chips" else "minus lives lost per round"


def report(fig: dict[str, Any]) -> str:
    """The printed table."""
    rows = [
        ("value vs optimal", "vs_optimal_seat0", "vs_optimal_seat1"),
        ("value vs itself", "vs_self_seat0", "vs_self_seat1"),
        ("best response's value against it", "best_response_vs_seat0", "best_response_vs_seat1"),
        ("game value of the responder's seat", "game_value_seat1", "game_value_seat0"),
        ("exploitability", "seat0", "seat1"),
    ]
    lines = [
        f"Exact 2-player evaluation of {fig['agent']!r} in ruleset {fig['ruleset']!r} ({fig['unit']})",
        f"{'agent sits in':<38}{'seat 0 (first)':>16}{'seat 1 (second)':>17}",
    ]
    lines += [f"{label:<38}{fig[a]:>+16.6f}{fig[b]:>+17.6f}" for label, a, b in rows]
    lines.append(f"{'exploitability, averaged over seats':<38}{fig['average']:>+16.6f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 on a bad agent or ruleset)."""
    args = parse_args(argv)
    try:
        if args.json is not None:
            check_output(args.json, force=args.force, what="--json")
        fig = evaluate(args.agent, args.ruleset, args.seed)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(report(fig))
    if args.json is not None:
        atomic_write_text(args.json, json.dumps(fig, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
