"""What the single, vector and multi-agent envs share: argument checks, opponents, rewards, spaces.

Kept in one place so the three envs validate the same way and score the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import error, spaces

from ..core.bots import check_table_size
from ..core.checks import check_agent_object, show
from ..core.game import check_num_players
from ..core.observation import OBS_SIZE
from ..core.registry import available_agents, available_prefixes, make_agent
from ..core.rules import MAX_PLAYERS, Ruleset, load_ruleset
from ..core.safe_io import is_file

REWARDS = ("chips", "win")
EPISODES = ("game", "round")
OBS_LOW, OBS_HIGH = -1.0, float(MAX_PLAYERS)  # stacks can reach num_players x the start (<= 8x)


class ResetNeeded(error.ResetNeeded, RuntimeError):
    """A method called before ``reset()`` (or ``step`` after the episode ended), with one line saying what
    to call. Gymnasium's ``ResetNeeded`` (and ``RuntimeError``, as before) catches it."""


def observation_space() -> spaces.Box:
    """The observation space of one seat: ``Box(-1, 8, (33,), float32)`` (layout in observation.py)."""
    return spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)


def check_ruleset(ruleset: Any) -> Ruleset:
    """A :class:`Ruleset` from a name, a YAML path, a mapping or a ruleset (``ValueError`` if unknown)."""
    return load_ruleset(ruleset)


def check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def check_seat(seat: Any, n: int) -> int | None:
    """``None`` for ``"random"``, else the seat index (``ValueError`` if out of range)."""
    if isinstance(seat, str) and seat == "random":
        return None
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be 'random' or an integer 0-{n - 1} for {n} players, got {show(seat)}")
    return int(seat)


def check_render_mode(render_mode: Any, modes: list[str]) -> str | None:
    """``render_mode`` if it is ``None`` or one of ``modes``, else ``ValueError``."""
    if render_mode is not None and not (isinstance(render_mode, str) and render_mode in modes):
        raise ValueError(f"render_mode must be None or one of {modes}, got {show(render_mode)}")
    return render_mode


def check_max_rounds(max_rounds: Any, ruleset: Ruleset) -> int | None:
    """The round cap: ``max_rounds`` if given (a positive int), else the ruleset's (``Ruleset.round_cap``)."""
    if max_rounds is None:
        return ruleset.round_cap
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
        raise ValueError(f"max_rounds must be None or a positive integer, got {max_rounds!r}")
    return int(max_rounds)


def check_max_cycles(max_cycles: Any) -> int | None:
    """PettingZoo's ``max_cycles``: ``None`` (no limit) or a positive integer."""
    if max_cycles is None:
        return None
    if isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer)) or max_cycles < 1:
        raise ValueError(f"max_cycles must be None or a positive integer, got {max_cycles!r}")
    return int(max_cycles)


def _one_opponent(spec: Any) -> Any:
    prefixed = isinstance(spec, str) and spec.split(":", 1)[0] + ":" in available_prefixes()
    if isinstance(spec, str) and spec not in available_agents() and (spec.startswith("ppo:") or not prefixed):
        path = spec[4:] if spec.startswith("ppo:") else spec
        looks_like_path = spec.startswith("ppo:") or path.endswith(".zip") or "/" in path or "\\" in path
        if looks_like_path:
            if not is_file(path):
                raise ValueError(f"opponent model file not found: {path[:200]!r}")
            return make_agent(f"ppo:{path}")
    if not isinstance(spec, str):
        check_agent_object(spec, "opponents")
    return make_agent(spec)


def make_opponents(opponents: Any, num_players: int, ruleset: Ruleset | None = None) -> list[Any]:
    """One agent per other seat, ``k``-th = the ``k``-th seat clockwise after the learner; given
    ``ruleset``, each must have been made for it (:mod:`zanzibar_env.core.made_for`).

    ``opponents`` is one spec for every other seat (a name in ``zanzibar_env.agents.available_agents()``, an agent
    object, ``"ppo:PATH"`` or a model path) or a list with exactly one spec per other seat.
    """
    if isinstance(opponents, Sequence) and not isinstance(opponents, str):
        if len(opponents) != num_players - 1:
            raise ValueError(
                f"opponents: got {len(opponents)} for {num_players - 1} other seats; "
                "give one spec for all or exactly one per other seat"
            )
        built = [_one_opponent(s) for s in opponents]
    else:
        built = [_one_opponent(opponents)] * (num_players - 1)
    for agent in built:
        check_table_size(agent, num_players, ruleset)
    return built


def seed_opponents(opponents: list[Any], rng: np.random.Generator) -> None:
    """Reseed each distinct opponent from ``rng`` (agents without ``seed()`` are left alone)."""
    seen: set[int] = set()
    for agent in opponents:
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        if hasattr(agent, "seed"):
            agent.seed(int(rng.integers(2**31)))


def check_common(
    ruleset: Any, num_players: Any, seat: Any, reward: Any, episode: Any
) -> tuple[Ruleset, int, int | None]:
    """Validate the arguments every env takes; returns (ruleset, num_players, fixed seat or None)."""
    rules = check_ruleset(ruleset)
    n = check_num_players(num_players)
    fixed = check_seat(seat, n)
    check_choice("reward", reward, REWARDS)
    check_choice("episode", episode, EPISODES)
    return rules, n, fixed


#: resets tried by ``skip_no_decision=True`` before giving up (a decision comes in ~70% of resets)
MAX_SKIPS = 1000


#: the keys ``reset(options=...)`` of the Gymnasium envs reads (anything else is refused)
RESET_OPTIONS = ("seat",)


def seat_option(options: dict[str, Any], n: int) -> int | None:
    """The learner's seat from checked ``reset`` options (:func:`~zanzibar_env.core.checks.check_options`):
    ``None`` if not given, ``-1`` for ``"random"`` (drawn for this episode), else the seat."""
    if options.get("seat") is None:
        return None
    seat = check_seat(options["seat"], n)
    return -1 if seat is None else seat
