"""The shipped YAML files, installed as the package ``zanzibar_env.configs`` (one copy, read in place).

``pyproject.toml`` maps this folder onto ``zanzibar_env.configs`` (``[tool.setuptools.package-dir]``),
so a wheel carries the rulesets (``rules/*.yaml``), the training configs (``ppo_*.yaml``) and the
RL Zoo hyper-parameters (``rl_zoo/*.yml``), and an editable install reads this very folder.
"""

from __future__ import annotations

from pathlib import Path

#: This folder: ``configs/`` in a checkout, ``site-packages/zanzibar_env/configs/`` in a wheel install.
CONFIG_DIR = Path(__file__).resolve().parent
#: The rulesets, one YAML file each (``load_ruleset("classic")`` reads ``rules/classic.yaml``).
RULES_DIR = CONFIG_DIR / "rules"
