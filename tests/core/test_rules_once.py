"""Every rule written once: who starts the next round, which starting stacks are valid, and how a tie
for lowest and the payments settle (read by the exact solver) each have one definition in
``zanzibar_env.core.settlement`` / ``kernel``; every engine calls it.

Two kinds of test: the definitions behave as RULES.md says on every kind of number (Python ints,
numpy rows, JAX arrays), and a scan of the source (``ast``) finds the tell-tale expressions of each
rule nowhere but in its home. The scan is shown to fail by planting former copies of the rules in a
module's source.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from zanzibar_env.core import settlement as S
from zanzibar_env.core.kernel import chips_of_category
from zanzibar_env.core.rules import Ruleset, load_ruleset

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("zanzibar_env", "agents", "train", "benchmarks", "experiments", "tools")
HOME = "zanzibar_env/core/settlement.py"  # home of the three rules scanned for below
RULES_HOME = "zanzibar_env/core/rules.py"  # the options (and Ruleset.payment_of) themselves
#: A second implementation kept on purpose: the benchmark checks the engine against it.
REFERENCES = {"benchmarks/engine.py": "a plain-Python reference of the chip rules, timed beside the engine"}
#: Modules that may read ``tie_rule`` without restating it: routing and refusing unsupported rules.
TIE_RULE_READERS = {
    "zanzibar_env/jax/_core.py": "runs the roll-off loop only where there can be one",
    "agents/exact/game3.py": "refuses rulesets it does not model",
    "agents/exact/table_round.py": "refuses rulesets it does not model",
}


def _name(node: ast.AST) -> str:
    """The last name of a called function or attribute (``np.where`` -> ``where``), else ``""``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _names(node: ast.AST) -> set[str]:
    return {_name(n) for n in ast.walk(node)} - {""}


def _is_positive_test(node: ast.AST) -> bool:
    """``x > 0``."""
    return (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.Gt)
        and isinstance(node.comparators[0], ast.Constant)
        and node.comparators[0].value == 0
    )


# ---- tell-tales of each rule: (rule, why) for every offending node of a module ----------------------
def starter_tells(tree: ast.AST) -> Iterator[str]:
    """Who starts the next round: ``where(stack > 0, winner, next_active(...))``, or a seat found by
    stepping clockwise from the winner (``(winner + k) % n``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) == "where" and len(node.args) == 3:
            cond, *arms = node.args
            if _is_positive_test(cond) and any("next_active" in nm for a in arms for nm in _names(a)):
                yield f"line {node.lineno}: the winner, or the next seat in the game after it"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            if _names(node.left) & {"winner", "hi_seat", "hs"}:
                yield f"line {node.lineno}: a seat clockwise from the round's winner"
        if isinstance(node, ast.FunctionDef) and node.name == "next_starter":
            yield f"line {node.lineno}: def next_starter"


def start_tells(tree: ast.AST) -> Iterator[str]:
    """Valid starting stacks: counting seats with lives (``sum(s > 0 for s in stacks) < 2``), or the
    refusals' own words."""
    words = ("lives left", "chips to pay", "chips has won", "must be positive at the start")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Call)
            and _name(node.left.func) == "sum"
        ):
            inner = node.left.args[0] if node.left.args else None
            if isinstance(inner, (ast.GeneratorExp, ast.ListComp)) and _is_positive_test(inner.elt):
                if any(isinstance(c, ast.Constant) and c.value == 2 for c in node.comparators):
                    yield f"line {node.lineno}: two or more seats with a positive stack"
        if isinstance(node, ast.Raise) and node.exc is not None:
            text = " ".join(
                c.value
                for c in ast.walk(node.exc)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            )
            if any(w in text for w in words):
                yield f"line {node.lineno}: a refusal of starting stacks"
        if isinstance(node, ast.FunctionDef) and node.name == "start_problem":
            yield f"line {node.lineno}: def start_problem"


