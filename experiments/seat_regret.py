"""Where an agent's second-seat regret comes from: ``python -m experiments.seat_regret AGENT [--ruleset R]``.

In a 2-player round the second roller's decisions after the first roller's hand form a one-player
problem per public state ``P`` (the first roller's hand and the roll limit it set). The agent's *loss*
at ``P`` is the optimal second roller's value there minus the agent's (both exact,
:func:`zanzibar_env.agents.exact.solve_round`). The regret in the second seat is what a best-responding
first roller gains by steering to the ``P`` where that loss is large; the loss weighted by how often the
*optimal* first roller reaches each ``P`` is what the agent gives away against ``optimal``. Each ``P``'s
loss splits exactly over the second roller's decisions (the performance-difference identity): at each
``(roll r, dice m)``, the probability that the agent's own play arrives there times the gap between the
best action's value and the value of the agent's action (both with optimal play afterwards).

Prints the totals, the loss by roll limit and by roll, and the states that carry most of it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from zanzibar_env.agents.exact import agent_policy, decision_states, exploitability, solve_round
from zanzibar_env.agents.exact.round import Level, RoundSpec, position_turns
from zanzibar_env.agents.exact.turn import NUM_MULTISETS, backward
from zanzibar_env.core.engine import STOP
from zanzibar_env.core.hands import MULTISETS
from zanzibar_env.core.kernel import legal_mask, transition_probs
from zanzibar_env.core.registry import make_agent


def first_roller_reach(levels: list[Level]) -> np.ndarray:
    """``float[S_1]``: probability of each second-roller public state under the solved first roller."""
    lv, nxt1 = levels[0], levels[0].nxt
    assert lv.dist is not None and nxt1 is not None
    w = lv.dist if nxt1.shape[1] > 1 else lv.dist.sum(1, keepdims=True)
    ok = nxt1 >= 0
    return np.bincount(nxt1[ok], weights=w[ok], minlength=len(levels[1].keys))


def decision_gaps(
    spec: RoundSpec, levels: list[Level], probs: np.ndarray, q: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """``(reach, gap)``, each ``float[S_q, max_rolls - 1, 56]``: the probability that the agent's play
    (``probs``, its action probabilities in seat ``q``) arrives at roll ``r`` with dice ``m`` in public
    state ``s``, and the optimal value there minus the value of the agent's action (optimal play
    afterwards, the other seat's included)."""
    lv = levels[q]
    assert lv.nxt is not None
    tp = position_turns(spec, q, lv.keys, lv.nxt, levels[q + 1])
    us, _ = backward(tp)
    p, p3 = transition_probs()
    legal = legal_mask(spec.holds_allowed)
    n, rmax = len(lv.keys), spec.max_rolls
    reach, gap = np.zeros((n, rmax - 1, NUM_MULTISETS)), np.zeros((n, rmax - 1, NUM_MULTISETS))
    dist = np.tile(p3, (n, 1))
    for r in range(1, rmax):
        live = tp.limit > r
        if spec.instant_m is not None:
            dist[:, spec.instant_m] = 0.0
        qv = np.einsum("man,sn->sma", p, us[r + 1])  # each action's value, optimal play afterwards
        qv[:, :, STOP] = tp.stop_at(r)
        best = np.where(legal, qv, -np.inf).max(-1)
        pr = probs[:, r - 1]
        gap[:, r - 1] = np.where(live[:, None], best - (qv * pr).sum(-1), 0.0)
        reach[:, r - 1] = np.where(live[:, None], dist, 0.0)
        moved = np.einsum("sm,sma,man->sn", dist, pr[..., :7], p[:, :7, :])
        dist = np.where(live[:, None], moved, 0.0)
    return reach, gap


def seat_losses(agent: Any, ruleset: str = "classic") -> dict[str, Any]:
    """The arrays behind :func:`report`: ``loss`` (per second-roller public state), the first roller's
    reach of each (``reach_opt``, ``reach_br``: optimal, best response to the agent), the decision split
    of the second seat (``reach``, ``gap``) and of the first (``reach0``, ``gap0``), the solved ``opt``
    levels, the agent's policy ``pol`` and ``exploitability``."""
    ds = decision_states(ruleset)
    pol = agent_policy(make_agent(agent), ds)
    opt = solve_round(ruleset)
    vs_agent = solve_round(ruleset, fixed={1: pol[1]})  # the first roller best-responds
    reach, gap = decision_gaps(ds.spec, opt, pol[1])
    reach0, gap0 = decision_gaps(ds.spec, opt, pol[0], q=0)
    return {
        "spec": ds.spec, "opt": opt, "pol": pol, "loss": opt[1].value - vs_agent[1].value,
        "reach_opt": first_roller_reach(opt), "reach_br": first_roller_reach(vs_agent),
        "reach": reach, "gap": gap, "reach0": reach0, "gap0": gap0,
        "exploitability": exploitability(agent, ruleset),
    }  # fmt: skip


