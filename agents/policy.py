"""Any callable policy as an agent: a CleanRL torch network, a numpy function, a JAX function.

:class:`PolicyAgent` turns ``policy(obs) -> actions or scores`` into an agent that plays in the envs
(as an opponent), in tournaments, in the terminal game and in exact evaluation. The policy sees the
same observations as the env (``float32[B, 33]``, :func:`zanzibar_env.core.observation.encode_batch`;
pass ``encoder=`` for another encoding) and answers for the whole batch at once::

    import torch
    from zanzibar_env.agents.policy import PolicyAgent
    from zanzibar_env.agents.exact import exploitability

    net = torch.nn.Sequential(torch.nn.Linear(33, 64), torch.nn.Tanh(), torch.nn.Linear(64, 8))
    agent = PolicyAgent(net, output="logits")                 # greedy over the legal actions
    exploitability(agent, "classic")["average"]             # exact, in one batched query

    stop_at_once = PolicyAgent(lambda obs: np.full(len(obs), 7))   # a numpy function of the batch
    run_tournament([stop_at_once, "greedy", "escape"], players=3, games=300)

``output`` says what the policy returns:

* ``"actions"`` (default): ``int[B]`` hold masks 0-7; an illegal one raises ``ValueError``;
* ``"logits"``: ``float[B, 8]`` scores; illegal actions are masked out, then the best is taken, or with
  ``sample=True`` one is drawn from their softmax;
* ``"probs"``: ``float[B, 8]`` probabilities; illegal actions are masked out, then the most likely is
  taken, or with ``sample=True`` one is drawn from the rest renormalised.

Exact evaluation (:mod:`zanzibar_env.agents.exact`) reads :meth:`PolicyAgent.action_probs_batch`, so a sampling
policy is evaluated exactly, not by simulation.

A ``torch.nn.Module`` is called on a tensor under ``torch.no_grad()``; a tensor it returns is read
back with ``.detach().cpu().numpy()``. For a CleanRL ``Agent`` pass its actor (``agent.actor``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from zanzibar_env.core.bots import BaseAgent, batch_random
from zanzibar_env.core.engine import STOP, View
from zanzibar_env.core.observation import ViewBatch, encode_batch
from zanzibar_env.extras import requires_extra

OUTPUTS = ("actions", "logits", "probs")


def legal_actions(holds_allowed: bool) -> np.ndarray:
    """``bool[8]``: all hold masks, or only 0 (re-throw all) and 7 (stop) when holds are not allowed."""
    legal = np.ones(STOP + 1, bool)
    if not holds_allowed:
        legal[1:STOP] = False
    return legal


def _to_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu().numpy()
    return np.asarray(x)


class PolicyAgent(BaseAgent):
    """An agent that asks ``policy(obs)`` for a batch of observations (see the module doc)."""

    def __init__(
        self,
        policy: Callable[[Any], Any],
        *,
        output: str = "actions",
        sample: bool = False,
        encoder: Callable[[ViewBatch], np.ndarray] = encode_batch,
        name: str = "policy",
        seed: int | None = None,
    ) -> None:
        if not callable(policy):
            raise ValueError(f"policy must be callable (obs -> actions or scores), got {policy!r}")
        if output not in OUTPUTS:
            raise ValueError(f"output must be one of {list(OUTPUTS)}, got {output!r}")
        if sample and output == "actions":
            raise ValueError("sample=True needs output 'logits' or 'probs'")
        self.policy, self.output, self.sample, self.encoder, self.name = policy, output, sample, encoder, name
        self._torch = hasattr(policy, "parameters") and hasattr(policy, "forward")  # a torch.nn.Module
        self.seed(seed)

    @property
    def stochastic(self) -> bool:
        """Whether the agent draws its actions (``sample=True``): tournaments then give each game its own
        copy, reseeded, instead of one batch over games (:mod:`zanzibar_env.train.tournament.lockstep`)."""
        return self.sample

    def seed(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def _call(self, obs: np.ndarray) -> np.ndarray:
        if not self._torch:
            return _to_numpy(self.policy(obs))
        with requires_extra("train", "a torch policy"):
            import torch
        with torch.no_grad():
            return _to_numpy(self.policy(torch.as_tensor(obs)))

    def action_probs_batch(self, batch: ViewBatch) -> np.ndarray:
        """``float[B, 8]``: the probability of each action on each row (exact evaluation reads these)."""
        n, legal = len(batch), legal_actions(batch.ruleset.holds_allowed)
        out = self._call(self.encoder(batch))
        if self.output == "actions":
            acts = out.astype(np.int64).reshape(-1)
            if acts.shape != (n,) or acts.min(initial=0) < 0 or acts.max(initial=0) > STOP:
                raise ValueError(f"{self.name}: the policy returned {out.shape} actions, not {n} ints 0-7")
            if not legal[acts].all():
                raise ValueError(f"{self.name}: the policy chose an illegal hold mask (legal: 0 and 7)")
            return np.eye(STOP + 1)[acts]
        if out.shape != (n, STOP + 1):
            raise ValueError(
                f"{self.name}: the policy returned shape {out.shape}, not ({n}, 8) {self.output}"
            )
        scores = out.astype(np.float64)
        if self.output == "probs":
            weights = np.where(legal, np.clip(scores, 0.0, None), 0.0)
        else:
            z = np.where(legal, scores, -np.inf)
            weights = np.exp(z - z.max(1, keepdims=True))
        total = weights.sum(1, keepdims=True)
        if (total <= 0).any() or not np.isfinite(total).all():
            raise ValueError(f"{self.name}: the policy gave no legal action a positive, finite weight")
        if not self.sample:
            return np.eye(STOP + 1)[weights.argmax(1)]
        return weights / total

    def act_batch(self, batch: ViewBatch) -> np.ndarray:
        probs = self.action_probs_batch(batch)
        if not self.sample:
            return probs.argmax(1)
        cum = probs.cumsum(1)
        draws = batch_random(batch, self.rng)[:, None] * cum[:, -1:]  # per-env streams in the vector env
        return np.minimum((draws >= cum).sum(1), STOP)

    def act(self, view: View) -> int:
        return int(self.act_batch(ViewBatch.from_views([view]))[0])
