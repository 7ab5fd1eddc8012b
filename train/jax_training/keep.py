"""What an interrupted JAX PPO run keeps, and how much room its outputs need (checked before training).

Ctrl-C or SIGTERM during training (:class:`zanzibar_env.train.jax_ppo.TrainingInterrupted`) keeps the
updates done: the policy after the last finished update is written to ``policy.npz`` (with ``eval.csv``
when an evaluation was made) and ``result.json`` says how far the run got (``"complete": false``), so
``jax_ppo:RUN/policy.npz`` plays what was trained. The command's last line says what was kept.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zanzibar_env.core.onehot import onehot_size, ruleset_dims
from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.core.safe_io import atomic_write_text

if TYPE_CHECKING:
    from zanzibar_env.train.config.jax import JaxPPOConfig


def policy_bytes(cfg: JaxPPOConfig) -> int:
    """Bytes of the float32 weights ``policy.npz`` will hold (the actor: input, ``net_arch``, 8 logits)."""
    width = 33 if cfg.features == "raw" else onehot_size(*ruleset_dims(load_ruleset(cfg.ruleset)))
    sizes = [width, *cfg.net_arch, 8]
    return 4 * sum(a * b + b for a, b in itertools.pairwise(sizes))


def keep_interrupted(stop: Any, run_dir: Path, save: Callable[[Any, list[dict[str, float]]], None]) -> str:
    """Write what ``stop`` (a ``TrainingInterrupted``) holds to ``run_dir``; returns one sentence saying
    what was kept (for the command's last line)."""
    if stop.params is None or stop.done == 0:
        return f"no update finished; {str(run_dir)!r} holds only the config"
    try:
        save(stop.params, stop.rows)
        result = {
            "complete": False,
            "updates": stop.done,
            "of_updates": stop.total,
            "run_dir": str(run_dir),
            "agent": f"jax_ppo:{run_dir / 'policy.npz'}",
        }
        atomic_write_text(run_dir / "result.json", json.dumps(result, indent=2) + "\n")
    except (OSError, ValueError) as e:
        return f"{stop.done} of {stop.total} updates done, but the policy could not be saved: {e}"
    return f"{stop.done} of {stop.total} updates done; policy after update {stop.done} saved to {run_dir}/policy.npz"
