"""The human interfaces: terminal play, replay, pictures, narration and the ``zanzibar`` command.

They read the game through :mod:`zanzibar_env.core` (records, views and the round snapshot) and find
bots by name through :mod:`zanzibar_env.core.registry`; they never import the bots or training code.
"""
