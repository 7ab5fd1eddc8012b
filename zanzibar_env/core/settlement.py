"""The rules kernel, part 2: settling a round, who starts the next, starting and ending a game, and the
rewards of the envs.

Every function takes one value per seat **in play order** (position 0 rolled first) as a list, each
value a Python int/bool (the scalar engine, one table) or a numpy array over env rows (the numpy engine,
every table at once); see :mod:`zanzibar_env.core.kernel` for the design. A seat that did not roll this
round (out of lives, or after an instant Zanzibar) has rank ``-1``.

Flags are combined with ``& | ^`` only (``x ^ True`` is "not x" for Python bools and numpy bool arrays).

Rules that depend on the ruleset's options are written as a function of the ruleset that returns the
rule for those options (``losers_rule``, ``amounts_rule``, ``stacks_rule``, ``game_end_rule``: built once
per ruleset and kept); the plain functions (:func:`round_losers`, :func:`chip_amounts`,
:func:`stacks_after`, :func:`game_winners`) call them, and an engine that plays one ruleset many times
holds the returned rule instead of choosing it again each round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, overload

import numpy as np

from .kernel import A, N, Number, per_ruleset, select
from .rules import Ruleset

_BIG = 1 << 30


def _pick(cond: N | int, a: N, b: N | int) -> N:
    """Flag ``a`` where ``cond`` else flag ``b`` (flags only)."""
    if type(cond) is np.ndarray:
        return np.where(cond, a, b)
    return (cond & a) | ((cond ^ True) & b)


def _least(a: N, b: N | int) -> N:
    return select(a < b, a, b)


def _none(flag: Number) -> bool:
    """True if ``flag`` is false everywhere (a Python bool, or an array with no true entry)."""
    # count_nonzero, not any(): docs/benchmarks.md#kernel-and-settlement
    return flag is False or (type(flag) is np.ndarray and not np.count_nonzero(flag))


# ---- who loses --------------------------------------------------------------------------------------
def round_losers(ruleset: Ruleset, ranks: Sequence[N], lo: N, instant: N | int) -> list[N]:
    """Who loses before roll-offs: every seat whose hand has the lowest rank ``lo``.

    If the round ended at once on a top hand (``instant``): nobody under ``instant_zanzibar: no_loss``;
    under ``worst_so_far_loses`` the lowest hand among the seats that rolled before the top hand (the
    roller holds the only top hand: any earlier one would have ended the round).
    """
    return losers_rule(ruleset)(ranks, lo, instant)


class Losers(Protocol):
    """:func:`round_losers` for one ruleset (generic: one kind of number per call)."""

    def __call__(self, ranks: Sequence[N], lo: N, instant: N | int) -> list[N]: ...


@per_ruleset
def losers_rule(ruleset: Ruleset) -> Losers:
    """:func:`round_losers` for one ruleset: ``(ranks, lo, instant) -> losers``."""

    def tied(ranks: Sequence[N], lo: N, instant: N | int) -> list[N]:
        return [(r >= 0) & (r == lo) for r in ranks]

    def no_loss(ranks: Sequence[N], lo: N, instant: N | int) -> list[N]:
        return [t & (instant ^ True) for t in tied(ranks, lo, instant)]

    top = ruleset.table.num_ranks - 1

    def worst_so_far(ranks: Sequence[N], lo: N, instant: N | int) -> list[N]:
        others = [(r >= 0) & (r != top) for r in ranks]
        worst: N | int = _BIG
        for r, o in zip(ranks, others, strict=True):
            worst = select(o & (r < worst), r, worst)
        return [
            _pick(instant, o & (r == worst), t)
            for r, o, t in zip(ranks, others, tied(ranks, lo, instant), strict=True)
        ]

    rules: dict[str, Losers] = {"off": tied, "no_loss": no_loss, "worst_so_far_loses": worst_so_far}
    return rules[ruleset.instant_zanzibar]


def may_tie(lowest_count: N, instant: N) -> N:
    """Whether a round may have more than one loser before roll-offs: two hands or more share the lowest
    rank, or the round ended on an instant top hand (every hand before it loses). Elsewhere the lowest
    hand's seat is the one loser, and :func:`rolloff` has nothing to do (engines skip it)."""
    return (lowest_count > 1) | instant


