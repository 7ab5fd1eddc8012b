"""Training, evaluation and tournaments (SB3), installed as ``zanzibar_env.train``.

Importing this package first pins torch's CPU kernels so that runs are reproducible across machines
(:mod:`zanzibar_env.train.repro`); it must happen before torch loads. From a checkout, ``python -m
train.ppo`` imports this folder as ``train``: it then stands aside for ``zanzibar_env.train`` so that
every module is loaded once, under its installed name.
"""

import sys

if __name__ == "train":  # `python -m train.X` from a checkout: one package under both names
    import zanzibar_env.train as _installed

    sys.modules[__name__] = _installed
else:
    from zanzibar_env.train.repro import pin_cpu_kernels

    #: Whether the pins were set before torch was imported (recorded in each run's ``environment.json``).
    KERNELS_PINNED = pin_cpu_kernels()
