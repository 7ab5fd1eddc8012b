"""Hostile resource requests and config combinations for :mod:`tests.hostile.hostile` (listed in
:mod:`tests.hostile.hostile_files`): memory, exact-analysis sizes and CPU counts must be refused before any work,
and config combinations the trainer used to refuse only after making its run directory must be refused
by the config check."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .hostile import Case, main_of
from .hostile_cases import ROOT, _sane_config

FAST = 10.0  # seconds: over-sized requests must be refused within this


def _config(*overrides: str, base: Path | None = None) -> Any:
    from zanzibar_env.train.config.training import load_config

    return load_config(base, overrides=list(overrides))


def _plain_base(tmp: Path) -> Path:
    """A small config without the default's exploiters, seat split or expected reward."""
    path = tmp / "plain.yaml"
    path.write_text(
        f"defaults: {ROOT / 'configs' / 'ppo_defaults.yaml'}\nnum_envs: 16\nn_steps: 64\nbatch_size: 64\n"
        "total_timesteps: 64\neval_freq: 0\neval_games: 2\neval_bots: [random]\neval_exact: false\n"
        "progress_bar: false\ntensorboard: false\n"
    )
    return path


#: Config combinations the trainer refused only after making the run directory (True: must be refused
#: by the config check), and neighbours that are valid (False).
CROSS_KEY: list[tuple[tuple[str, ...], bool]] = [
    (("num_players=3", "eval_bots=[optimal_game]"), True),
    (("num_players=3", "opponents=[optimal_game]"), True),
    (("num_players=4", "opponents=[optimal_game, random, random]"), True),
    (("num_players=3", "second_seat_frac=0.5", "second_seat_opponents=[optimal_game]"), True),
    (("self_play=true", "opponents=[]"), True),
    (("opponents=[random, greedy, escape]", "num_envs=2"), True),
    (("exploiter_frac=0.5", "num_envs=4"), True),
    (("second_seat_frac=0.5", "second_seat_opponents=[random, greedy, escape]", "num_envs=4"), True),
    (("num_players=2", "eval_bots=[optimal_game]"), False),
    (("num_players=3", "opponents=[random, greedy]", "num_envs=1"), False),
    (("self_play=true", "opponents=[random]", "num_envs=2"), False),
    (("exploiter_frac=0.5", "num_envs=8"), False),
]


def limits_cases(rng: np.random.Generator, tmp: Path, n: int) -> Iterator[Case]:
    """Memory, exact-analysis sizes and CPU counts checked before any work; config combinations the
    trainer would refuse later, refused by the config check (before a run directory exists)."""
    import zanzibar_env.train.exact_eval  # the commands' imports, outside the timed cases
    import zanzibar_env.train.ppo
    import zanzibar_env.train.tournament  # noqa: F401

    base = _plain_base(tmp)
    over_memory = [
        ("num_envs=65536", "n_steps=1048576"),
        ("net_arch=[65536,65536,65536]",),
        ("num_envs=65536", "n_steps=65536", "batch_size=1024"),
        ("num_envs=64", "max_memory_gb=0.001"),
    ]
    for sets in over_memory:
        yield Case(f"config memory {' '.join(sets)}", lambda s=sets: _config(*s), timeout=FAST)
    yield Case(
        "config memory limit raised",
        lambda: _config("net_arch=[4096, 4096]", "max_memory_gb=1000", base=base),
        bad=False,
        valid=_sane_config,
    )
    for sets, bad in CROSS_KEY:
        yield Case(
            f"config cross-key {' '.join(sets)}",
            lambda s=sets: _config(*s, base=base),
            bad=bad,
            valid=_sane_config,
            timeout=FAST * 3,
        )
    runs = tmp / "runs"
    for sets in [s for s, bad in CROSS_KEY if bad] + over_memory[:2]:
        argv = ["--config", str(base), *(a for s in sets for a in ("--set", s)), "--set", f"runs_dir={runs}"]
        yield Case(
            f"train.ppo {' '.join(sets)}",
            lambda a=argv: main_of("train.ppo")(a),
            after=lambda: f"made {runs}" if runs.exists() else None,
            timeout=FAST * 3,
        )
    for stacks in ("1,999", "999,999", "500,500", "1,1500", "0,5", "x,3"):
        argv = ["--game", "--agent", "greedy", "--stacks", stacks]
        yield Case(
            f"exact-eval --stacks {stacks}", lambda a=argv: main_of("train.exact_eval")(a), timeout=FAST
        )
    for cpus in ("0", "-1"):
        argv = ["--agents", "random,greedy", "--games", "2", "--jobs", cpus, "--no-progress"]
        yield Case(f"tournament --jobs {cpus}", lambda a=argv: main_of("train.tournament")(a), timeout=FAST)
    yield from _limit_mutations(rng, n)


def _limit_mutations(rng: np.random.Generator, n: int) -> Iterator[Case]:
    """Random sizes: far over any machine's memory must be refused, small ones accepted."""
    for k in range(n):
        if k % 2:
            hidden = f"net_arch=[{int(rng.integers(1, 256))}, {int(rng.integers(1, 256))}]"
            sets = (f"num_envs={int(rng.integers(1, 64))}", f"n_steps={int(rng.integers(16, 256))}", hidden)
            sets = (*sets, "batch_size=16")
            yield Case(f"config small {sets}", lambda s=sets: _config(*s), bad=False, valid=_sane_config)
        else:
            big = int(rng.integers(2**14, 2**16 + 1))
            sets = (f"num_envs={big}", f"n_steps={int(rng.integers(2**16, 2**20 + 1))}")
            if rng.integers(2):
                sets = (f"net_arch=[{big}, {big}, {big}, {big}]",)
            yield Case(f"config huge {sets}", lambda s=sets: _config(*s), timeout=FAST)
