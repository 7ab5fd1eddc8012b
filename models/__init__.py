"""The shipped trained models, installed as the package ``zanzibar_env.models`` (one copy, read in place).

``pyproject.toml`` maps this folder onto ``zanzibar_env.models`` as it does ``configs/``: a wheel carries
each model (``NAME.zip``) with its provenance (``NAME.json``: command, config, seed, commit, figures) and,
where training wrote one, its evaluation history (``NAME_eval.csv``). Load them by name through
:mod:`zanzibar_env.agents.pretrained` (``make_agent("ppo_classic_2p")``).
"""

from __future__ import annotations

from pathlib import Path

#: This folder: ``models/`` in a checkout, ``site-packages/zanzibar_env/models/`` in a wheel install.
MODEL_DIR = Path(__file__).resolve().parent
