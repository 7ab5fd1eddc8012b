"""Command-line helpers shared by the tests that run the training scripts."""

from __future__ import annotations


def set_args(items: list[str]) -> list[str]:
    """``["a=1", "b=2"]`` -> ``["--set", "a=1", "--set", "b=2"]`` (config overrides for ``train.*``)."""
    return [a for item in items for a in ("--set", item)]
