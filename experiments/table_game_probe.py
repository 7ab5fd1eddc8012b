"""Can a seat beat ``optimal`` in win rate by playing for the game at a table of known bots? A study,
exact where it can be.

Seat 0 sits at a table of stack-independent bots (``--others``, clockwise after it). For the whole game
from equal stacks (the mean over the first roller, as a duplicate tournament's seat rotations give),
the table prints every seat's exact win probability (:mod:`zanzibar_env.agents.exact.table_game`) with seat 0 playing

- ``optimal`` (round play);
- the round best response *for chips* to the bots (what exploiting them round by round gives, stacks
  ignored; :mod:`zanzibar_env.agents.exact.table`'s objective);
- the best of a family of round policies for its own win: ``optimal`` and ``--family`` best turn plays,
  one per representative value of the round's outcomes (``--rounds``: built again from the family's
  own values and added), picked state by state by value iteration (a lower bound on what any policy of
  seat 0 can reach); ``--gap N`` measures at N random states how much any round policy would gain in
  one round over the family's value (0 where the family is already the best response);
- with ``--rival J``, the same family played to finish ahead of seat ``J`` (its win probability minus
  seat J's): what beating that seat takes when winning more oneself is not enough.

With ``--agree N`` it plays N games (from equal stacks, seed ``--seed``) with the own-win agent in seat 0
and counts its decisions that `optimal` would have taken otherwise: how far from `optimal` a learner
must move. With ``--games`` it then plays the duplicate tournament (:mod:`zanzibar_env.train.tournament`) of
:func:`zanzibar_env.agents.exact.family_response` (greedy on each family's value) and of ``optimal`` in seat 0.

Run: ``python -m experiments.table_game_probe [--others optimal,greedy,escape] [--family 16] [--rounds 1]
[--gap 200] [--agree 2000] [--rival 1] [--games 10000] [--no-reference] [--seed 1] [--jobs 2]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

import zanzibar_env as zz
from zanzibar_env.agents.exact import BestResponse, family_response
from zanzibar_env.agents.exact.table_game import (
    FamilySolve,
    bellman_gap,
    chip_response_laws,
    chip_values,
    seat_wins,
    solve_family,
)
from zanzibar_env.agents.optimal import OptimalAgent
from zanzibar_env.core.registry import make_agent
from zanzibar_env.core.rules import Ruleset, load_ruleset
from zanzibar_env.train.config import positive_int
from zanzibar_env.train.tournament import run_tournament


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m experiments.table_game_probe", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--others", default="optimal,greedy,escape", help="bots clockwise after seat 0")
    p.add_argument("--ruleset", default="classic", help="a chip ruleset paying by the highest hand")
    p.add_argument(
        "--total", type=int, default=None, help="chips on the table (default: equal starting stacks)"
    )
    p.add_argument("--family", type=int, default=16, help="round policies beside optimal")
    p.add_argument("--rounds", type=int, default=1, help="rounds of family building (each adds --family)")
    p.add_argument(
        "--gap", type=int, default=0, help="check any round policy's one-round gain at N random states"
    )
    p.add_argument(
        "--rival", type=int, default=None, help="also play to finish ahead of this seat (1 = next)"
    )
    p.add_argument(
        "--games", type=int, default=0, help="duplicate games per tournament (0: exact table only)"
    )
    p.add_argument(
        "--reference",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also play the tournament with optimal in seat 0 (--no-reference: skip it)",
    )
    p.add_argument(
        "--agree", type=int, default=0, help="play N games and count seat 0's decisions unlike optimal's"
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=positive_int, default=1)
    return p


def agreement(
    agent: BestResponse, others: list[str], rules: Ruleset, games: int, seed: int
) -> tuple[int, int]:
    """``(decisions, differ)``: seat 0's decisions in ``games`` games from equal stacks (the first roller
    rotating), and how many of them `optimal` would have taken otherwise."""
    n, total = agent.solved.game.n, agent.solved.game.total
    if total % n:
        raise ValueError(f"--agree plays from equal stacks: {total} chips do not split among {n} players")
    optimal, bots = OptimalAgent(), [make_agent(o) for o in others]
    counts = [0, 0]

    def seat0(view: zz.View) -> int:
        action = agent.act(view)
        counts[0] += 1
        counts[1] += int(action != optimal.act(view))
        return action

    for g in range(games):
        zz.play_game(
            rules, [seat0, *(b.act for b in bots)], stacks=[total // n] * n, seed=seed * 1_000_003 + g,
            first_seat=g % n,
        )  # fmt: skip
    return counts[0], counts[1]


def _row(label: str, wins: np.ndarray) -> str:
    cells = " | ".join(f"{w:.4f}" for w in wins)
    return f"{label} | {cells} | {wins[0] - wins[1:].max():+.4f}"


def _check(args: argparse.Namespace) -> list[str]:
    """The bots of ``--others``, after refusing what the probe cannot do (SystemExit naming it)."""
    others = [s.strip() for s in args.others.split(",") if s.strip()]
    if not others:
        raise SystemExit("--others: give at least one bot")
    if args.games > 0 and args.total is not None:
        raise SystemExit("--games plays whole games from the starting stacks: leave --total unset")
    n = len(others) + 1
    if args.agree and args.total is not None and args.total % n:
        raise SystemExit(
            f"--agree plays from equal stacks: {args.total} chips do not split among {n} players"
        )
    for flag in ("family", "rounds", "gap", "agree"):
        if getattr(args, flag) < 0:
            raise SystemExit(f"--{flag} must be >= 0, got {getattr(args, flag)}")
    return others


def _solve(args: argparse.Namespace, rules: Ruleset, others: list[str]) -> list[tuple[str, FamilySolve]]:
    """The own-win family and, with ``--rival``, the family playing to finish ahead of that seat."""
    try:
        solves = [("own win", solve_family(rules, others, args.total, args.family, rounds=args.rounds))]
        if args.rival is not None:
            rival = solve_family(rules, others, args.total, args.family, rival=args.rival, rounds=args.rounds)
            solves.append((f"ahead of seat {args.rival}", rival))
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    return solves


def _print_exact(args: argparse.Namespace, rules: Ruleset, others: list[str], solves: list) -> None:
    """The exact table: win probabilities of each way of playing seat 0, chips per round, the families."""
    own, n = solves[0][1], len(others) + 1
    game = own.game
    print(f"seat 0 plays | 0 | {' | '.join(f'{j} {name}' for j, name in enumerate(others, 1))}"
          " | seat 0 minus the best other")  # fmt: skip
    print(_row("optimal", seat_wins(own, family=False)))
    chip_laws = chip_response_laws(own)  # the round best response for chips, by first roller
    print(_row("round best response (chips)", game.seat_wins(chip_laws)))
    u = chip_values(rules, n)
    chips = [("optimal", own.optimal_laws @ u), ("best response", chip_laws @ u)]
    cells = "; ".join(
        f"{label} {' '.join(f'{c:+.4f}' for c in v)} (mean {v.mean():+.4f})" for label, v in chips
    )
    print(f"seat 0's chips per round (given away minus received) as seat 0, 1, ... rolls first: {cells}")
    for label, solved in solves:
        print(_row(f"family of {args.family * args.rounds + 1}, {label}", seat_wins(solved)))


def _print_checks(args: argparse.Namespace, rules: Ruleset, others: list[str], own: FamilySolve) -> None:
    """``--gap``: the one-round gain of any round policy; ``--agree``: decisions unlike optimal's."""
    if args.gap:
        states = len(own.game.states)
        sid = np.random.default_rng(args.seed).choice(states, size=min(args.gap, states), replace=False)
        gap = bellman_gap(own, sid)
        print(
            f"one-round gain of the best turn play over the family (own win), {len(sid)} random states: "
            f"max {gap.max():.2e}, mean {gap.mean():.2e}, min {gap.min():.2e}"
        )
    if args.agree:
        agent = family_response(own)
        decisions, differ = agreement(agent, others, rules, args.agree, args.seed)
        print(
            f"seat 0 (own win) in {args.agree} games: {decisions} decisions, {differ} "
            f"({differ / max(decisions, 1):.2%}) unlike optimal's"
        )


