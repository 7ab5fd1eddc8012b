"""RL Zoo on Zanzibar, with MaskablePPO: ``python -m train.rl_zoo --algo ppo_mask -n 1000000``.

rl_zoo3 (2.9) lists no maskable PPO among its algorithms, so ``python -m rl_zoo3.train --algo
ppo_mask`` is refused. This runs rl_zoo3's own ``train()`` after adding sb3-contrib's
``MaskablePPO`` to its table as ``ppo_mask`` (the masks come from the env's ``action_masks()``), with
two defaults: ``--gym-packages zanzibar_env`` and ``--conf-file`` the shipped
``configs/rl_zoo/<algo>.yml``. Every other option is rl_zoo3's (``--help``). Plain PPO needs no shim::

    python -m rl_zoo3.train --algo ppo --env ZanzibarRound-v1 --gym-packages zanzibar_env \\
        --conf-file configs/rl_zoo/ppo.yml
"""

from __future__ import annotations

if __name__ == "__main__":  # run as a command: Ctrl-C while it still imports exits 130 with one line
    from zanzibar_env.core.interrupts import install_startup_handler

    install_startup_handler()

import sys
from collections.abc import Sequence

from zanzibar_env.configs import CONFIG_DIR
from zanzibar_env.core.interrupts import run_command
from zanzibar_env.core.invocation import command_prog
from zanzibar_env.core.preflight import preflight
from zanzibar_env.train.results import pin_cpu_kernels


def zoo_args(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--env``, ``--gym-packages`` and ``--conf-file`` filled in when absent."""
    args = list(argv)
    if "--env" not in args:
        args += ["--env", "ZanzibarRound-v1"]
    if "--gym-packages" not in args:
        args += ["--gym-packages", "zanzibar_env"]
    if not {"--conf-file", "-conf", "-h", "--help"} & set(args):
        algo = args[args.index("--algo") + 1] if "--algo" in args[:-1] else "ppo"
        args += ["--conf-file", str(CONFIG_DIR / "rl_zoo" / f"{algo}.yml")]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run rl_zoo3's training with ``ppo_mask`` available; returns 0 (rl_zoo3 exits on bad options)."""
    pin_cpu_kernels()  # torch's CPU kernels, as every command's (zanzibar_env.train.results.repro)
    try:
        preflight("zoo")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import rl_zoo3.train
    from rl_zoo3.utils import ALGOS
    from sb3_contrib import MaskablePPO

    ALGOS.setdefault("ppo_mask", MaskablePPO)
    sys.argv = [command_prog("zanzibar_env.train.rl_zoo"), *zoo_args(sys.argv[1:] if argv is None else argv)]
    rl_zoo3.train.train()
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main, "zoo"))