def rolloff(ruleset: Ruleset, tied: list[N], throw: Callable[[list[N], N | bool], list[N]]) -> list[N]:
    """Resolve ties for lowest: all tied seats lose under ``tie_rule: all``; under ``rolloff`` the tied
    seats each throw all three dice once more (``throw(tied, multi)`` returns the rank of each tied
    seat's throw where ``multi``, drawn in play order), repeated while still tied for lowest."""
    if ruleset.tie_rule == "all":
        return tied
    while True:
        count: N | int = 0
        for t in tied:
            count = count + t
        multi = count > 1
        if _none(multi):
            return tied
        tied = rolloff_step(tied, throw(tied, multi), multi)


def rolloff_step(tied: list[N], ranks: Sequence[N], multi: N | bool) -> list[N]:
    """One throw of a roll-off: where ``multi`` (more than one seat tied), the tied seats whose throw
    (``ranks``, one per seat in play order) is the lowest among the tied stay tied; elsewhere nothing
    changes. Engines that cannot loop in Python (``jax.lax.while_loop``) call this in their own loop."""
    worst: N | int = _BIG
    for t, r in zip(tied, ranks, strict=True):
        worst = select(t & (r < worst), r, worst)
    single = multi ^ True
    return [t & (single | (r == worst)) for t, r in zip(tied, ranks, strict=True)]


def tie_outcomes(ruleset: Ruleset, tied: N) -> tuple[N, N]:
    """A tie for lowest among ``tied`` seats in expectation: ``(losers, outcomes)``, the round ends in
    ``outcomes`` equally likely ways, each with ``losers`` losers, and each tied seat is the loser in
    exactly one of them. ``tie_rule: all``: one way, all ``tied`` lose; ``rolloff``: ``tied`` ways (the
    roll-off is symmetric), one loser each. :func:`rolloff` plays the same rule throw by throw; the exact
    solver reads this form."""
    one = tied - tied + 1  # 1, of tied's type
    return (tied, one) if ruleset.tie_rule == "all" else (one, tied)


# ---- who pays whom ----------------------------------------------------------------------------------
def chip_amounts(ruleset: Ruleset, chips: Any, cats: Sequence[N], hi_cat: N) -> list[N]:
    """Chips each seat pays each loser: the category price (``chips``, by category index) of the round's
    highest hand (``payment: highest_hand``) or of the payer's own hand (``own_hand``)."""
    return amounts_rule(ruleset)(chips, cats, hi_cat)


class Amounts(Protocol):
    """:func:`chip_amounts` for one ruleset."""

    def __call__(self, chips: Any, cats: Sequence[N], hi_cat: N) -> list[N]: ...


@per_ruleset
def amounts_rule(ruleset: Ruleset) -> Amounts:
    """:func:`chip_amounts` for one ruleset: ``(chips, cats, hi_cat) -> amounts``."""

    def highest_hand(chips: Any, cats: Sequence[N], hi_cat: N) -> list[N]:
        return [chips[hi_cat]] * len(cats)

    def own_hand(chips: Any, cats: Sequence[N], hi_cat: N) -> list[N]:
        return [chips[c] for c in cats]

    return highest_hand if ruleset.payment == "highest_hand" else own_hand


def pay_chips(stacks: Sequence[N], losers: Sequence[N | bool], amounts: Sequence[N | int]) -> list[N]:
    """Stacks after chip payments: each loser, in play order, receives from every non-loser its amount,
    a payer giving at most what it still holds (the loser takes chips: first to 0 wins)."""
    out = list(stacks)
    for j, lj in enumerate(losers):
        if lj is False or (type(lj) is np.ndarray and not np.count_nonzero(lj)):  # _none(lj), inlined
            continue
        for i, li in enumerate(losers):
            if i != j and li is not True:  # (a Python True: a loser, it pays nothing; arrays go through)
                held, owed = out[i], amounts[i]
                give = (lj & (li ^ True)) * (held + (owed < held) * (owed - held))  # min(owed, held)
                out[i] = held - give
                out[j] = out[j] + give
    return out


def lose_lives(stacks: Sequence[N], losers: Sequence[N | bool], lost: N | int) -> list[N]:
    """Stacks after each loser loses ``lost`` lives (never below 0)."""
    return [s - out * _least(s, lost) for s, out in zip(stacks, losers, strict=True)]


def stacks_after(
    ruleset: Ruleset, stacks: Sequence[N], losers: Sequence[N | bool], amounts: Any, lost: N | int
) -> list[N]:
    """Stacks after the round: chips paid to the losers (``amounts``, see :func:`chip_amounts`); lives
    lost (``lost`` each, by the round's top hand: ``kernel.lives_lost_by_rank``); or, under ``stake:
    penalty``, ``lost`` penalty points taken by each loser (points count up, RULES.md §8)."""
    return stacks_rule(ruleset)(stacks, losers, amounts, lost)


