"""Test-wide set-up: torch's CPU kernels pinned as every command pins them, before any test computes;
Ctrl-C not ignored.

Commands call :func:`~zanzibar_env.train.results.repro.pin_cpu_kernels` in their ``main``; tests that
train or evaluate in this process compare against runs of those commands, so they pin the same way.

A test run started in the background (``nohup``, ``make test &`` in a script) inherits SIGINT ignored,
and the commands leave an ignored SIGINT ignored (a background job stays so), so the tests that press
Ctrl-C on a command would see it ignored: the session takes Python's default handler back, and the
commands it starts begin with SIGINT at its default, as in a terminal.
"""

from __future__ import annotations

import signal

from zanzibar_env.train.results.repro import pin_cpu_kernels

pin_cpu_kernels()
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