def payment_tells(tree: ast.AST) -> Iterator[str]:
    """Payments and the tie rule: ``ruleset.payments`` read past ``Ruleset.payment_of`` (with a default
    of its own), ``tie_rule`` read to settle a tie, a second ``tie_outcomes``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "payments":
            yield f"line {node.lineno}: .payments read past Ruleset.payment_of"
        if isinstance(node, ast.Attribute) and node.attr == "tie_rule":
            yield f"line {node.lineno}: .tie_rule read (settlement.tie_outcomes / rolloff say what it means)"
        if isinstance(node, ast.FunctionDef) and node.name == "tie_outcomes":
            yield f"line {node.lineno}: def tie_outcomes"


TELLS: dict[str, Callable[[ast.AST], Iterator[str]]] = {
    "next starter": starter_tells,
    "starting stacks": start_tells,
    "payments and ties": payment_tells,
}
#: Where each rule may be written (its home) besides settlement.py.
EXTRA_HOMES = {"payments and ties": {RULES_HOME, *TIE_RULE_READERS}}


def source_files() -> list[Path]:
    files = [p for d in SOURCE_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    assert len(files) > 50, "the scan found too few modules: has the layout changed?"
    return files


def offences(rel: str, text: str, rule: str) -> list[str]:
    """Tell-tales of ``rule`` in the module ``rel`` (source ``text``), unless it is a home of the rule."""
    if rel == HOME or rel in REFERENCES or rel in EXTRA_HOMES.get(rule, set()):
        return []
    return [f"{rel} {why}" for why in TELLS[rule](ast.parse(text))]


@pytest.mark.parametrize("rule", sorted(TELLS))
def test_each_rule_is_written_in_one_place(rule: str) -> None:
    found = []
    for path in source_files():
        found += offences(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"), rule)
    assert not found, f"{rule}: a second definition; call zanzibar_env.core.settlement instead: {found}"


@pytest.mark.parametrize("rule", sorted(TELLS))
def test_the_home_holds_the_rule(rule: str) -> None:
    """The scan does look at the right thing: the home itself shows the tell-tales."""
    assert list(TELLS[rule](ast.parse((ROOT / HOME).read_text(encoding="utf-8"))))


#: Former copies of each rule, as they were written in the engines before they called settlement.
PLANTED = {
    "next starter": [
        "def _starter(self, r):\n"
        "    hs = self.hi_seat[r]\n"
        "    return np.where(self.stacks[r, hs] > 0, hs, self._next_active(r, hs))\n",
        "def next_starter(ruleset, stacks, winner):\n"
        "    for k in range(len(stacks)):\n"
        "        s = (winner + k) % len(stacks)\n"
        "        if stacks[s] > 0:\n"
        "            return s\n",
    ],
    "starting stacks": [
        "def check(stacks, ruleset):\n"
        "    if ruleset.stake == 'lives' and sum(s > 0 for s in stacks) < 2:\n"
        "        raise ValueError('a lives game needs two or more seats with lives')\n",
        "def check(values):\n"
        "    if min(values) == 0:\n"
        "        raise ValueError(f'every chip stack must be positive at the start (0 chips has won): {values}')\n",
    ],
    "payments and ties": [
        "pay = np.array([ruleset.payments.get(c, 0) for c in t.categories], np.int64)\n",
        "tie = 0.5 if ruleset.tie_rule == 'rolloff' else 0.0\n",
    ],
}


@pytest.mark.parametrize(("rule", "copy"), [(r, c) for r, cs in PLANTED.items() for c in cs])
def test_a_planted_copy_is_found(rule: str, copy: str) -> None:
    """Plant a former definition in a copy of a module's source: the scan names it."""
    rel = "zanzibar_env/envs/_batched.py"
    text = (ROOT / rel).read_text(encoding="utf-8")
    assert not offences(rel, text, rule)
    assert offences(rel, text + "\n\n" + copy, rule)


# ---- the definitions themselves ---------------------------------------------------------------------
def _brute_starter(stacks: list[int], winner: int) -> int:
    n = len(stacks)
    return next((winner + k) % n for k in range(n) if stacks[(winner + k) % n] > 0)


def test_next_starter_on_ints_numpy_and_jax() -> None:
    jnp = pytest.importorskip("jax.numpy")
    lives, chips = load_ruleset("lives"), load_ruleset("classic")
    cases = [
        (list(st), w)
        for n in (2, 3, 5)
        for st in itertools.product((0, 2), repeat=n)
        if sum(s > 0 for s in st) >= 1
        for w in range(n)
    ]
    want = [_brute_starter(st, w) for st, w in cases]
    assert [S.next_starter(lives, st, w) for st, w in cases] == want
    assert [S.next_starter(chips, st, w) for st, w in cases] == [w for _, w in cases]
    for n in (2, 3, 5):  # numpy: every case of n seats as one row each
        rows = [i for i, (st, _) in enumerate(cases) if len(st) == n]
        stacks = np.array([cases[i][0] for i in rows])
        winners = np.array([cases[i][1] for i in rows])
        got = S.next_starter(lives, list(stacks.T), winners)
        assert got.tolist() == [want[i] for i in rows]
        got_jax = S.next_starter(lives, list(jnp.asarray(stacks.T)), jnp.asarray(winners))
        assert np.asarray(got_jax).tolist() == [want[i] for i in rows]


