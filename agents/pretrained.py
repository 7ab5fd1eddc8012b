"""Trained baselines shipped inside the package, loaded by name: ``make_agent("ppo_classic_2p")``.

Each baseline is an SB3 model file in :data:`zanzibar_env.models.MODEL_DIR` with its provenance beside it
(:func:`provenance`: the command and config that trained it, the seed, the commit, the figures measured
on it). It loads through the project's safe loader (:func:`zanzibar_env.agents.ppo_agent.load_model`:
no unpickling) and plays greedily as a :class:`~zanzibar_env.agents.ppo_agent.PPOAgent`; playing needs
the ``[train]`` extra (torch). The names are registered agents, so they work wherever a bot name does
(``make_agent``, ``--agents``, env ``opponents``), and ``ppo:NAME`` finds them too.

========================  ====================================================================
name                      what it is
========================  ====================================================================
``ppo_classic_2p``        one round of classic, 2 players (the default config, seed 0): exact
                          exploitability 0.00132 chips per round, mean of the seats
``ppo_game_2p``           the whole 2-player classic game from 20-20 (imitation of
                          ``optimal_game``, then PPO): a best response gains 0.00126 of win probability
``ppo_classic_4p_game``   4-player classic games against ``greedy``, ``threshold``, ``escape``
``ppo_game_4p_teacher``   4-player classic games at the table ``random``, ``optimal``, ``random``,
                          where it beats ``optimal``
``jax_game_2p``           the whole 2-player classic game from 20-20, learned from scratch by
                          ``python -m train.jax_game`` (no solver knowledge): a best response gains
                          0.00180 of win probability (round-optimal play: 0.00276); a table of actions,
                          ``NAME.npz``, played by :class:`~zanzibar_env.agents.game_table_agent.GameTableAgent`
                          (numpy only, no torch)
========================  ====================================================================
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zanzibar_env.models import MODEL_DIR

#: The shipped baselines, in the order of the table above.
BASELINES = ("ppo_classic_2p", "ppo_game_2p", "ppo_classic_4p_game", "ppo_game_4p_teacher")


#: Shipped baselines that are game tables (``NAME.npz``), not SB3 models.
TABLE_BASELINES = ("jax_game_2p",)


def available() -> list[str]:
    """The names of the shipped SB3 baselines (the game tables: :data:`TABLE_BASELINES`)."""
    return list(BASELINES)


def table_path(name: str) -> Path:
    """The policy file of game-table baseline ``name`` (``ValueError`` naming them if there is none)."""
    if name not in TABLE_BASELINES:
        raise ValueError(f"no shipped game table {name!r}; the game tables are {', '.join(TABLE_BASELINES)}")
    return MODEL_DIR / f"{name}.npz"


def model_path(name: str) -> Path:
    """The model file of baseline ``name`` (``ValueError`` naming the baselines if there is none)."""
    if name not in BASELINES:
        raise ValueError(f"no shipped baseline {name!r}; the baselines are {', '.join(BASELINES)}")
    return MODEL_DIR / f"{name}.zip"


def provenance(name: str) -> dict[str, Any]:
    """What baseline ``name`` is: its ``NAME.json`` (command, config, seed, commit, measured figures)."""
    path = table_path(name) if name in TABLE_BASELINES else model_path(name)
    return json.loads(path.with_suffix(".json").read_text())


def load(name: str, seed: int | None = None) -> Any:
    """Baseline ``name`` as an agent (a :class:`~zanzibar_env.agents.ppo_agent.PPOAgent` named ``name``)."""
    from zanzibar_env.agents.ppo_agent import PPOAgent

    agent = PPOAgent(model_path(name), seed=seed)
    agent.name = name
    return agent


# The registry's factories (pyproject.toml, entry points "zanzibar_env.agents"): called as f(seed=...).
def ppo_classic_2p(seed: int | None = None) -> Any:
    """The shipped 2-player round model (see the module table)."""
    return load("ppo_classic_2p", seed)


def ppo_game_2p(seed: int | None = None) -> Any:
    """The shipped 2-player game model."""
    return load("ppo_game_2p", seed)


def ppo_classic_4p_game(seed: int | None = None) -> Any:
    """The shipped 4-player game model trained against the heuristic bots."""
    return load("ppo_classic_4p_game", seed)


def ppo_game_4p_teacher(seed: int | None = None) -> Any:
    """The shipped 4-player game model trained at the table random, optimal, random."""
    return load("ppo_game_4p_teacher", seed)


def jax_game_2p(seed: int | None = None) -> Any:
    """The shipped 2-player game table learned from scratch (see the module table)."""
    from zanzibar_env.agents.game_table_agent import GameTableAgent

    agent = GameTableAgent(table_path("jax_game_2p"), seed=seed)
    agent.name = "jax_game_2p"
    return agent
