"""The shipped YAML files, installed as the package ``zanzibar_env.configs`` (one copy, read in place).

``zanzibar_env/configs`` is a link to the repository's ``configs/`` folder, so a wheel carries the
rulesets (``rules/*.yaml``), the training configs (``ppo_*.yaml``, ``jax_ppo_*``, ``sweep_*``,
``rllib_*``) and the RL Zoo hyper-parameters (``rl_zoo/*.yml``), and a checkout reads this very folder.
Every command's ``--config`` goes through :func:`resolve_config`, so a shipped config is named by its
name from any directory (``--config ppo_game_2p``); ``--list-configs`` prints :func:`shipped_configs`.
"""

from __future__ import annotations

from pathlib import Path

#: This folder: ``configs/`` in a checkout, ``site-packages/zanzibar_env/configs/`` in a wheel install.
CONFIG_DIR = Path(__file__).resolve().parent
#: The rulesets, one YAML file each (``load_ruleset("classic")`` reads ``rules/classic.yaml``).
RULES_DIR = CONFIG_DIR / "rules"


def shipped_configs(prefix: str = "") -> list[str]:
    """The names of the shipped configs (``ppo_game_2p``, ...) starting with ``prefix``, sorted."""
    return sorted(p.stem for p in CONFIG_DIR.glob(f"{prefix}*.yaml") if p.is_file())


def resolve_config(config: str | Path, prefix: str = "") -> Path:
    """The file a ``--config`` value names: a file on disk as given, else a shipped config by name.

    ``ppo_game_2p``, ``ppo_game_2p.yaml`` and ``configs/ppo_game_2p.yaml`` (when no such file is on disk)
    all name ``CONFIG_DIR / "ppo_game_2p.yaml"``, from any directory.

    Args:
        config: a path or a shipped config's name.
        prefix: the names a command takes (``"ppo_"``, ``"sweep_"``): listed when ``config`` names nothing.

    Raises:
        ValueError: ``config`` is neither a file nor a shipped name; the message lists the shipped names.
    """
    path = Path(config)
    if path.is_file():
        return path
    text = str(config)
    name = Path(text.removeprefix("configs/")).name if text.startswith("configs/") else text
    name = name.removesuffix(".yaml").removesuffix(".yml")
    if name and "/" not in name and "\\" not in name and (CONFIG_DIR / f"{name}.yaml").is_file():
        return CONFIG_DIR / f"{name}.yaml"
    raise ValueError(
        f"config {text[:200]!r} is neither a file nor a shipped config; shipped: "
        f"{', '.join(shipped_configs(prefix)) or '(none)'}"
    )
