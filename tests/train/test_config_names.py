"""Shipped configs by name, from any directory; --list-configs; --help shows the values that will run."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from zanzibar_env.configs import CONFIG_DIR, resolve_config, shipped_configs
from zanzibar_env.train.config import load_config, load_jax_config, load_sweep
from zanzibar_env.train.ppo import parse_args


@pytest.mark.parametrize("given", ["ppo_game_2p", "ppo_game_2p.yaml", "configs/ppo_game_2p.yaml"])
def test_a_shipped_name_resolves_from_any_directory(
    given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_config(given) == CONFIG_DIR / "ppo_game_2p.yaml"
    assert load_config(given).total_timesteps == 500_000


def test_a_file_on_disk_wins_over_a_shipped_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "ppo_game_2p.yaml").write_text("defaults: null\ntotal_timesteps: 4096\n")
    assert load_config("configs/ppo_game_2p.yaml").total_timesteps == 4096


@pytest.mark.parametrize(
    ("load", "prefix"), [(load_config, "ppo_"), (load_jax_config, "jax_ppo_"), (load_sweep, "sweep_")]
)
def test_an_unknown_name_lists_the_shipped_ones(load, prefix: str, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="neither a file nor a shipped config") as e:
        load("ppo_gmae_2p")
    names = shipped_configs(prefix)
    assert names and all(n in str(e.value) for n in names)


def test_every_shipped_training_config_loads_by_name() -> None:
    for name in shipped_configs("ppo_"):
        load_config(name)
    for name in shipped_configs("jax_ppo_"):
        load_jax_config(name)
    for name in shipped_configs("sweep_"):
        load_sweep(name)


def _help(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stop:
        parse_args(argv)
    assert stop.value.code == 0
    return out.getvalue()


def test_list_configs_prints_the_shipped_names() -> None:
    text = _help(["--list-configs"])
    assert all(f"  {name}\n" in text for name in shipped_configs("ppo_"))


def test_help_shows_the_values_of_the_config_that_will_run() -> None:
    default = load_config().total_timesteps
    assert default != 200_000  # the dataclass default, not what the default config trains
    assert f"[value: {default!r}]" in _help(["--help"])
    assert "[value: 500000]" in _help(["--config", "ppo_game_2p", "--help"])
