"""Test-wide set-up: torch's CPU kernels pinned as every command pins them, before any test computes.

Commands call :func:`~zanzibar_env.train.results.repro.pin_cpu_kernels` in their ``main``; tests that
train or evaluate in this process compare against runs of those commands, so they pin the same way.
"""

from __future__ import annotations

from zanzibar_env.train.results.repro import pin_cpu_kernels

pin_cpu_kernels()
