"""Training configuration: a typed dataclass loaded from YAML in ``configs/`` (RL Zoo conventions).

One YAML file per experiment; a file may name a ``defaults:`` file (relative to itself) whose keys it
overrides, so shared values live once in ``configs/ppo_defaults.yaml``. Numbers may be written
``!!float 3e-4``. Single keys are overridden from the command line with ``--set key=value`` (the value
is parsed as a YAML scalar). Unknown keys and bad values raise ``ValueError`` naming the key and what
is allowed. Every field carries a one-line description (``--help`` lists them).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from zanzibar_env.configs import CONFIG_DIR  # configs/, shipped as package data
from zanzibar_env.core.rules import load_ruleset

DEFAULT_CONFIG = CONFIG_DIR / "ppo_classic_2p.yaml"

#: keys whose values must come from a fixed set
CHOICES: dict[str, tuple[Any, ...]] = {
    "env_id": ("ZanzibarRound-v0", "Zanzibar-v0"),
    "reward": ("chips", "win"),
    "algo": ("maskable_ppo", "ppo"),
    "device": ("cpu", "cuda", "auto"),
    "lr_schedule": ("constant", "linear"),
    "ent_schedule": ("constant", "linear"),
    "activation": ("tanh", "relu"),
    "features": ("onehot", "raw"),
}


def _f(default: Any, help: str) -> Any:
    """A dataclass field with a default and a one-line description (``metadata["help"]``)."""
    return field(default=default, metadata={"help": help})


@dataclass
class TrainConfig:
    """Everything one PPO run needs; the resolved copy is saved as ``config.yaml`` in the run directory."""

    # --- environment
    env_id: str = _f("ZanzibarRound-v0", "registered env: one round per episode or a full game")
    ruleset: str = _f("classic", "ruleset name from configs/rules/ (or a path to a ruleset YAML)")
    num_players: int = _f(2, "players at the table, 2-8")
    opponents: list[str] = field(
        default_factory=lambda: ["optimal"],
        metadata={"help": "opponents (bot names or 'ppo:PATH'): one for all seats, one per seat, or groups"},
    )
    seat: str | int = _f("random", "the learner's seat: an integer or 'random' (per episode)")
    reward: str = _f("chips", "reward: 'chips' (chip/life change) or 'win' (+1/-1 at game end)")
    max_rounds: int | None = _f(None, "truncate a full game after this many rounds (null = ruleset's)")
    num_envs: int = _f(64, "parallel environments in the batched vector env")
    # --- self-play
    self_play: bool = _f(False, "add a pool of the learner's own past checkpoints to the opponents")
    self_play_pool: int = _f(5, "most recent checkpoints kept in the self-play pool")
    self_play_freq: int = _f(50_000, "env steps between checkpoints added to the self-play pool")
    self_play_prob: float = _f(0.5, "chance an episode's opponents come from the pool, not fixed bots")
    # --- exploiters (2 players)
    exploiter_frac: float = _f(0.0, "share of envs whose opponent is the exact best response to the learner")
    exploiter_freq: int = _f(50_000, "env steps between recomputations of the exploiter's best responses")
    # --- PPO
    algo: str = _f("maskable_ppo", "'maskable_ppo' (sb3-contrib, masks illegal holds) or plain 'ppo'")
    total_timesteps: int = _f(200_000, "environment steps (learner decisions) to train for")
    seed: int = _f(0, "one seed for numpy, torch, the envs and the opponents")
    learning_rate: float = _f(3e-4, "Adam step size")
    lr_schedule: str = _f("constant", "learning-rate schedule: 'constant' or 'linear' decay to 0")
    n_steps: int = _f(128, "steps per env per rollout (rollout = n_steps * num_envs)")
    batch_size: int = _f(1024, "minibatch size for each gradient step")
    n_epochs: int = _f(4, "passes over each rollout")
    gamma: float = _f(1.0, "discount factor")
    gae_lambda: float = _f(0.95, "GAE lambda")
    clip_range: float = _f(0.2, "PPO clipping parameter")
    ent_coef: float = _f(0.0, "entropy bonus coefficient (the start value with a linear schedule)")
    ent_schedule: str = _f("constant", "entropy-coefficient schedule: 'constant' or 'linear' decay to 0")
    vf_coef: float = _f(0.5, "value-loss coefficient")
    max_grad_norm: float = _f(0.5, "gradient-norm clip")
    net_arch: list[int] = field(
        default_factory=lambda: [64, 64], metadata={"help": "hidden layer sizes of the policy and value MLPs"}
    )
    activation: str = _f("tanh", "hidden activation: 'tanh' or 'relu'")
    features: str = _f("raw", "policy input: 'raw' observation or 'onehot' (plus one-hot dice/ranks)")
    # --- evaluation
    eval_freq: int = _f(50_000, "env steps between evaluations (0 = only at the end)")
    eval_games: int = _f(200, "episodes against each baseline bot per evaluation")
    eval_bots: list[str] = field(
        default_factory=lambda: ["random", "greedy", "threshold", "escape", "optimal"],
        metadata={"help": "baseline bots evaluated against (names missing from the registry are skipped)"},
    )
    eval_exact: bool = _f(True, "exact exploitability per seat at each evaluation (2-player only)")
    # --- bookkeeping
    exp_name: str = _f("ppo_classic_2p", "experiment name used in the run directory")
    runs_dir: str = _f("runs", "parent directory of run directories")
    device: str = _f("cpu", "torch device")
    torch_threads: int = _f(1, "torch.set_num_threads (1 = deterministic and fast for small MLPs)")
    progress_bar: bool = _f(True, "show a tqdm/rich progress bar while training")
    tensorboard: bool = _f(True, "write TensorBoard logs to the run directory")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def run_name_prefix(self) -> str:
        return f"{self.env_id}__{self.exp_name}__{self.seed}"


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def describe_fields() -> str:
    """One line per config key: name, default and description (the ``--help`` epilog)."""
    base = TrainConfig()
    lines = []
    for name, f in FIELDS.items():
        choice = f" {{{', '.join(map(str, CHOICES[name]))}}}" if name in CHOICES else ""
        lines.append(f"  {name:<16} {f.metadata['help']}{choice} [default: {getattr(base, name)!r}]")
    return "\n".join(lines)


def _bad(key: str, value: Any, allowed: str) -> ValueError:
    return ValueError(f"config key {key!r}: bad value {value!r}; allowed: {allowed}")


def _coerce(key: str, value: Any) -> Any:
    """Check and convert one value for ``key`` (YAML gives '3e-4' as a string: that becomes a float)."""
    default = getattr(TrainConfig(), key)
    if key in CHOICES:
        if value not in CHOICES[key]:
            raise _bad(key, value, f"one of {list(CHOICES[key])}")
        return value
    if key == "seat":
        if value == "random" or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
            return value
        raise _bad(key, value, "'random' or a seat number >= 0")
    if key == "max_rounds":
        return None if value is None else _coerce_int(key, value, 1)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise _bad(key, value, "true or false")
        return value
    if isinstance(default, int):
        return _coerce_int(key, value, 0 if key in ("eval_freq", "seed") else 1)
    if isinstance(default, float):
        return _coerce_float(key, value)
    if isinstance(default, list):
        return _coerce_list(key, value, default)
    if not isinstance(value, str) or not value:
        raise _bad(key, value, "a non-empty string")
    return value


def _coerce_int(key: str, value: Any, minimum: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # `!!float 1e6` for a step count
    if isinstance(value, str):
        try:
            value = int(float(value))
        except ValueError:
            raise _bad(key, value, f"an integer >= {minimum}") from None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _bad(key, value, f"an integer >= {minimum}")
    return value


def _coerce_float(key: str, value: Any) -> float:
    try:
        out = float(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        out = None
    unit = key in ("gamma", "gae_lambda", "self_play_prob", "exploiter_frac")
    if out is None or out != out or out < 0 or (unit and out > 1):
        raise _bad(key, value, "a number in [0, 1]" if unit else "a number >= 0")
    return out


def _coerce_list(key: str, value: Any, default: list[Any]) -> list[Any]:
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        value = [value]  # `--set opponents=greedy` or `--set net_arch=64`
    if not isinstance(value, list) or (key != "opponents" and key != "eval_bots" and not value):
        raise _bad(key, value, "a list")
    if key == "net_arch":
        return [_coerce_int(key, v, 1) for v in value]
    if not all(isinstance(v, str) and v for v in value):
        raise _bad(key, value, "a list of agent names or 'ppo:PATH' strings")
    return list(value)


def check_config(cfg: TrainConfig) -> TrainConfig:
    """Cross-field checks (each field alone was checked when set)."""
    if not 2 <= cfg.num_players <= 8:
        raise _bad("num_players", cfg.num_players, "an integer 2-8")
    if isinstance(cfg.seat, int) and cfg.seat >= cfg.num_players:
        raise _bad("seat", cfg.seat, f"'random' or a seat 0-{cfg.num_players - 1}")
    if not cfg.opponents and not cfg.self_play:
        raise _bad("opponents", cfg.opponents, "at least one opponent (or self_play: true)")
    _check_agents("opponents", cfg.opponents)
    if cfg.exploiter_frac > 0 and cfg.num_players != 2:
        raise _bad("exploiter_frac", cfg.exploiter_frac, "0 unless num_players is 2 (exact best responses)")
    try:
        load_ruleset(cfg.ruleset)
    except ValueError as e:
        raise ValueError(f"config key 'ruleset': {e}") from None
    if cfg.batch_size > cfg.n_steps * cfg.num_envs:
        raise _bad("batch_size", cfg.batch_size, f"at most n_steps * num_envs = {cfg.n_steps * cfg.num_envs}")
    return cfg


def _check_agents(key: str, names: list[str]) -> None:
    from agents.registry import available_agents

    for name in names:
        if name.startswith("ppo:"):
            if not Path(name[4:]).is_file():
                raise _bad(key, name, "'ppo:PATH' with an existing model file")
        elif name not in available_agents():
            raise _bad(key, name, f"agent names {available_agents()} or 'ppo:PATH'")


def apply(cfg: TrainConfig, values: dict[str, Any]) -> TrainConfig:
    """A copy of ``cfg`` with ``values`` set (``ValueError`` on an unknown key or a bad value)."""
    out = dataclasses.replace(cfg)
    for key, value in values.items():
        if key not in FIELDS:
            raise ValueError(f"unknown config key {key!r}; allowed keys: {sorted(FIELDS)}")
        setattr(out, key, _coerce(key, value))
    return out


def read_yaml(path: str | Path) -> dict[str, Any]:
    """The keys of a config file, with its ``defaults:`` file (if any) merged underneath."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config file {str(path)!r} does not exist")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"config file {str(path)!r} must hold a mapping of keys to values")
    base_name = data.pop("defaults", None)
    if base_name is None:
        return data
    return {**read_yaml(path.parent / str(base_name)), **data}


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` -> ``(key, value)`` with the value parsed as a YAML scalar/list."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--set expects key=value, got {text!r}")
    return key.strip(), yaml.safe_load(raw) if raw.strip() else ""


def load_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """Defaults <- the YAML file (default ``configs/ppo_classic_2p.yaml``) <- ``key=value`` overrides."""
    cfg = apply(TrainConfig(), read_yaml(path if path is not None else DEFAULT_CONFIG))
    cfg = apply(cfg, dict(parse_override(o) for o in overrides))
    return check_config(cfg)


def save_config(cfg: TrainConfig, path: str | Path) -> None:
    """Write the resolved config as YAML (loadable by :func:`load_config`)."""
    Path(path).write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