class StacksAfter(Protocol):
    """:func:`stacks_after` for one ruleset."""

    def __call__(
        self, stacks: Sequence[N], losers: Sequence[N | bool], amounts: Any, lost: N | int
    ) -> list[N]: ...


@per_ruleset
def stacks_rule(ruleset: Ruleset) -> StacksAfter:
    """:func:`stacks_after` for one ruleset: ``(stacks, losers, amounts, lost) -> stacks after``."""

    def chips(stacks: Sequence[N], losers: Sequence[N | bool], amounts: Any, lost: N | int) -> list[N]:
        return pay_chips(stacks, losers, amounts)

    def lives(stacks: Sequence[N], losers: Sequence[N | bool], amounts: Any, lost: N | int) -> list[N]:
        return lose_lives(stacks, losers, lost)

    def penalty(stacks: Sequence[N], losers: Sequence[N | bool], amounts: Any, lost: N | int) -> list[N]:
        return [s + out * lost for s, out in zip(stacks, losers, strict=True)]

    return {"chips": chips, "lives": lives}.get(ruleset.stake, penalty)


# ---- the next round ------------------------------------------------------------------------------
def next_starter(ruleset: Ruleset, stacks: Sequence[N], winner: N) -> N:
    """Who rolls first in the next round: the round's winner (its highest hand, RULES.md §2); under
    ``stake: lives``, if the winner is out, the first seat clockwise after it still in the game.

    ``stacks``: one value per seat **in seat order** (not play order), after the round; ``winner``: a
    seat. Branch-free over the values (a ``select`` per seat), so it runs on Python ints, ``[N]`` numpy
    arrays and JAX arrays alike."""
    if ruleset.stake != "lives":  # every seat is in the game
        return winner
    n = len(stacks)
    ahead: N | int = n  # clockwise distance from the winner to the first seat still in
    for seat, stack in enumerate(stacks):
        d = (seat - winner) % n
        ahead = select((stack > 0) & (d < ahead), d, ahead)
    return (winner + ahead) % n


# ---- the start of a game ----------------------------------------------------------------------------
def start_problem(ruleset: Ruleset, stacks: Sequence[int], first: int, whole_game: bool) -> str | None:
    """Why a game (``whole_game``) or a single round cannot start from ``stacks`` with seat ``first``
    rolling first, or ``None`` if it can. Stacks are non-negative integers, one per seat; chips: a game
    needs every stack positive (a seat at 0 chips has already won), a round a seat with chips to pay;
    lives: two seats or more with lives, the first roller among them; penalty: any points."""
    n, got = len(stacks), list(stacks)
    if any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in stacks):
        return f"{'starting ' if whole_game else ''}stacks must be non-negative integers, got {got!r}"
    if isinstance(first, bool) or not isinstance(first, (int, np.integer)):
        return f"starting seat must be an integer seat, got {first!r}"
    if not 0 <= first < n or (ruleset.stake == "lives" and stacks[first] <= 0):
        return f"starting seat {first} is not an active seat of {n}"
    if ruleset.stake == "chips" and whole_game and min(stacks) == 0:
        return f"every chip stack must be positive at the start (0 chips has won): {got!r}"
    if ruleset.stake == "chips" and not any(stacks):
        return f"a chips round needs a player with chips to pay, got stacks {got!r}"
    if ruleset.stake == "lives" and sum(s > 0 for s in stacks) < 2:
        what = "a game needs at least two" if whole_game else "a lives round needs two or more"
        return f"{what} players with lives left, got {got!r}"
    return None


# ---- the end of a game ------------------------------------------------------------------------------
def game_winners(
    ruleset: Ruleset,
    before: Sequence[N],
    after: Sequence[N],
    played: Sequence[N | bool],
    rounds: N | int,
) -> tuple[list[N], N | bool]:
    """``(winners, over)`` after the game's ``rounds``-th round: chips: every seat at 0 chips wins;
    lives: the last seat with lives wins, and if everyone left went out in this round, those of them (who
    rolled) with the most lives at its start win; penalty: after ``num_rounds`` rounds, or once a seat has
    ``penalty_limit`` points (whichever the ruleset sets, the first if both), the fewest points win (ties
    share)."""
    return game_end_rule(ruleset)(before, after, played, rounds)


