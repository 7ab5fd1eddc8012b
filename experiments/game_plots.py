"""Findings on game-optimal play (2 players): game values, where round play and game play differ, a plot.

``python -m experiments.game_plots [--out docs/game_win_probability.png] [--examples 6]`` prints, per shipped
ruleset, the probability that the first roller wins from the starting stacks under game-optimal play
(``optimal_game``), the game exploitability of round-optimal play (``optimal``), and ``optimal``'s win
probability against ``optimal_game`` in each seat; then, for ``classic`` at 20-20, how many decision
states the two policies answer differently and the examples where choosing the round-optimal action
costs the most win probability. It draws the first roller's win probability against the stacks:
``classic`` for every pair of stacks 1..20 (a heat map), and every ruleset at equal stacks.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from zanzibar_env.agents.exact import decision_batch, decision_rows, game_exploitability
from zanzibar_env.agents.exact.cache import solved_game
from zanzibar_env.agents.exact.game_iteration import action_win_probabilities, state_round
from zanzibar_env.agents.optimal import OptimalAgent, OptimalGameAgent
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.rules import load_ruleset

RULESETS = ("classic", "simple_scoring", "alt_chips", "lives")


def values_table() -> list[str]:
    """Game value and the exploitability of round play, per ruleset."""
    lines = [
        f"{'ruleset':<16}{'stacks':>7}{'P(first wins)':>15}{'optimal: exploitab.':>21}"
        f"{'optimal vs optimal_game, seat 0 / seat 1':>42}"
    ]
    for name in RULESETS:
        rules = load_ruleset(name)
        st = (rules.starting_stack,) * 2
        ex = game_exploitability("optimal", rules, st)
        lines.append(
            f"{name:<16}{f'{st[0]}-{st[1]}':>7}{ex['game_value_seat0']:>15.6f}{ex['average']:>21.6f}"
            f"{ex['vs_optimal_game_seat0']:>21.6f} / {ex['vs_optimal_game_seat1']:.6f}"
        )
    return lines


def differences(examples: int) -> list[str]:
    """Decision states (classic, 20-20 game) where optimal and optimal_game choose differently."""
    rules = load_ruleset("classic")
    solved = solved_game(rules, (20, 20))
    spec, pairs = solved.spec, solved.pairs
    rows = decision_rows(spec, pairs)
    batch = decision_batch(spec, pairs, rows)
    round_acts, game_acts = OptimalAgent().act_batch(batch), OptimalGameAgent().act_batch(batch)
    diff = np.flatnonzero(round_acts != game_acts)
    role, s, ra, _, r, m = rows
    costs, rounds = [], {}
    for i in diff:
        second, x, y = role[i] == 1, int(pairs.x[s[i]]), int(pairs.y[s[i]])
        if (x, y) not in rounds:
            rounds[x, y] = state_round(solved, x, y)
        q = action_win_probabilities(
            solved, x, y, int(r[i]), int(m[i]), int(ra[i]) if second else None, int(batch.roll_limit[i]),
            rounds[x, y],
        )  # fmt: skip
        costs.append(q[game_acts[i]] - q[round_acts[i]])
    lines = [f"classic, 40 chips: {len(diff)} of {len(role)} decision states differ (all stack splits)"]
    lines.append(
        f"{'stacks (own-other)':<20}{'role':<8}{'roll':>5}{'dice':>11}{'earlier':>10}"
        f"{'optimal':>12}{'optimal_game':>14}{'win prob lost':>15}"
    )
    at_start = [j for j in np.argsort(costs)[::-1] if batch.stacks[diff[j], 0] == 20][:examples]
    for j in [*np.argsort(costs)[::-1][:examples], *at_start]:
        i = diff[j]
        second = role[i] == 1
        own, other = batch.stacks[i, 0], batch.stacks[i, 1]
        earlier = "-" if not second else "".join(map(str, rules.table.hand_of_rank(int(ra[i])).dice))
        lines.append(
            f"{f'{own}-{other}':<20}{'second' if second else 'first':<8}{r[i]:>5}"
            f"{''.join(map(str, MULTISETS[m[i]])):>11}{earlier:>10}{_mask(round_acts[i], m[i]):>12}"
            f"{_mask(game_acts[i], m[i]):>14}{costs[j]:>15.6f}"
        )
    return lines


def _mask(a: int, m: int) -> str:
    """A hold mask as the dice it keeps."""
    kept = "".join(str(d) for i, d in enumerate(MULTISETS[m]) if a >> i & 1)
    return "stop" if a == 7 else f"keep {kept}" if kept else "throw all"


def plot(out: Path) -> list[str]:
    """The first roller's win probability: classic over all stacks 1..20, and every ruleset at s-s."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5))
    classic = load_ruleset("classic")
    grid = np.full((20, 20), np.nan)
    for total in range(2, 41):
        solved = solved_game(classic, (1, total - 1))
        for x in range(max(1, total - 20), min(20, total - 1) + 1):
            grid[x - 1, total - x - 1] = solved.win_probability(x, total - x)
    im = ax1.imshow(grid, origin="lower", extent=(0.5, 20.5, 0.5, 20.5), cmap="RdBu", vmin=0, vmax=1)
    ax1.set_xlabel("other player's chips")
    ax1.set_ylabel("first roller's chips")
    ax1.set_title("classic: P(first roller wins the game)")
    fig.colorbar(im, ax=ax1)
    lines = ["P(first roller wins) at equal stacks, game-optimal play:"]
    for name in RULESETS:
        rules = load_ruleset(name)
        top = rules.starting_stack
        st = np.arange(1, top + 1)
        p = [solved_game(rules, (int(s), int(s))).win_probability(int(s), int(s)) for s in st]
        shown = [f"{s}-{s}: {v:.4f}" for s, v in zip(st, p, strict=True) if s in (1, 2, 5, top)]
        lines.append(f"{name:<16}" + "  ".join(shown))
        style = "--" if name == "alt_chips" else "-"  # alt_chips = classic with 2 players
        ax2.plot(st, p, style, marker="o", ms=3, label=name + (" (= classic)" if style == "--" else ""))
    ax2.axhline(0.5, color="grey", lw=0.8)
    ax2.set_xlabel("stacks (both players)")
    ax2.set_ylabel("P(first roller wins the game)")
    ax2.set_title("equal stacks, game-optimal play")
    ax2.legend()
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.game_plots", description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("docs/game_win_probability.png"), help="figure path")
    p.add_argument("--examples", type=int, default=6, help="differing states to print")
    args = p.parse_args(argv)
    print("\n".join(values_table()))
    print()
    print("\n".join(differences(args.examples)))
    print()
    print("\n".join(plot(args.out)))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
