"""Studies run on the library: each module is a command (``python -m experiments.NAME --help``) that prints
the figures a docs page quotes (``docs/game_learning.md``). Not part of the installed package."""
