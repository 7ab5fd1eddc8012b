"""``python -m zanzibar_env``: the ``zanzibar`` command (see :mod:`zanzibar_env.ui.cli`)."""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

from .ui.cli import main

raise SystemExit(main())
