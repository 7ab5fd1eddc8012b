"""Does stack-aware play beat round-optimal play at a 4-player table? A study.

Round-optimal play (``optimal``) maximises each round's expected chips and ignores the stacks. A game
is won by emptying one's stack first, so a player might gain by caring about the stacks: with one chip
left any round not lost wins; a big hand of one's own makes every other payer pay more too, and so
hastens an opponent close to winning. Each variant below plays ``optimal``'s policy for a ruleset whose
``payments`` are changed in some stack situations (the round solver then maximises that round's
objective instead), everywhere else plain ``optimal``:

- ``flat``: always payments 1/1/1/1 (only avoiding the lowest hand counts, not the size of the payment);
- ``flat<=C``: flat when the player's own stack is at most ``C`` chips;
- ``capped<=C``: with an own stack ``s <= C``, payments ``min(p, s)`` (what one gives cannot exceed
  what one holds);
- ``guard<=C``: flat when some opponent holds at most ``C`` chips and more than the player itself
  (keep the payment small when someone else is about to win).

Each plays a duplicate 4-player tournament against three ``optimal`` copies (:mod:`zanzibar_env.train.tournament`:
every deal in the 4 seat rotations with the same dice), and the table prints its win rate beside the
copies'. Run: ``python -m experiments.stack_probe [--games 20000] [--seed 1] [--jobs 1] [--variants ...]``.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence

import numpy as np

from zanzibar_env.agents.exact.cache import Solved
from zanzibar_env.agents.optimal import OptimalAgent
from zanzibar_env.core.engine import View
from zanzibar_env.core.observation import ViewBatch
from zanzibar_env.core.rules import Ruleset
from zanzibar_env.train.config import positive_int
from zanzibar_env.train.tournament import run_tournament

CATEGORIES = ("points", "one_two_three", "three_of_a_kind", "zanzibar")
DEFAULT_VARIANTS = ("flat", "flat<=1", "flat<=3", "capped<=3", "guard<=2", "guard<=4")


class StackAwareOptimal(OptimalAgent):
    """``optimal``, but in some stack situations (``rule``, threshold ``limit``) the policy of a ruleset
    with other payments (module docstring). 2 players or more, chip rulesets."""

    def __init__(self, rule: str, limit: int | None = None) -> None:
        if rule not in ("flat", "capped", "guard"):
            raise ValueError(f"unknown rule {rule!r}: expected 'flat', 'capped' or 'guard'")
        if rule != "flat" and limit is None:
            raise ValueError(f"rule {rule!r} needs a chip limit")
        super().__init__()
        self.rule, self.limit = rule, limit
        self.name = rule if limit is None else f"{rule}<={limit}"
        self._repaid: dict[tuple[int, ...], tuple[Ruleset, Ruleset]] = {}

    def _payments(self, view: View) -> dict[str, int] | None:
        """The payments to play by in this view (``None``: the ruleset's own)."""
        own = view.stacks[0]
        flat = dict.fromkeys(CATEGORIES, 1)
        if self.rule == "flat":
            return flat if self.limit is None or own <= self.limit else None
        assert self.limit is not None
        if self.rule == "capped":
            pay = view.ruleset.payment_of
            return {c: min(pay(c), own) for c in CATEGORIES} if 1 <= own <= self.limit else None
        rivals = [s for s, a in zip(view.stacks[1:], view.active[1:], strict=True) if a]
        near = min(rivals, default=self.limit + 1)
        return flat if near <= self.limit and own > near else None

    def _solved_for_view(self, view: View) -> Solved:
        pay = self._payments(view)
        if pay is None:
            return super()._solved_for_view(view)
        key = (id(view.ruleset), *(pay[c] for c in CATEGORIES[1:]))
        entry = self._repaid.get(key)
        if entry is None or entry[0] is not view.ruleset:
            entry = (view.ruleset, dataclasses.replace(view.ruleset, payments=pay))
            self._repaid[key] = entry
        return self._cached(entry[1], view.num_players)

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        """Not batched: the inherited batch look-up would ignore the stack rule and play plain ``optimal``."""
        raise NotImplementedError(f"{self.name!r} plays one view at a time (act), e.g. in tournaments")


def parse_variant(text: str) -> StackAwareOptimal:
    """``flat``, ``flat<=C``, ``capped<=C`` or ``guard<=C`` -> the agent (``ValueError`` otherwise)."""
    rule, sep, limit = text.partition("<=")
    if sep and not limit.isdigit():
        raise ValueError(f"bad variant {text!r}: the limit after '<=' must be a whole number of chips")
    return StackAwareOptimal(rule, int(limit) if limit else None)


def probe(
    variants: Sequence[str], games: int, seed: int, jobs: int
) -> list[tuple[str, list[tuple[str, float, float, float]]]]:
    """Per variant: (name, [(agent, win rate, 95% low, 95% high)] over the variant and the three copies)."""
    agents = [parse_variant(v) for v in variants]  # every variant checked before any game
    out = []
    for agent in agents:
        res = run_tournament(
            [agent, "optimal", "optimal", "optimal"],
            players=4,
            games=games,
            seed=seed,
            jobs=jobs,
            progress=False,
        )
        out.append((agent.name, [(s.name, s.win_rate, s.win_low, s.win_high) for s in res.summary]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    doc = (__doc__ or "").split("\n\n")[0]
    ap = argparse.ArgumentParser(prog="python -m experiments.stack_probe", description=doc)
    ap.add_argument("--games", type=int, default=20000, help="games per variant (a multiple of 4)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=positive_int, default=1)
    ap.add_argument("--variants", nargs="+", default=list(DEFAULT_VARIANTS), metavar="VARIANT")
    args = ap.parse_args(argv)
    try:
        rows = probe(args.variants, args.games, args.seed, args.jobs)
    except ValueError as e:
        ap.exit(2, f"error: {e}\n")
    head = "4 players, classic, each variant against three `optimal`"
    print(f"{head}: {args.games} duplicate games, seed {args.seed}")
    print(f"{'variant':<12} {'its win rate':>18} {'optimal copies':>28}")
    for name, summary in rows:
        mine = next(r for r in summary if r[0] == name)
        copies = sorted(r[1] for r in summary if r[0] != name)
        print(
            f"{name:<12} {mine[1]:>10.4f} [{mine[2]:.4f}, {mine[3]:.4f}] {copies[0]:>14.4f} - {copies[-1]:.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
