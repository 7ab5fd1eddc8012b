"""What a model, policy file or table was made for, and the one check every consumer runs before use.

A learned agent (an SB3 model, a ``jax_ppo:`` policy file, a shipped baseline) or a policy table carries
``made_for``: a dict with any of

* ``ruleset``, ``ruleset_sha256``: the ruleset it was trained or solved on (name, and the content digest
  of :func:`~zanzibar_env.core.provenance.ruleset_digest` where known; with a digest the contents are
  compared, so a renamed copy of the same rules passes and a changed ``classic.yaml`` does not);
* ``num_ranks``, ``max_rolls``: the observation layout its input features decode (the one-hot codes of
  the hand ranks and the rolls);
* ``num_players``: the table sizes it was made for (``int`` or a list): the sizes the exact solver's
  tables hold, the ``num_players`` an SB3 model was trained at (its run's ``config.yaml``, or the
  ``config`` of the ``NAME.json`` beside a shipped or exported model: the 33 observation floats fit
  any size, the play learned at one size is not the play of another).

:func:`check_made_for` compares them with the ruleset and table size where the agent is about to play (the
envs' opponents, tournaments, the exact API and ``exact-eval``, the JAX env's opponents): a mismatch is a
``ValueError`` naming both. An agent without ``made_for`` (the rule bots, ``random``, your own) plays any
ruleset. **Opt-ins**: ``make_agent(spec, any_table_size=True)`` drops the table-size claim (a model
trained at 2 players, played at 4); ``make_agent(spec, any_ruleset=True)`` (or setting
``agent.made_for = None``) drops the ruleset and table-size claims; either plays the agent anyway. A
layout its features cannot decode is still refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .provenance import ruleset_digest

if TYPE_CHECKING:
    from .rules import Ruleset

#: The keys :func:`drop_ruleset_claims` removes (the layout keys stay: they are not a matter of choice).
RULESET_CLAIMS = ("ruleset", "ruleset_sha256", "num_players")
#: The key :func:`drop_table_size_claim` removes.
TABLE_SIZE_CLAIMS = ("num_players",)


def describe(made_for: dict[str, Any]) -> str:
    """``ruleset 'classic', 2 players, 42 ranks and 3 rolls``: what ``made_for`` says, in words."""
    parts = []
    if made_for.get("ruleset"):
        parts.append(f"ruleset {made_for['ruleset']!r}")
    if made_for.get("num_players") is not None:
        parts.append(f"{made_for['num_players']} players")
    if made_for.get("num_ranks") is not None:
        parts.append(f"features of {made_for['num_ranks']} ranks and {made_for.get('max_rolls')} rolls")
    return ", ".join(parts) or "nothing in particular"


def _sizes(value: Any) -> list[int]:
    return [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]


def mismatches(made_for: dict[str, Any], ruleset: Ruleset, num_players: int | None = None) -> list[str]:
    """What in ``made_for`` does not fit ``ruleset`` at a table of ``num_players`` (``[]``: it fits)."""
    out = []
    ranks, rolls = made_for.get("num_ranks"), made_for.get("max_rolls")
    if ranks is not None and (int(ranks), int(rolls or 0)) != (ruleset.table.num_ranks, ruleset.max_rolls):
        out.append(
            f"its features decode {ranks} ranks and {rolls} rolls, {ruleset.name!r} has "
            f"{ruleset.table.num_ranks} and {ruleset.max_rolls}"
        )
    sha, name = made_for.get("ruleset_sha256"), made_for.get("ruleset")
    if sha and sha != ruleset_digest(ruleset):
        same = " (same name, other options)" if name == ruleset.name else ""
        out.append(f"it was made for ruleset {name!r}, this is {ruleset.name!r}{same}")
    elif not sha and name and name != ruleset.name:
        out.append(f"it was made for ruleset {name!r}, this is {ruleset.name!r}")
    sizes = made_for.get("num_players")
    if sizes is not None and num_players is not None and num_players not in _sizes(sizes):
        out.append(f"it was made for tables of {sizes} players, this table has {num_players}")
    return out


_OPT_IN = "make it with make_agent(spec, any_ruleset=True)"
_SIZE_OPT_IN = "make it with make_agent(spec, any_table_size=True)"


def check_made_for(
    agent: Any,
    ruleset: Ruleset,
    num_players: int | None = None,
    where: str = "",
    what: str = "agent",
    opt_in: str | None = _OPT_IN,
) -> None:
    """``ValueError`` naming the ``what`` (agent, table), what it was made for and where it is used,
    unless its ``made_for`` (if any) fits ``ruleset`` and ``num_players`` (see the module docstring);
    the message ends with ``opt_in``, how to use it anyway (``None``: where there is no way to)."""
    made_for = getattr(agent, "made_for", None)
    if not isinstance(made_for, dict):
        return
    problems = mismatches(made_for, ruleset, num_players)
    if problems:
        name = getattr(agent, "name", None) or type(agent).__name__
        at = f" {where}" if where else ""
        layout_only = all("features decode" in p for p in problems)
        if opt_in == _OPT_IN and all("this table has" in p for p in problems):
            opt_in = _SIZE_OPT_IN  # (only the table size is off: the narrower opt-in)
        hint = "" if layout_only or opt_in is None else f"; to play it anyway, {opt_in}"
        raise ValueError(f"{what} {name!r} cannot play{at}: {'; '.join(problems)}{hint}")


def drop_ruleset_claims(agent: Any) -> Any:
    """``agent`` with the ruleset and table-size claims of its ``made_for`` removed (the opt-in)."""
    made_for = getattr(agent, "made_for", None)
    if isinstance(made_for, dict):
        agent.made_for = {k: v for k, v in made_for.items() if k not in RULESET_CLAIMS}
    return agent


def drop_table_size_claim(agent: Any) -> Any:
    """``agent`` with the table-size claim of its ``made_for`` removed (the opt-in ``any_table_size``)."""
    made_for = getattr(agent, "made_for", None)
    if isinstance(made_for, dict):
        agent.made_for = {k: v for k, v in made_for.items() if k not in TABLE_SIZE_CLAIMS}
    return agent


def ruleset_claim(ruleset: Ruleset) -> dict[str, Any]:
    """``{"ruleset", "ruleset_sha256"}`` of ``ruleset``: the claim a table or model built on it carries."""
    return {"ruleset": ruleset.name, "ruleset_sha256": ruleset_digest(ruleset)}
