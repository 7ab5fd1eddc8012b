"""``python -m zanzibar_env``: the ``zanzibar`` command (see :mod:`zanzibar_env.ui.cli`)."""

from __future__ import annotations

from .ui.cli import main

raise SystemExit(main())
