"""How much of each PPO step the gradient clip leaves: ``python -m experiments.grad_scale [--model ZIP]``.

SB3 clips the norm of the *whole* gradient (policy and value networks together) at ``max_grad_norm``.
With chip rewards the value loss's gradient can be much larger than the policy loss's, and then the
clip shrinks the policy's step too, although the two networks share no weights. This collects one
rollout of the config's training env (``--config``/``--set`` as in ``zanzibar_env.train.ppo``) with a fresh policy or
the weights of ``--model``, and prints, averaged over the rollout's minibatches, the gradient norm of
the policy term (clipped surrogate + entropy), of the value term (``vf_coef`` * MSE), of their sum, and
the factor the clip multiplies every step by (``min(1, max_grad_norm / norm)``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from zanzibar_env.train.config import TrainConfig, load_config
from zanzibar_env.train.ppo import make_env, make_model, seed_everything
from zanzibar_env.train.sb3 import build_opponents


def _norm(policy: Any, loss: torch.Tensor) -> float:
    policy.zero_grad()
    loss.backward(retain_graph=True)
    return float(torch.sqrt(sum((p.grad**2).sum() for p in policy.parameters() if p.grad is not None)))


def gradient_norms(cfg: TrainConfig, model_path: str | None = None, batches: int = 16) -> dict[str, float]:
    """Mean gradient norms over up to ``batches`` minibatches of one rollout (see the module docstring)."""
    from stable_baselines3.common.callbacks import ConvertCallback

    seed_everything(cfg.seed, cfg.torch_threads)
    opp = build_opponents(cfg, None)
    env = make_env(cfg, opp.opponents, opp.groups, opp.second)
    with tempfile.TemporaryDirectory() as tmp:
        model = make_model(cfg, env, Path(tmp))
    if model_path:
        model.set_parameters(model_path, exact_match=True, device=cfg.device)
    model._setup_learn(cfg.n_steps * cfg.num_envs, None)
    callback = ConvertCallback(None)
    callback.init_callback(model)
    model.collect_rollouts(env, callback, model.rollout_buffer, cfg.n_steps)
    pol, clip = model.policy, cfg.clip_range
    rows = []
    for data in model.rollout_buffer.get(cfg.batch_size):
        values, logp, ent = pol.evaluate_actions(
            data.observations, data.actions.long().flatten(), action_masks=data.action_masks
        )
        adv = (data.advantages - data.advantages.mean()) / (data.advantages.std() + 1e-8)
        ratio = torch.exp(logp - data.old_log_prob)
        surrogate = -torch.min(adv * ratio, adv * ratio.clamp(1 - clip, 1 + clip)).mean()
        pi_loss = surrogate - cfg.ent_coef * ent.mean()
        vf_loss = cfg.vf_coef * torch.nn.functional.mse_loss(data.returns, values.flatten())
        total = _norm(pol, pi_loss + vf_loss)
        rows.append((_norm(pol, pi_loss), _norm(pol, vf_loss), total, min(1.0, cfg.max_grad_norm / total)))
        if len(rows) >= batches:
            break
    env.close()
    pi, vf, total, factor = np.mean(rows, axis=0)
    return {"policy_norm": pi, "value_norm": vf, "total_norm": total, "clip_factor": factor}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.grad_scale", description=__doc__.splitlines()[0])
    ap.add_argument("--config", help="experiment YAML (default: configs/ppo_classic_2p.yaml)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--model", help="a model .zip of this config to take the weights from (default: fresh)")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config, args.overrides)
        if args.model and not Path(args.model).is_file():
            raise ValueError(f"--model {args.model!r}: no such file")
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = gradient_norms(cfg, args.model)
    print(f"weights: {args.model or 'fresh'}; vf_coef {cfg.vf_coef}, max_grad_norm {cfg.max_grad_norm}")
    print(
        f"gradient norm: policy term {out['policy_norm']:.3f}, value term {out['value_norm']:.3f}, "
        f"sum {out['total_norm']:.3f}; the clip scales each step by {out['clip_factor']:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
