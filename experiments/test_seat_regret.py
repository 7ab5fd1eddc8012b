"""experiments/seat_regret.py: the decision split adds up to the exact losses, and optimal play loses nothing."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.seat_regret import report, seat_losses


@pytest.mark.parametrize("agent", ["greedy", "optimal"])
def test_decision_split_adds_up_to_the_losses(agent):
    d = seat_losses(agent, "classic")
    ex, loss = d["exploitability"], d["loss"]
    per_state = (d["reach"] * d["gap"]).sum((1, 2))
    np.testing.assert_allclose(per_state, loss, atol=1e-9)  # the performance-difference identity, per state
    # the first seat's regret is its loss against the optimal second roller (who moves last)
    assert (d["reach0"] * d["gap0"]).sum() == pytest.approx(ex["seat0"], abs=1e-9)
    # the best response gains at least the loss at the optimal first roller's states, at most where it goes
    assert d["reach_opt"] @ loss - 1e-9 <= ex["seat1"] <= d["reach_br"] @ loss + 1e-9
    if agent == "optimal":
        assert np.abs(loss).max() < 1e-9 and ex["seat1"] == pytest.approx(0, abs=1e-9)
    else:
        assert ex["seat1"] > 0.01
    assert "regret seat 1" in report(agent, "classic", top=3)
