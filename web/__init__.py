"""The browser arena, ``zanzibar serve`` (the ``[web]`` extra: Starlette and uvicorn).

A local web app to play any shipped ruleset against registered bots with the exact value of every hold
(:mod:`.hints`), replay saved games, watch a small tournament and ask the solved policy. Pages are
plain HTML, SVG (:mod:`zanzibar_env.ui.svg`) and a little JavaScript; nothing is built at install.

Installed as ``zanzibar_env.web`` (the repository's ``web/`` folder). It sits beside
``zanzibar_env.train``: it imports ``core``, ``ui`` and ``agents`` (the solved tables), and nothing
imports it but the ``zanzibar serve`` command, which names it as a string.
"""

import sys

if __name__ == "web":  # imported from a checkout under the short name: one package under both names
    import zanzibar_env.web as _installed

    sys.modules[__name__] = _installed
