"""A fixture keeping solved tables out of the home directory: ``from .cache import isolated_cache``
in a test module applies it to that module (autouse, one temporary cache per module)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="module")
def isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Point ``ZANZIBAR_CACHE_DIR`` at a fresh temporary directory for the module's tests."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ZANZIBAR_CACHE_DIR", str(tmp_path_factory.mktemp("zanzibar_cache")))
        yield
