"""Every generator of the hostile-input suite, from every ``tests/hostile_*.py`` module.

A module that adds a surface defines its generators (``(rng, scratch_dir, n) -> Iterator[Case]``) and is
listed here with one import; :mod:`tests.hostile.test_hostile` and :mod:`tests.hostile.hostile_report` read
:data:`GENERATORS` from this module.
"""

from __future__ import annotations

from .hostile_api import GENERATORS as _API
from .hostile_cases import GENERATORS as _BASE
from .hostile_faults import GENERATORS as _FAULTS
from .hostile_files import GENERATORS as _FILES
from .hostile_game import GENERATORS as _GAME
from .hostile_surfaces import GENERATORS as _SURFACES

GENERATORS = (*_BASE, *_API, *_GAME, *_FILES, *_FAULTS, *_SURFACES)
