"""Pictures in notebooks: the ``_repr_svg_`` of :class:`~zanzibar_env.core.view.View` and of the records.

The drawing lives in :mod:`zanzibar_env.ui.svg` (pure Python, no dependency). ``core`` imports no UI
module: the drawing module is named here as a string and imported only when a notebook asks for a
picture, as the registry names bots.
"""

from __future__ import annotations

import importlib

#: the module whose ``svg_of(obj)`` draws a View, a RoundRecord or a GameRecord
RENDERER = "zanzibar_env.ui.svg"


def svg_of(obj: object) -> str:
    """The SVG picture of ``obj`` (``ValueError`` if it cannot be drawn, e.g. a record that does not replay)."""
    draw = importlib.import_module(RENDERER).svg_of
    return str(draw(obj))
