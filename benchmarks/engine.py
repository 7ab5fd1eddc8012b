"""Engine speed: rounds per second with random play, against a plain-Python reference in the same run.

The engine (:func:`zanzibar_env.play_round`) ranks hands by table lookup and keeps a full record.
The reference below (:func:`reference_round`) is a straightforward implementation of the chip rules
that recomputes a hand's score from the dice at every comparison (no tables, no records). Both use
the same dice source (:class:`~zanzibar_env.RandomDice`) and the same random policy (a uniform hold
mask 0-7 from a numpy generator), so with equal seeds they play identical rounds: the benchmark
first checks that they agree, then times each for ``--seconds`` per table size, in interleaved slices.

Run: ``python -m benchmarks.engine [--seconds 2] [--ruleset classic] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import zanzibar_env as zz
from zanzibar_env import RandomDice
from zanzibar_env.agents import RandomAgent
from zanzibar_env.core.engine import RoundState

TABLE_SIZES = (2, 4, 8)


# ---- the plain-Python reference (chip rulesets with the 4-5-6 ranking) ------------------------------
def reference_key(dice: list[int], one: int = 100, six: int = 60) -> tuple[int, int]:
    """Sort key of a hand, recomputed from the rules: 4-5-6 > 1-1-1 > ... > 6-6-6 > 1-2-3 > points."""
    a, b, c = sorted(dice)
    if (a, b, c) == (4, 5, 6):
        return (3, 0)
    if a == c:
        return (2, -a)
    if (a, b, c) == (1, 2, 3):
        return (1, 0)
    return (0, sum(one if d == 1 else six if d == 6 else d for d in (a, b, c)))


def reference_chips(dice: list[int], payments: dict[str, int]) -> int:
    """Chips a hand is worth as a payment: by its category, recomputed from the dice."""
    kind = reference_key(dice)[0]
    return payments[("points", "one_two_three", "three_of_a_kind", "zanzibar")[kind]]


def _reference_turn(
    roll: Callable[[int], list[int]], choose: Callable[[], int], cap: int
) -> tuple[list[int], int]:
    dice, used = sorted(roll(3)), 1
    while used < cap:
        mask = choose()
        if mask == 7:
            break
        keep = [d for i, d in enumerate(dice) if mask >> i & 1]
        dice, used = sorted(keep + roll(3 - len(keep))), used + 1
    return dice, used


def reference_round(
    rules: zz.Ruleset,
    stacks: list[int],
    start: int,
    roll: Callable[[int], list[int]],
    choose: Callable[[], int],
) -> tuple[list[int], int, int]:
    """One chip round (roll-off on ties for lowest); returns (stacks after, winner seat, loser seat)."""
    n, limit = len(stacks), rules.max_rolls
    key = lambda d: reference_key(d, rules.one_points, rules.six_points)  # noqa: E731
    order = [(start + k) % n for k in range(n)]
    final: dict[int, list[int]] = {}
    for k, seat in enumerate(order):
        final[seat], used = _reference_turn(roll, choose, rules.max_rolls if k == 0 else limit)
        if k == 0 and rules.first_roller_sets_limit:
            limit = used
    best = order[0]
    for seat in order[1:]:
        if key(final[seat]) > key(final[best]):
            best = seat
    worst = min(key(final[s]) for s in order)
    tied = [s for s in order if key(final[s]) == worst]
    while len(tied) > 1:
        throws = {s: roll(3) for s in tied}
        worst = min(key(t) for t in throws.values())
        tied = [s for s in tied if key(throws[s]) == worst]
    loser, after = tied[0], list(stacks)
    for seat in order:
        if seat != loser:
            paying_hand = final[best] if rules.payment == "highest_hand" else final[seat]
            owed = reference_chips(paying_hand, rules.payments)
            paid = min(owed, after[seat])
            after[seat] -= paid
            after[loser] += paid
    return after, best, loser


# ---- measurement ------------------------------------------------------------------------------------
def _engine_runner(rules: zz.Ruleset, n: int, seed: int) -> Callable[[int], zz.RoundRecord]:
    agent, dice, stacks = RandomAgent(seed), RandomDice(seed), [rules.starting_stack] * n

    def run(k: int) -> zz.RoundRecord:
        state = RoundState(rules, stacks, k % n, dice)
        while state.current_seat is not None:
            state.apply(agent.act(state.view()))
        return state.record

    return run


def _reference_runner(rules: zz.Ruleset, n: int, seed: int) -> Callable[[int], tuple[list[int], int, int]]:
    rng, dice, stacks = np.random.default_rng(seed), RandomDice(seed), [rules.starting_stack] * n
    choose = lambda: int(rng.integers(8))  # noqa: E731  (the same draws as RandomAgent.act)
    return lambda k: reference_round(rules, stacks, k % n, dice.roll, choose)


def check_agreement(rules: zz.Ruleset, n: int, rounds: int, seed: int) -> None:
    """Play ``rounds`` rounds on both with the same seed; raise if any stacks, winner or loser differ."""
    engine, reference = _engine_runner(rules, n, seed), _reference_runner(rules, n, seed)
    for k in range(rounds):
        rec, (after, best, loser) = engine(k), reference(k)
        if (rec.stacks_after, rec.winner, rec.losers) != (after, best, [loser]):
            raise AssertionError(f"{n} players, round {k}: engine {rec.stacks_after} vs reference {after}")


def _timed(run: Callable[[int], object], k: int, seconds: float) -> tuple[int, float]:
    """Call ``run(k)``, ``run(k + 1)``, ... in blocks of 50 for about ``seconds``; return (calls, time)."""
    calls, start = 0, time.perf_counter()
    while True:
        for _ in range(50):
            run(k + calls)
            calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return calls, elapsed


def rounds_per_second(runs: list[Callable[[int], object]], seconds: float, slices: int = 8) -> list[float]:
    """Rounds per second of each runner, measured in ``slices`` interleaved slices of ``seconds`` in all.

    Interleaving the runners makes their ratio robust to other load on the machine.
    """
    calls, spent = [0] * len(runs), [0.0] * len(runs)
    for _ in range(slices):
        for i, run in enumerate(runs):
            c, t = _timed(run, calls[i], seconds / slices)
            calls[i] += c
            spent[i] += t
    return [c / t for c, t in zip(calls, spent, strict=True)]


def main(argv: list[str] | None = None) -> list[tuple[int, float, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--ruleset", default="classic", help="a chip ruleset with the 4-5-6 ranking")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rules = zz.load_ruleset(args.ruleset)
    if rules.stake != "chips" or rules.tie_rule != "rolloff" or rules.instant_zanzibar != "off":
        raise SystemExit("the reference covers chip rulesets with roll-offs and no instant Zanzibar")
    for n in TABLE_SIZES:
        check_agreement(rules, n, 2000, args.seed)
    print(f"engine and reference agree on 2000 random rounds at each of {TABLE_SIZES} players")
    print(f"rounds per second, random play, ruleset {rules.name!r}, {args.seconds:g} s per figure")
    print("  engine: zanzibar_env.RoundState (tables, View per decision, full record)")
    print("  reference: a minimal plain-Python round that recomputes the rules (no View, no record)")
    print(f"{'players':>7} {'engine':>10} {'reference':>10} {'engine/reference':>17}")
    rows = []
    for n in TABLE_SIZES:
        runners = [_engine_runner(rules, n, args.seed), _reference_runner(rules, n, args.seed)]
        eng, ref = rounds_per_second(runners, args.seconds)
        rows.append((n, eng, ref))
        print(f"{n:>7} {eng:>10,.0f} {ref:>10,.0f} {eng / ref:>17.2f}")
    return rows


if __name__ == "__main__":
    main()
