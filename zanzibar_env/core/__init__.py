"""The pure game: rules, hands, dice, the round and game engines, records, the bot registry.

Imports neither gymnasium nor torch (``tests/package/test_layers.py`` checks it in a subprocess). Everything
else in the project translates what this package computes.
"""
