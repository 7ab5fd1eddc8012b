"""The help panel: the rules of a ruleset in a few lines (from RULES.md), and capped payments explained."""

from __future__ import annotations

from collections.abc import Sequence

from zanzibar_env.core.records import RoundRecord
from zanzibar_env.core.rules import Ruleset

_COMMON = [
    "Three dice; 2 to 8 players; play goes clockwise, one turn for every player still in the game.",
    "On your turn you roll up to the roll limit. After each roll you either stop or keep any of the dice "
    "and re-throw the others. Your hand is the dice showing when your turn ends"
    " (under 'best throw' rulesets: the best throw of your turn).",
    "The first roller of a round sets the limit: later players may use at most as many rolls.",
    "The player with the lowest hand loses the round; a later player must beat the highest hand, not "
    "equal it, to lead. The round's highest hand rolls first next round.",
]


def _ranking(rules: Ruleset) -> str:
    if rules.hand_ranking == "zanzibar_456":
        return (
            "Hands, best first: 4-5-6 (Zanzibar); three of a kind (1-1-1 best, then 2-2-2 ... 6-6-6); "
            f"1-2-3; then points: a 1 counts {rules.one_points}, a 6 counts {rules.six_points}, 2-5 their "
            "face value; more points is better."
        )
    return "Hands, best first: 4-2-1; three of a kind; a pair; then the sum of the dice (see RULES.md §6)."


def _stake(rules: Ruleset) -> list[str]:
    if rules.stake == "chips":
        pay = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in rules.payments.items())
        whose = "the round's highest hand" if rules.payment == "highest_hand" else "each payer's own hand"
        return [
            f"Everyone starts with {rules.starting_stack} chips; the first player to have none wins.",
            f"The loser receives chips from every other player, as many as {whose} is worth ({pay}).",
            "A payer who owes more chips than they hold gives all they hold (the payment is capped); "
            "no stack goes negative.",
        ]
    if rules.stake == "lives":
        return [
            f"Everyone starts with {rules.starting_stack} lives; the loser of a round loses lives; the last "
            "player with lives wins.",
        ]
    end = f"after {rules.num_rounds} rounds" if rules.num_rounds else f"at {rules.penalty_limit} points"
    return [f"The loser of a round takes penalty points; the game ends {end}; the fewest points win."]


def rules_help(rules: Ruleset) -> dict[str, object]:
    """The help panel of ``rules``: its name, description and the rules as a list of sentences."""
    lines = [*_COMMON, _ranking(rules), *_stake(rules)]
    lines.append(f"Roll limit of the first roller: {rules.max_rolls}.")
    if not rules.holds_allowed:
        lines.append("Dice may not be kept: every re-roll throws all three.")
    if rules.tie_rule == "rolloff":
        lines.append("A tie for the lowest hand is settled by a roll-off: the tied players throw again.")
    else:
        lines.append("Every player tied for the lowest hand loses.")
    if rules.instant_zanzibar != "off":
        lines.append(f"A top hand ends the turn at once ({rules.instant_zanzibar.replace('_', ' ')}).")
    return {"name": rules.name, "description": rules.description, "rules": lines}


def capped_payments(rec: RoundRecord, rules: Ruleset, names: Sequence[str]) -> list[str]:
    """A sentence for each payer of ``rec`` who paid less than they owed because their stack ran out."""
    if rules.stake != "chips" or not rec.losers:
        return []
    category = {t.seat: t.category for t in rec.turns}
    top = category.get(rec.winner, "")
    out = []
    for seat, change in enumerate(rec.transfers):
        if seat in rec.losers or seat not in category:
            continue
        owed = rules.payment_of(top if rules.payment == "highest_hand" else category[seat]) * len(rec.losers)
        paid = -change
        if paid < owed and rec.stacks_before[seat] == paid:
            out.append(
                f"{names[seat]} owed {owed} chips but held only {paid}, so paid {paid}: a payer gives at "
                "most what they hold (the payment is capped), and the loser received that much less."
            )
    return out