def _tournaments(args: argparse.Namespace, others: list[str], solves: list) -> None:
    """Duplicate tournaments with each solved agent (and, with ``--reference``, optimal) in seat 0."""
    seat0: list[tuple[str, str | BestResponse]] = [
        (f"table_game ({label})", family_response(s)) for label, s in solves
    ]
    reference: list[tuple[str, str | BestResponse]] = [("optimal", "optimal")] if args.reference else []
    for label, who in [*seat0, *reference]:
        res = run_tournament(
            [who, *others], players=len(others) + 1, games=args.games, ruleset=args.ruleset,
            seed=args.seed, jobs=args.jobs, progress=False,
        )  # fmt: skip
        by_name = {s.name: s for s in res.summary}
        cells = ", ".join(
            f"{name} {by_name[name].win_rate:.4f} [{by_name[name].win_low:.4f}, {by_name[name].win_high:.4f}]"
            for name in res.config["agents"]
        )
        print(f"tournament, {len(res.games)} games, seat 0 = {label}: {cells}")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    others = _check(args)
    try:
        rules = load_ruleset(args.ruleset)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    t0 = time.perf_counter()
    solves = _solve(args, rules, others)
    seconds = time.perf_counter() - t0
    game = solves[0][1].game
    print(
        f"{args.ruleset}, {len(others) + 1} players, {game.total} chips: seat 0, then clockwise {', '.join(others)}"
    )
    print(
        f"exact win probabilities from equal stacks (mean over the first roller); solved in {seconds:.0f} s"
    )
    _print_exact(args, rules, others, solves)
    _print_checks(args, rules, others, solves[0][1])
    if args.games > 0:
        _tournaments(args, others, solves)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
