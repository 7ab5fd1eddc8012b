"""Training, evaluation and tournaments (SB3). Importing this package first pins torch's CPU kernels so
that runs are reproducible across machines (:mod:`train.repro`); it must happen before torch loads."""

from .repro import pin_cpu_kernels

#: Whether the pins were set before torch was imported (recorded in each run's ``environment.json``).
KERNELS_PINNED = pin_cpu_kernels()
