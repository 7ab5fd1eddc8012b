"""Old names kept for one release: each warns (``DeprecationWarning``) and forwards to its new name.

Every alias in the library calls :func:`warn_renamed`, so the next release removes them by deleting
its callers. The renames: a state's transition is ``apply`` (``RoundState.act``, ``GameState.act`` and
``RoundMachine.act`` were its old names; ``act(view)`` is the agent's word); the JAX env's engine is
``Env.games`` (a ``JaxGames``, once ``Env.core``).
"""

from __future__ import annotations

import warnings


def warn_renamed(old: str, new: str) -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (pointing at the caller of the alias)."""
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}",
        DeprecationWarning,
        stacklevel=3,
    )
