"""The ``zanzibar`` command: one entry point for every tool of the project.

``zanzibar COMMAND [OPTIONS]`` runs the module named below with the same options as
``python -m MODULE`` (``zanzibar COMMAND --help`` lists them)::

    zanzibar play --opponents optimal,greedy --hint      # zanzibar_env.ui.play
    zanzibar replay game.jsonl --step                    # zanzibar_env.ui.replay
    zanzibar render --out frame.png --seed 3             # zanzibar_env.ui.render
    zanzibar render --record game.jsonl --out game.svg   # zanzibar_env.ui.render_cli (SVG, GIF)
    zanzibar train --config ppo_game_2p --set seed=3    # zanzibar_env.train.ppo
    zanzibar evaluate models/ppo_classic_2p.zip          # zanzibar_env.train.evaluate
    zanzibar exact-eval --agent greedy                   # zanzibar_env.train.exact_eval
    zanzibar tournament --agents random,greedy,optimal   # zanzibar_env.train.tournament (--backend ray: on Ray)
    zanzibar sweep --config sweep_ppo_classic_2p        # zanzibar_env.train.sweep (Ray Tune)
    zanzibar solve --players 2 3 4                       # zanzibar_env.agents.exact.cli
    zanzibar zoo --algo ppo_mask -n 1000000              # zanzibar_env.train.rl_zoo (rl_zoo3's train)
    zanzibar serve --replays runs/                       # zanzibar_env.web.cli (the browser arena)
    zanzibar jax-train --config jax_ppo_classic_2p       # zanzibar_env.train.jax_ppo
    zanzibar jax-game --config jax_game_2p               # zanzibar_env.train.jax_game
    zanzibar seeds --seeds 0 1 2 --jobs 2                # zanzibar_env.train.seeds
    zanzibar game-curve runs/A runs/B                    # zanzibar_env.train.game_curve
    zanzibar rllib --config rllib_ppo_2p                 # zanzibar_env.train.rllib (the RLlib venv)
    zanzibar bench --seconds 1                           # zanzibar_env.train.bench

A command's usage line names the form that started it (``zanzibar train``, ``python -m
zanzibar_env.train.ppo`` or, from a checkout, ``python -m train.ppo``: :mod:`zanzibar_env.core.invocation`).

Commands are imported only when run (this package never imports ``agents`` or ``train`` at import
time), so a command whose extra is missing says which ``pip install`` brings it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..core.interrupts import install_startup_handler
from ..core.interrupts import run_command as _interruptible
from ..core.invocation import invoked_as, zanzibar_prog
from ..core.registry import load_object
from ..extras import MissingExtraError, requires_extra
from .table import printable

#: command -> (module whose ``main(argv)`` runs it, the extra it needs, one line of help)
COMMANDS: dict[str, tuple[str, str | None, str]] = {
    "play": ("zanzibar_env.ui.play", "ui", "play a game in the terminal against bots"),
    "replay": ("zanzibar_env.ui.replay", "ui", "step through saved games (JSON lines) and verify them"),
    "render": (
        "zanzibar_env.ui.render_cli",
        None,
        "draw a saved game (--record: SVG, GIF) or a fresh one (PNG)",
    ),
    "train": ("zanzibar_env.train.ppo", "train", "train a PPO agent from a YAML config"),
    "evaluate": (
        "zanzibar_env.train.evaluate",
        "train",
        "evaluate a saved model: exact figures and a tournament",
    ),
    "exact-eval": (
        "zanzibar_env.train.exact_eval",
        None,
        "exact 2-player values and exploitability of an agent",
    ),
    "tournament": (
        "zanzibar_env.train.tournament",
        "tournament",
        "play agents against each other, with ratings",
    ),
    "sweep": (
        "zanzibar_env.train.sweep",
        "ray",
        "tune zanzibar_env.train.ppo settings on Ray Tune (ASHA, exact exploitability)",
    ),
    "solve": (
        "zanzibar_env.agents.exact.cli",
        None,
        "solve rounds exactly and cache the tables of the optimal bot",
    ),
    "zoo": ("zanzibar_env.train.rl_zoo", "zoo", "train with RL Zoo (rl_zoo3), ppo_mask included"),
    "serve": (
        "zanzibar_env.web.cli",
        "web",
        "the arena in a web browser: play with exact hints, replays, tournaments",
    ),
    "jax-train": (
        "zanzibar_env.train.jax_ppo",
        "jax",
        "train PPO on the JAX env (rollout and update under jit)",
    ),
    "jax-game": (
        "zanzibar_env.train.jax_game",
        "jax",
        "learn the 2-player game from scratch (tabular self-play on the JAX env)",
    ),
    "seeds": ("zanzibar_env.train.seeds", "train", "a training config over seeds: IQM with a 95% interval"),
    "game-curve": (
        "zanzibar_env.train.game_curve",
        "train",
        "game-exploitability curves of runs, side by side",
    ),
    "rllib": ("zanzibar_env.train.rllib.ppo", "rllib", "self-play PPO on the PettingZoo env with RLlib"),
    "bench": ("zanzibar_env.train.bench", None, "the speed figures of the README, measured on this machine"),
}


#: command module -> its subcommand, for usage lines and messages (``zanzibar train``)
#: (a package command's usage names its package: ``python -m zanzibar_env.agents.exact``)
_SUBCOMMANDS = {module: name for name, (module, _extra, _text) in COMMANDS.items()} | {
    "zanzibar_env.agents.exact": "solve",
    "zanzibar_env.train.rllib": "rllib",
}


def build_parser() -> argparse.ArgumentParser:
    """The ``zanzibar`` parser: ``--version``, ``--help`` and the list of commands."""
    parser = argparse.ArgumentParser(
        prog=zanzibar_prog(),
        description="Zanzibar dice game: play, train, evaluate, solve.",
        epilog="Run 'zanzibar COMMAND --help' for the options of a command. Exit codes: 0 done, 1 a result "
        "not written (disk) or not reproduced, 2 bad input or a missing extra (refused before any work), "
        "130 Ctrl-C.",
    )
    parser.add_argument("--version", action="version", version=f"zanzibar-env {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_module, _extra, text) in COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False)
    return parser


def run_command(name: str, argv: Sequence[str]) -> int:
    """Import the command's module (lazily) and run its ``main(argv)``; returns the exit code."""
    module_name, extra, _text = COMMANDS[name]
    try:
        module = load_object(module_name, what=f"zanzibar {name}", extra=extra)
        with requires_extra(extra, f"zanzibar {name}"), invoked_as(zanzibar_prog(), _SUBCOMMANDS):
            code = module.main(list(argv))  # its imports inside: a missing extra names the pip install
    except (MissingExtraError, ValueError) as e:  # refused before any work (exit 2, as every command)
        print(printable(f"error: {e}"), file=sys.stderr)
        return 2
    return int(code or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``zanzibar`` console script."""
    install_startup_handler()  # until the command runs: Ctrl-C while it imports exits 130 with one line
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in COMMANDS:
        return _interruptible(lambda: run_command(args[0], args[1:]), args[0])
    build_parser().parse_args(args)  # --help, --version, or an error naming the commands
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