def report(agent: Any, ruleset: str, top: int = 15) -> str:
    d = seat_losses(agent, ruleset)
    spec, opt, pol, loss, ex = d["spec"], d["opt"], d["pol"], d["loss"], d["exploitability"]
    reach_opt, reach_br, reach, gap = d["reach_opt"], d["reach_br"], d["reach"], d["gap"]
    per_state = (reach * gap).sum((1, 2))
    lo, k, _, lim = spec.decode(opt[1].keys)
    lines = [
        f"regret seat 1 (exploitability): {ex['seat1']:.5f}; seat 0: {ex['seat0']:.5f}",
        f"  loss against the optimal first roller   sum_P p_opt(P) loss(P) = {reach_opt @ loss:.5f}",
        f"  loss where the best response goes      sum_P p_br(P)  loss(P) = {reach_br @ loss:.5f}",
        f"  (check: the decision split gives sum_P p_opt(P) loss(P) = {reach_opt @ per_state:.5f})",
        f"  public states: {len(loss)}, with loss > 1e-4: {(loss > 1e-4).sum()}, "
        f"reached by the optimal first roller (p > 1e-6): {(reach_opt > 1e-6).sum()}",
        "  by roll limit L: " + ", ".join(
            f"L={L}: p_opt {reach_opt[lim == L].sum():.3f} loss {reach_opt[lim == L] @ loss[lim == L]:.5f}"
            f" p_br {reach_br[lim == L].sum():.3f} loss {reach_br[lim == L] @ loss[lim == L]:.5f}"
            for L in np.unique(lim)
        ),
        "  by roll (opt-weighted): " + ", ".join(
            f"r={r + 1}: {(reach_opt[:, None] * reach[:, r] * gap[:, r]).sum():.5f}" for r in range(spec.max_rolls - 1)
        ),
        f"  top public states by p_br * loss (rank of the first hand: 0 = worst of {spec.num_ranks}):",
        f"  {'rank':>5} {'k':>2} {'L':>2} {'p_opt':>8} {'p_br':>8} {'loss':>8} {'V*':>8}",
    ]  # fmt: skip
    for i in np.argsort(-(reach_br * loss))[:top]:
        lines.append(
            f"  {lo[i]:>5} {k[i]:>2} {lim[i]:>2} {reach_opt[i]:>8.4f} {reach_br[i]:>8.4f} {loss[i]:>8.4f} "
            f"{opt[1].value[i]:>8.4f}"
        )
    w = reach_opt[:, None, None] * reach * gap
    lines.append("  top decisions by p_opt * reach * gap: rank L roll dice  weight  gap  agent/best action")
    q1 = opt[1].policy
    for flat in np.argsort(-w.ravel())[:top]:
        s, r, m = np.unravel_index(flat, w.shape)
        act = int(np.argmax(pol[1][s, r, m]))
        lines.append(
            f"  {lo[s]:>5} {lim[s]:>2} {r + 1:>2} {MULTISETS[m]} {w[s, r, m]:.6f} {gap[s, r, m]:.4f}"
            f" {act}/{int(q1[s, r, m])}"
        )
    g0 = d["gap0"][0]
    w0 = d["reach0"][0] * g0
    lines.append(
        f"seat 0: the decision split gives {w0.sum():.5f}; top decisions: roll dice weight gap agent/best"
    )
    for flat in np.argsort(-w0.ravel())[:top]:
        r, m = np.unravel_index(flat, w0.shape)
        act = int(np.argmax(pol[0][0, r, m]))
        lines.append(
            f"  {r + 1:>2} {MULTISETS[m]} {w0[r, m]:.6f} {g0[r, m]:.4f} {act}/{int(opt[0].policy[0, r, m])}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.seat_regret", description=__doc__.splitlines()[0]
    )
    ap.add_argument("agent", help="an agent name, e.g. jax_ppo:runs/<run>/policy.npz")
    ap.add_argument("--ruleset", default="classic")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args(argv)
    print(report(args.agent, args.ruleset, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