class GameEnd(Protocol):
    """:func:`game_winners` for one ruleset."""

    def __call__(
        self, before: Sequence[N], after: Sequence[N], played: Sequence[N | bool], rounds: N | int
    ) -> tuple[list[N], N | bool]: ...


@per_ruleset
def game_end_rule(ruleset: Ruleset) -> GameEnd:
    """:func:`game_winners` for one ruleset: ``(before, after, played, rounds) -> (winners, over)``."""
    num_rounds, limit = ruleset.num_rounds, ruleset.penalty_limit

    def penalty(
        before: Sequence[N], after: Sequence[N], played: Sequence[N | bool], rounds: N | int
    ) -> tuple[list[N], N | bool]:
        over: N | bool = False
        if num_rounds is not None:
            over = rounds >= num_rounds
        least: N | int = _BIG
        for a in after:
            least = _least(a, least)
            if limit is not None:
                over = over | (a >= limit)
        return [over & (a == least) for a in after], over

    def chips(
        before: Sequence[N], after: Sequence[N], played: Sequence[N | bool], rounds: N | int
    ) -> tuple[list[N], N | bool]:
        over: N | bool = False
        won: list[N] = [a == 0 for a in after]
        for w in won:
            over = over | w
        return won, over

    def lives(
        before: Sequence[N], after: Sequence[N], played: Sequence[N | bool], rounds: N | int
    ) -> tuple[list[N], N | bool]:
        alive = [a > 0 for a in after]
        left: N | int = 0
        best: N | int = -1
        for a, b, p in zip(alive, before, played, strict=True):
            left = left + a
            best = select(p & (b > best), b, best)
        over = left <= 1
        won = [
            over & _pick(left == 0, p & (b == best), a) for a, b, p in zip(alive, before, played, strict=True)
        ]
        return won, over

    return {"penalty": penalty, "chips": chips}.get(ruleset.stake, lives)


# ---- rewards ----------------------------------------------------------------------------------------
def chip_reward(ruleset: Ruleset, transfer: N) -> N:
    """``"chips"`` reward of a round: chips given away minus chips received; lives: minus lives lost."""
    return transfer if ruleset.stake == "lives" else -transfer


@overload
def win_reward(won: int, winners: int) -> float: ...
@overload
def win_reward(won: A, winners: A) -> A: ...
def win_reward(won: N, winners: N) -> N | float:
    """``"win"`` reward at game end: ``+1/k`` to each of ``k`` winners, ``-1`` to every other seat."""
    return select(won, 1.0 / select(winners > 0, winners, 1), -1.0)


@overload
def round_win_reward(any_loser: int, lost: int, others: int) -> float: ...
@overload
def round_win_reward(any_loser: A, lost: A, others: A) -> A: ...
def round_win_reward(any_loser: N, lost: N, others: N) -> N | float:
    """``"win"`` reward of a round episode: ``-1`` for a loser, the ``others`` non-losers share ``+1``;
    0 if nobody lost."""
    return any_loser * select(lost, -1.0, 1.0 / select(others > 0, others, 1))


@overload
def episode_step(
    ruleset: Ruleset,
    episode: str,
    reward: str,
    transfer: int,
    won: int,
    winners: int,
    over: int,
    alive: int,
    round_result: float,
) -> tuple[float, bool]: ...
@overload
def episode_step(
    ruleset: Ruleset,
    episode: str,
    reward: str,
    transfer: A,
    won: A,
    winners: A,
    over: A,
    alive: A,
    round_result: A | float,
) -> tuple[A, A]: ...
def episode_step(
    ruleset: Ruleset,
    episode: str,
    reward: str,
    transfer: N,
    won: N,
    winners: N,
    over: N,
    alive: N,
    round_result: N | float,
) -> tuple[N | float, N]:
    """``(reward, terminated)`` of one seat for a settled round. Round episodes end after the round
    (``round_result`` is its :func:`round_win_reward`); game episodes end when the game is over, or for
    this seat when it is out of lives while others play on (``"win"``: ``-1``). Truncation (a round cap)
    is decided by the caller where ``terminated`` is false."""
    r = chip_reward(ruleset, transfer) if reward == "chips" else 0.0 * transfer
    if episode == "round":
        return (r + round_result if reward == "win" else r), over | True
    out = (over ^ True) & (alive ^ True) if ruleset.stake == "lives" else over & False
    if reward == "win":
        r = r + select(over, win_reward(won, winners), select(out, -1.0, 0.0))
    return r, over | out
