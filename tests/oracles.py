"""Test oracles written independently of the rules kernel (straight from RULES.md and the docs)."""

from __future__ import annotations

import numpy as np

from zanzibar_env.core.engine import View


def reference_obs(view: View) -> np.ndarray:
    """The observation of one view, slot by slot as documented in ``observation.Encoder`` (float64 maths,
    one rounding to float32 at the end)."""
    r = view.ruleset
    top = max(r.table.num_ranks - 1, 1)
    rank = view.turn_best_rank if view.turn_best_rank >= 0 else r.table.score(view.dice).rank
    lo = view.lowest.rank if view.lowest is not None else None
    hi = view.highest.rank if view.highest is not None else None
    o = [d / 6.0 for d in view.dice] + [rank / top]
    mr = r.max_rolls
    o += [view.rolls_used / mr, view.roll_limit / mr, (view.roll_limit - view.rolls_used) / mr]
    o += [float(view.is_first), view.players_after / 7, float(lo is not None)]
    o += [lo / top if lo is not None else 0.0, view.lowest_count / 7, hi / top if hi is not None else 0.0]
    o += [
        float(np.sign(rank - lo)) if lo is not None else 0.0,
        float(np.sign(rank - hi)) if hi is not None else 0.0,
    ]
    o += [view.earlier_payments / 28]
    pad = [0.0] * (8 - view.num_players)
    o += [s / r.stack_scale for s in view.stacks] + pad + [float(a) for a in view.active] + pad
    o += [view.num_players / 8]
    return np.array(o, np.float64).astype(np.float32)