@pytest.mark.parametrize(
    ("ruleset", "stacks", "first", "game", "problem"),
    [
        ("classic", [20, 20], 0, True, None),
        ("classic", [20, 0], 0, True, "every chip stack must be positive"),
        ("classic", [20, 0], 1, False, None),  # a round: one payer is enough
        ("classic", [0, 0], 0, False, "needs a player with chips to pay"),
        ("classic", [20, -1], 0, False, "non-negative integers"),
        ("classic", [20, True], 0, False, "non-negative integers"),
        ("classic", [20, 20], 2, False, "starting seat 2 is not an active seat"),
        ("classic", [20, 20], 1.0, False, "integer seat"),
        ("lives", [0, 5], 0, False, "not an active seat"),
        ("lives", [5, 0, 0], 0, True, "at least two players with lives left"),
        ("lives", [5, 0, 0], 0, False, "two or more players with lives left"),
        ("lives", [5, 0, 1], 2, True, None),
        ("penalty", [0, 0], 0, True, None),
    ],
)
def test_start_problem(ruleset: str, stacks: list, first: int, game: bool, problem: str | None) -> None:
    got = S.start_problem(load_ruleset(ruleset), stacks, first, whole_game=game)
    assert (got is None) if problem is None else (got is not None and problem in got)


def test_every_engine_refuses_bad_stacks_with_the_same_words() -> None:
    from zanzibar_env.core.dice import ScriptedDice
    from zanzibar_env.core.engine import RoundState
    from zanzibar_env.core.game import GameState

    lives = load_ruleset("lives")
    with pytest.raises(ValueError, match="a game needs at least two players with lives left"):
        GameState(lives, 3, ScriptedDice([]), stacks=[5, 0, 0])
    with pytest.raises(ValueError, match="a lives round needs two or more players with lives left"):
        RoundState(lives, [5, 0, 0], 0, ScriptedDice([]))
    pytest.importorskip("pyspiel")
    from zanzibar_env.envs.openspiel.games import GAME_PARAMS, ROUND_PARAMS, parse_params

    params = {"ruleset": "classic", "stacks": "20,0"}
    with pytest.raises(ValueError, match=r"stacks='20,0'.*every chip stack must be positive"):
        parse_params(params, GAME_PARAMS)
    assert parse_params(params, ROUND_PARAMS)[1] == [20, 0]  # one round: seat 1 pays


@pytest.mark.parametrize("tie_rule", ["rolloff", "all"])
def test_tie_outcomes_is_what_rolloff_plays(tie_rule: str) -> None:
    """``tie_outcomes`` (the form the exact solver reads) agrees with ``rolloff`` (the form the engines
    play): the number of losers, and every tied seat the loser about once in ``outcomes``."""
    rules = load_ruleset("classic", tie_rule=tie_rule)
    rng = np.random.default_rng(7)

    def throws(tied: list[bool], multi: bool) -> list[int]:  # a random rank for every seat
        return [int(x) for x in rng.integers(0, 9, len(tied))]

    for k in (2, 3, 4):
        losers, outcomes = S.tie_outcomes(rules, k)
        lost = np.zeros(k)
        trials = 600
        for _ in range(trials):
            out = S.rolloff(rules, [True] * k, throws)
            assert sum(out) == losers
            lost += np.array(out, float)
        np.testing.assert_allclose(lost / trials, 1 / outcomes, atol=0.08)


@pytest.mark.parametrize("name", ["classic", "simple_scoring", "alt_chips", "lives", "penalty"])
def test_the_solver_reads_payments_from_the_ruleset(name: str) -> None:
    from zanzibar_env.agents.exact.game import GameSpec
    from zanzibar_env.agents.exact.round import RoundSpec

    rules = load_ruleset(name)
    want = [rules.payment_of(c) for c in rules.table.categories]
    assert RoundSpec.of(rules, 3).pay_cat.tolist() == want == chips_of_category(rules).tolist()
    if rules.stake != "penalty":
        spec = GameSpec.of(rules)
        assert spec.pay_of_rank.tolist() == [want[c] for c in _category_of_rank(rules)]


def _category_of_rank(rules: Ruleset) -> list[int]:
    t = rules.table
    out = [0] * t.num_ranks
    for m, r in enumerate(t.rank_of_multiset):
        out[r] = int(t.category_of_multiset[m])
    return out
