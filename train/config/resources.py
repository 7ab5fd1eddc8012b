"""What a training run will ask of the machine, estimated from its config before anything starts.

:func:`memory_estimate` adds up the largest allocations of a PPO run (formulas in its docstring);
:func:`check_memory` refuses a config whose estimate is over the limit: ``max_memory_gb`` if the config
sets it, else half of this machine's physical memory. The error states the estimate, each term's
formula and the limit, and names the keys that lower it and the key that raises the limit.
"""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from zanzibar_env.core.observation import OBS_SIZE
from zanzibar_env.core.onehot import onehot_size, ruleset_dims
from zanzibar_env.core.rules import load_ruleset

if TYPE_CHECKING:
    from zanzibar_env.train.config.jax import JaxPPOConfig
    from zanzibar_env.train.config.training import TrainConfig

GIB = float(1 << 30)
NUM_ACTIONS = 8
#: float32 numbers the rollout buffer keeps per env step besides the observation: the action mask (8),
#: action, reward, return, episode start, value, log-probability and advantage (7)
STEP_EXTRA = NUM_ACTIONS + 7
FALLBACK_GIB = 8.0  #: the limit when the machine's memory cannot be read


def physical_memory_gib() -> float | None:
    """This machine's physical memory in GiB (``None`` where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GIB
    except (ValueError, OSError, AttributeError):
        return None


def memory_limit_gib(cfg: TrainConfig | JaxPPOConfig) -> tuple[float, str]:
    """The limit in GiB and where it comes from (for the error message)."""
    if cfg.max_memory_gb is not None:
        return float(cfg.max_memory_gb), "max_memory_gb"
    total = physical_memory_gib()
    if total is None:
        return FALLBACK_GIB, f"{FALLBACK_GIB:g} GiB (this machine's memory is unknown; max_memory_gb sets it)"
    return total / 2, f"half of this machine's {total:.1f} GiB (max_memory_gb sets another limit)"


def memory_estimate(cfg: TrainConfig | JaxPPOConfig, jax: bool = False) -> dict[str, float]:
    """Bytes of the three largest allocations of a run of ``cfg``:

    * ``rollout``: ``2 * n_steps * num_envs * (obs + 15) * 4``: SB3's rollout buffer (float32; the
      observation, the 8-wide action mask and 7 scalars per step), copied once when flattened for the
      minibatches;
    * ``network``: ``16 * params``: the policy and value MLPs (``net_arch`` each, from the input width:
      33, or the one-hot width with ``features: onehot``) with their gradients and Adam's two moments;
    * ``minibatch``: ``3 * 2 * batch_size * sum(net_arch) * 4``: the activations of both MLPs for one
      minibatch, kept for the backward pass, and their gradients.

    ``jax=True`` (the JAX PPO): its rollout stores the network's input (``in`` floats: 33, or the one-hot
    width) and 8 more words per step, ``2 * n_steps * num_envs * (in + 8) * 4`` (with the shuffled copy).
    """
    width = OBS_SIZE
    if cfg.features == "onehot":
        width = onehot_size(*ruleset_dims(load_ruleset(cfg.ruleset)))
    params = 0
    for out_size in (NUM_ACTIONS, 1):  # the policy head, the value head
        sizes = [width, *cfg.net_arch, out_size]
        params += sum(a * b + b for a, b in itertools.pairwise(sizes))
    per_step = (width + 8) if jax else (OBS_SIZE + STEP_EXTRA)
    return {
        "rollout": 2.0 * cfg.n_steps * cfg.num_envs * per_step * 4,
        "network": 16.0 * params,
        "minibatch": 3.0 * 2 * cfg.batch_size * sum(cfg.net_arch) * 4,
    }


def check_memory(cfg: TrainConfig | JaxPPOConfig, jax: bool = False) -> None:
    """``ValueError`` if :func:`memory_estimate` of ``cfg`` is over :func:`memory_limit_gib`."""
    parts = memory_estimate(cfg, jax)
    step = "(in+8)" if jax else f"({OBS_SIZE}+{STEP_EXTRA})"
    need = sum(parts.values()) / GIB
    limit, source = memory_limit_gib(cfg)
    if need <= limit:
        return
    shown = ", ".join(f"{k} {v / GIB:.3g} GiB" for k, v in parts.items())
    raise ValueError(
        f"config keys num_envs/n_steps/net_arch/batch_size: the run needs about {need:.3g} GiB ({shown}; "
        f"rollout = 2*n_steps*num_envs*{step}*4 B, network = 16 B per weight, "
        f"minibatch = 24*batch_size*sum(net_arch) B), over the limit of {limit:.3g} GiB ({source}); "
        "lower them, or raise max_memory_gb"
    )


def int_at_least(lo: int) -> Callable[[str], int]:
    """An argparse type: an integer >= ``lo`` (anything else is an ``ArgumentTypeError`` saying so)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {lo}, got {text!r}") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"expected an integer >= {lo}, got {value}")
        return value

    return parse


def positive_int(text: str) -> int:
    """An argparse type for CPU, job and worker counts: an integer >= 1 (0 CPUs would wait for ever)."""
    return _AT_LEAST_1(text)


_AT_LEAST_1 = int_at_least(1)
