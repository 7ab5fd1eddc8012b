"""The ``--config`` and ``--list-configs`` options every config-driven command shares.

``--config`` takes a YAML path or a shipped config's name (``ppo_game_2p``; resolved by
:func:`zanzibar_env.configs.resolve_config` from any directory); ``--list-configs`` prints the shipped
names a command takes and exits. :func:`config_in_argv` reads ``--config`` before the parser is built,
so that ``--help`` can show every key's value in the config that will run.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from zanzibar_env.configs import CONFIG_DIR, shipped_configs
from zanzibar_env.train.config.training import describe_fields


class _ListConfigs(argparse.Action):
    """``--list-configs``: print the shipped configs a command takes, one a line, and exit 0."""

    def __init__(self, option_strings: list[str], dest: str, prefix: str = "", **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.prefix = prefix

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
        names = shipped_configs(self.prefix)
        print(f"shipped configs ({CONFIG_DIR}); pass one as --config NAME:")
        print("\n".join(f"  {name}" for name in names))
        parser.exit(0)


def add_config_options(ap: argparse.ArgumentParser, prefix: str, default: str | None) -> None:
    """Add ``--config`` (a path or a shipped name; required when ``default`` is None) and ``--list-configs``.

    Args:
        ap: the command's parser.
        prefix: the shipped names the command takes (``"ppo_"``, ``"jax_ppo_"``, ``"sweep_"``).
        default: the shipped config used without ``--config`` (its name), or None if one must be named.
    """
    where = f"default: {default}" if default else "required"
    ap.add_argument(
        "--config",
        required=default is None,
        metavar="NAME|PATH",
        help=f"a shipped config by name ({prefix}*, see --list-configs) or a YAML file ({where})",
    )
    ap.add_argument(
        "--list-configs", action=_ListConfigs, prefix=prefix, help="print the shipped configs' names and exit"
    )


def config_in_argv(argv: Sequence[str]) -> str | None:
    """The last ``--config`` value of ``argv`` (``None`` if absent), read before the full parser exists."""
    found = None
    for k, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--config" and k + 1 < len(argv):
            found = argv[k + 1]
        elif arg.startswith("--config="):
            found = arg.partition("=")[2]
    return found


def keys_help(cls: type, load: Callable[[str | None], Any], argv: Sequence[str], default: str) -> str:
    """The ``--help`` epilog of config keys: each key's value in the config that will run.

    ``load(name_or_None)`` loads the config ``argv``'s ``--config`` names (``default`` without one); if it
    does not load, the keys show the built-in values and the epilog says why.
    """
    named = config_in_argv(argv)
    try:
        base, source = load(named), named or default
    except (ValueError, OSError) as e:
        base, source = cls(), f"the built-in values ({str(e)[:200]})"
    return f"config keys (YAML file or --set key=value), with their values in {source}:\n" + describe_fields(
        cls, base
    )


def config_parser(
    module: str,
    description: str,
    cls: type,
    load: Callable[[str | None], Any],
    default: str,
    prefix: str,
    argv: Sequence[str],
) -> argparse.ArgumentParser:
    """The parser of a command run from one config: ``--config``, ``--list-configs`` and ``--set``.

    Args:
        module: the command's module (its usage line: :func:`zanzibar_env.core.invocation.command_prog`).
        description: the command's one-line description.
        cls: its config dataclass; ``load`` loads a config by name or path (``None``: ``default``).
        default: the shipped config used without ``--config``; ``prefix``: the shipped names it takes.
        argv: the command line, read for ``--config`` so that ``--help`` shows that config's values.
    """
    from zanzibar_env.core.invocation import command_prog

    ap = argparse.ArgumentParser(
        prog=command_prog(module),
        description=description,
        epilog=keys_help(cls, load, argv, default),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_config_options(ap, prefix, default)
    ap.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config key (repeatable; the value is parsed as YAML)",
    )
    return ap
