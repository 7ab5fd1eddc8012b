"""Pgx's own checker, ``pgx.api_test``, on the JAX env: every check but the two that name Pgx's games.

Pgx's ``_validate_state`` also asserts that ``state.env_id`` is one of Pgx's own env ids (a closed
``Literal``, ``pgx.core.EnvId``) and that a state has no public field but Pgx's six; the Zanzibar state
keeps the table in public fields (``seat``, ``stacks``, ...; docs/jax.md). Those two asserts are left
out; the rest of ``_validate_state`` (the dtypes) and everything else of ``api_test`` run as Pgx wrote
them: ``env_id == env.id``, a legal move at ``init``, zero initial rewards, ``_step_count`` counting
every step, ``current_player >= 0``, an all-True mask once terminated, batched play under ``vmap`` and
``save_svg``.

Pgx 2.6's ``act_randomly`` (the random player of ``api_test``) draws along ``axis=1``, which JAX 0.10
refuses for the unbatched mask of ``api_test_single`` (Pgx's own ``tic_tac_toe`` fails the same way);
the test gives ``api_test`` the same draw along the last axis.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pgx = pytest.importorskip("pgx")
import jax.numpy as jnp  # noqa: E402
import pgx._src.api_test as pgx_api  # noqa: E402

from zanzibar_env.jax import Env  # noqa: E402


@pgx_api.jax.jit
def _act_randomly(rng: object, legal_action_mask: object) -> object:
    """Pgx's ``act_randomly`` along the last axis (batched or not)."""
    logits = jnp.log(legal_action_mask.astype(jnp.float32))  # type: ignore[attr-defined]
    return pgx_api.jax.random.categorical(rng, logits=logits, axis=-1)


def _validate_state_but_env_ids(state: object) -> None:
    """Pgx's ``_validate_state`` without ``env_id in EnvId`` and without the list of public fields."""
    assert state.current_player.dtype == jnp.int32  # type: ignore[attr-defined]
    assert state.terminated.dtype == jnp.bool_  # type: ignore[attr-defined]
    assert state.rewards.dtype == jnp.float32  # type: ignore[attr-defined]
    assert state.legal_action_mask.dtype == jnp.bool_  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_players=2, opponents="random"),
        pytest.param(dict(num_players=3, opponents="greedy"), marks=pytest.mark.slow),
        pytest.param(dict(num_players=2, opponents=None), marks=pytest.mark.slow),
    ],
)
def test_pgx_api_test(kwargs: dict, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    monkeypatch.setattr(pgx_api, "_validate_state", _validate_state_but_env_ids)
    monkeypatch.setattr(pgx_api, "act_randomly", _act_randomly)
    pgx.api_test(Env("classic", **kwargs), num=2)


def test_the_left_out_checks_fail_for_the_reasons_given() -> None:
    """If Pgx ever opens its id list, or the state loses its extra fields, this test says so."""
    state = Env("classic", num_players=2).init(pgx_api.jax.random.PRNGKey(0))
    with pytest.raises(AssertionError):
        pgx_api._validate_state(state)
    assert state.env_id not in pgx_api.get_args(pgx_api.EnvId)
    assert {"seat", "stacks"} <= {k for k in state.__dict__ if not k.startswith("_")}


def test_save_svg_draws_one_panel_per_table(tmp_path: Path) -> None:
    env = Env("classic", num_players=3, opponents=None)
    keys = pgx_api.jax.random.split(pgx_api.jax.random.PRNGKey(0), 2)
    state = pgx_api.jax.vmap(env.init)(keys)
    state.save_svg(str(tmp_path / "s.svg"))
    text = (tmp_path / "s.svg").read_text()
    assert text.startswith("<svg") and text.count("seat 2:") == 2
    assert int(np.asarray(state.stacks)[0, 0]) == 20 and ": 20" in state.to_svg()
