"""Training configuration: a typed dataclass loaded from YAML in ``configs/`` (RL Zoo conventions).

One YAML file per experiment; a file may name a ``defaults:`` file (relative to itself) whose keys it
overrides, so shared values live once in ``configs/ppo_defaults.yaml``. Numbers may be written
``!!float 3e-4``. Single keys are overridden from the command line with ``--set key=value`` (the value
is parsed as a YAML scalar). Unknown keys and bad values raise ``ValueError`` naming the key and what
is allowed. Every field carries a one-line description (``--help`` lists them). The checks across keys
and of the names and files a config refers to are :mod:`zanzibar_env.train.config.checks`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

from zanzibar_env.configs import CONFIG_DIR, resolve_config  # configs/, shipped as package data
from zanzibar_env.core.rules import MAX_GAME_ROUNDS, MAX_PLAYERS, MIN_PLAYERS
from zanzibar_env.core.safe_io import atomic_write_text, is_file
from zanzibar_env.core.safe_load import load_yaml
from zanzibar_env.core.safe_load import read_yaml as read_yaml_file
from zanzibar_env.train.config.checks import bad_value, check_config

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

DEFAULT_CONFIG = CONFIG_DIR / "ppo_classic_2p.yaml"

_ENV_IDS = ("ZanzibarRound-v1", "Zanzibar-v1")
_BIG = 10**12  # upper bound of step counts (anything larger would never finish)


def _f(
    default: Any,
    help: str,
    *,
    choices: tuple[Any, ...] = (),
    lo: float | None = None,
    hi: float | None = None,
    kind: str | None = None,
    optional: bool = False,
) -> Any:
    """A config field: its default, one-line description and limits, declared once (field metadata).

    ``choices``: allowed values (for a ``str`` field, the only ones; for an ``int`` field such as
    ``seat``, allowed besides integers); ``lo``/``hi``: inclusive bounds of numbers (or of each list
    item); ``kind``: ``bool``, ``int``, ``float``, ``str``, ``name`` (a plain file name), ``int_list``
    or ``agent_list`` (inferred from the default when omitted); ``optional``: ``null`` is allowed.
    """
    meta = _meta(help, choices=choices, lo=lo, hi=hi, kind=kind or type(default).__name__, optional=optional)
    return field(default=default, metadata=meta)


def _meta(help: str, *, kind: str, **limits: Any) -> dict[str, Any]:
    """Field metadata of :func:`_f` (used directly by list fields, which need a default factory)."""
    base = {"choices": (), "lo": None, "hi": None, "optional": False, "what": "config key"}
    return {"help": help, "kind": kind, **base, **limits}


@dataclass
class TrainConfig:
    """Everything one PPO run needs; the resolved copy is saved as ``config.yaml`` in the run directory."""

    # --- environment
    env_id: str = _f(
        "ZanzibarRound-v1", "registered env: one round per episode or a full game", choices=_ENV_IDS
    )
    ruleset: str = _f("classic", "ruleset name from configs/rules/ (or a path to a ruleset YAML)")
    num_players: int = _f(2, "players at the table", lo=MIN_PLAYERS, hi=MAX_PLAYERS)
    opponents: list[str] = field(
        default_factory=lambda: ["optimal"],
        metadata=_meta(
            "opponents (bot names or 'ppo:PATH'): one for all seats, one per seat, or groups",
            kind="agent_list",
        ),
    )
    seat: str | int = _f(
        "random",
        "the learner's seat: an integer or 'random' (per episode)",
        choices=("random",),
        lo=0,
        kind="int",
    )
    reward: str = _f(
        "chips", "reward: 'chips' (chip/life change) or 'win' (+1/-1 at game end)", choices=("chips", "win")
    )
    max_rounds: int | None = _f(
        None,
        "truncate a full game after this many rounds (null = ruleset's)",
        lo=1,
        hi=MAX_GAME_ROUNDS,
        kind="int",
        optional=True,
    )
    num_envs: int = _f(64, "parallel environments in the batched vector env", lo=1, hi=65536)
    second_seat_frac: float = _f(
        0.0,
        "share of envs where the learner always rolls second (rounds; the rest follow 'seat')",
        lo=0,
        hi=1,
    )
    second_seat_opponents: list[str] = field(
        default_factory=list,
        metadata=_meta(
            "opponent groups of the second-seat envs (empty: as 'opponents'); the first roller's play "
            "sets the states the learner sees rolling second",
            kind="agent_list",
        ),
    )
    skip_no_decision: bool = _f(
        False, "replay episodes that end before the learner's first decision (no dummy step)"
    )
    expected_reward: bool = _f(
        False,
        "2-player rounds against optimal: pay each round's exact expected result given the learner's own "
        "hand (the other turn and roll-offs averaged by the solver; train/sb3/expected_reward.py)",
    )
    # --- self-play
    self_play: bool = _f(False, "add a pool of the learner's own past checkpoints to the opponents")
    self_play_pool: int = _f(5, "most recent checkpoints kept in the self-play pool", lo=1, hi=1000)
    self_play_freq: int = _f(
        50_000, "env steps between checkpoints added to the self-play pool", lo=1, hi=_BIG
    )
    self_play_prob: float = _f(
        0.5, "chance an episode's opponents come from the pool, not fixed bots", lo=0, hi=1
    )
    # --- exploiters (2 players)
    exploiter_frac: float = _f(
        0.0, "share of envs whose opponent is the exact best response to the learner", lo=0, hi=1
    )
    exploiter_freq: int = _f(
        50_000, "env steps between recomputations of the exploiter's best responses", lo=1, hi=_BIG
    )
    # --- imitation before PPO (train/sb3/game_learn.py)
    pretrain: str | None = _f(
        None,
        "imitate this bot before PPO (2 players: every decision of the game; more: sampled games), or "
        "'table_game': the exact game play of the learner's seat against its one table of opponents",
        kind="str",
        optional=True,
    )
    pretrain_epochs: int = _f(
        20, "passes of supervised imitation over the teacher's decisions", lo=1, hi=10**4
    )
    pretrain_games: int = _f(
        1000, "teacher self-play games sampled for the value head (and >2 players' states)", lo=1, hi=10**7
    )
    # --- PPO
    algo: str = _f(
        "maskable_ppo",
        "'maskable_ppo' (sb3-contrib, masks illegal holds) or plain 'ppo'",
        choices=("maskable_ppo", "ppo"),
    )
    total_timesteps: int = _f(200_000, "environment steps (learner decisions) to train for", lo=1, hi=_BIG)
    seed: int = _f(0, "one seed for numpy, torch, the envs and the opponents", lo=0, hi=2**31 - 1)
    learning_rate: float = _f(3e-4, "Adam step size", lo=0, hi=10)
    lr_schedule: str = _f(
        "constant",
        "learning-rate schedule: 'constant' or 'linear' decay to 0",
        choices=("constant", "linear"),
    )
    n_steps: int = _f(128, "steps per env per rollout (rollout = n_steps * num_envs)", lo=1, hi=1 << 20)
    batch_size: int = _f(1024, "minibatch size for each gradient step", lo=2, hi=1 << 24)
    n_epochs: int = _f(4, "passes over each rollout", lo=1, hi=1000)
    gamma: float = _f(1.0, "discount factor", lo=0, hi=1)
    gae_lambda: float = _f(0.95, "GAE lambda", lo=0, hi=1)
    clip_range: float = _f(0.2, "PPO clipping parameter", lo=0, hi=10)
    ent_coef: float = _f(
        0.0, "entropy bonus coefficient (the start value with a linear schedule)", lo=0, hi=10
    )
    ent_schedule: str = _f(
        "constant",
        "entropy-coefficient schedule: 'constant' or 'linear' decay to 0",
        choices=("constant", "linear"),
    )
    average_from: float = _f(
        0.0,
        "fraction of total_timesteps after which the policy's weights are averaged (the mean of the weights"
        " after each update from then on); the run ends with the average; 0 = off",
        lo=0,
        hi=0.99,
    )
    vf_coef: float = _f(0.5, "value-loss coefficient", lo=0, hi=100)
    max_grad_norm: float = _f(0.5, "gradient-norm clip", lo=0, hi=1e6)
    net_arch: list[int] = field(
        default_factory=lambda: [64, 64],
        metadata=_meta("hidden layer sizes of the policy and value MLPs", lo=1, hi=1 << 16, kind="int_list"),
    )
    activation: str = _f("tanh", "hidden activation: 'tanh' or 'relu'", choices=("tanh", "relu"))
    features: str = _f(
        "raw",
        "policy input: 'raw' observation or 'onehot' (plus one-hot dice/ranks)",
        choices=("onehot", "raw"),
    )
    # --- evaluation
    eval_freq: int = _f(50_000, "env steps between evaluations (0 = only at the end)", lo=0, hi=_BIG)
    eval_games: int = _f(200, "episodes against each baseline bot per evaluation", lo=1, hi=10**9)
    eval_bots: list[str] = field(
        default_factory=lambda: ["random", "greedy", "threshold", "escape", "optimal"],
        metadata=_meta("baseline bots evaluated against (registered names or 'ppo:PATH')", kind="agent_list"),
    )
    eval_exact: bool = _f(True, "exact exploitability per seat at each evaluation (2-player only)")
    eval_game_exact: bool = _f(
        False, "exact game exploitability (win probability) at each evaluation (2-player Zanzibar-v1)"
    )
    eval_table_games: int = _f(
        0,
        "duplicate games of the learner against its training opponents (a tournament at the training "
        "table, Zanzibar-v1) per evaluation; 0 = none",
        lo=0,
        hi=10**7,
    )
    # --- bookkeeping
    exp_name: str = _f(
        "ppo_classic_2p", "experiment name used in the run directory (letters, digits, ._-)", kind="name"
    )
    runs_dir: str = _f("runs", "parent directory of run directories")
    device: str = _f("cpu", "torch device", choices=("cpu", "cuda", "auto"))
    torch_threads: int = _f(
        1, "torch.set_num_threads (1 = deterministic and fast for small MLPs)", lo=1, hi=1024
    )
    max_memory_gb: float | None = _f(
        None,
        "memory a run may plan to use, GiB (rollout buffer, network, minibatch; train/config/resources.py); "
        "null = half of the machine's memory",
        lo=0.001,
        hi=1e6,
        kind="float",
        optional=True,
    )
    progress_bar: bool = _f(True, "show a tqdm/rich progress bar while training")
    tensorboard: bool = _f(True, "write TensorBoard logs to the run directory")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def run_name_prefix(self) -> str:
        return f"{self.env_id}__{self.exp_name}__{self.seed}"


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}
C = TypeVar("C", bound="DataclassInstance")

#: Declare a field of a config dataclass (default, one-line help, limits): what :func:`apply` checks.
config_field = _f
#: Field metadata for a list field (``field(default_factory=..., metadata=config_meta(...))``).
config_meta = _meta


def describe_fields(cls: type = TrainConfig, base: Any = None) -> str:
    """One line per config key of ``cls`` (a dataclass declared with :func:`config_field`): name,
    description and value in ``base`` (default: ``cls()``; the ``--help`` epilog passes the config that
    will run, :func:`zanzibar_env.train.config.options.keys_help`)."""
    base = cls() if base is None else base
    lines = []
    for f in dataclasses.fields(base):
        name = f.name
        m = f.metadata
        choice = f" {{{', '.join(map(str, m['choices']))}}}" if m["choices"] else ""
        lines.append(f"  {name:<16} {m['help']}{choice}{_range(m)} [value: {getattr(base, name)!r}]")
    return "\n".join(lines)


def _range(m: Any) -> str:
    if m["lo"] is None and m["hi"] is None:
        return ""
    return f" [{m['lo'] if m['lo'] is not None else ''}..{m['hi'] if m['hi'] is not None else ''}]"


def _coerce(key: str, value: Any, fields: dict[str, dataclasses.Field[Any]] | None = None) -> Any:
    """Check and convert one value for ``key`` by the limits declared with its field in ``fields``
    (default: :class:`TrainConfig`'s; another dataclass declared with :func:`_f` works the same)."""
    m = (FIELDS if fields is None else fields)[key].metadata
    if value is None and m["optional"]:
        return None
    if isinstance(value, str) and value in m["choices"]:
        return value
    kind = m["kind"]
    if kind == "bool":
        if not isinstance(value, bool):
            raise _bad(m, key, value, "true or false")
        return value
    if kind in ("int", "float"):
        return _number(key, value, m)
    if kind in ("int_list", "agent_list"):
        return _coerce_list(key, value, m)
    if m["choices"]:
        raise _bad(m, key, value, f"one of {list(m['choices'])}")
    if not isinstance(value, str) or not value or "\x00" in value:
        raise _bad(m, key, value, "a non-empty string")
    if kind == "name" and (not _NAME_RE.fullmatch(value) or value in (".", "..")):
        raise _bad(m, key, value, "letters, digits, '.', '_' and '-' (a plain directory name)")
    return value


def _coerce_list(key: str, value: Any, m: Any) -> list[Any]:
    """A list field's value (a single item is a list of one)."""
    if m["kind"] == "int_list":
        items = [value] if _is_scalar(value) else value
        if not isinstance(items, list) or not items:
            raise _bad(m, key, value, "a non-empty list of integers")
        return [_number(key, v, m) for v in items]
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) and v for v in items):
        raise _bad(m, key, value, "a list of agent names or 'ppo:PATH' strings")
    return list(items)


_NAME_RE = re.compile(r"[A-Za-z0-9._-]{1,100}")


def _bad(m: Any, key: str, value: Any, allowed: str) -> ValueError:
    return bad_value(key, value, allowed, what=m["what"])


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _number(key: str, value: Any, m: Any) -> Any:
    """An int or float within the field's bounds (YAML may give '3e-4' or `!!float 1e6` for a count)."""
    lo, hi, want_int = m["lo"], m["hi"], m["kind"] in ("int", "int_list")
    if hi is None:
        bounds = f" >= {lo}" if lo is not None else ""
    else:
        bounds = f" in {lo}..{hi}" if want_int else f" in [{lo}, {hi}]"
    allowed = ("an integer" if want_int else "a number") + bounds
    if m["choices"]:
        allowed = f"{list(m['choices'])} or {allowed}"
    x = value
    if isinstance(x, str):
        try:
            x = float(x) if not want_int or not x.strip().lstrip("+-").isdigit() else int(x)
        except ValueError:
            raise _bad(m, key, value, allowed) from None
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise _bad(m, key, value, allowed)
    if want_int:
        if isinstance(x, float) and not x.is_integer():
            raise _bad(m, key, value, allowed)
        x = int(x)
    else:
        x = float(x)
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise _bad(m, key, value, allowed)
    return x


def apply(cfg: C, values: dict[str, Any]) -> C:
    """A copy of ``cfg`` with ``values`` set (``ValueError`` on an unknown key or a bad value). ``cfg`` is a
    :class:`TrainConfig` or any dataclass whose fields are declared with :func:`config_field`."""
    if not isinstance(values, dict):
        raise ValueError(f"config must be a mapping of keys to values, got {type(values).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cfg)}
    out = dataclasses.replace(cfg)
    for key, value in values.items():
        if key not in fields:
            raise ValueError(f"unknown config key {str(key)[:80]!r}; allowed keys: {sorted(fields)}")
        setattr(out, key, _coerce(key, value, fields))
    return out


def _load_yaml(text: str, source: str) -> Any:
    return load_yaml(text, source)  # size, nesting, aliases and duplicate keys bounded


def read_yaml(path: str | Path, _seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The keys of a config file, with its ``defaults:`` file (if any) merged underneath."""
    path = Path(path)
    if not is_file(path):
        raise ValueError(f"config file {str(path)[:200]!r} does not exist")
    if path.resolve() in _seen:
        raise ValueError(f"config file {str(path)!r}: 'defaults:' chain loops back to itself")
    data = read_yaml_file(path, "config file") or {}
    if not isinstance(data, dict):
        raise ValueError(f"config file {str(path)!r} must hold a mapping of keys to values")
    base_name = data.pop("defaults", None)
    if base_name is None:
        return data
    if not isinstance(base_name, str) or not base_name:
        raise ValueError(f"config file {str(path)!r}: 'defaults' must name a YAML file")
    if len(_seen) >= 8:
        raise ValueError(f"config file {str(path)!r}: more than 8 'defaults:' files in a chain")
    return {**read_yaml(path.parent / base_name, (*_seen, path.resolve())), **data}


def parse_override(text: str) -> tuple[str, Any]:
    """``"key=value"`` -> ``(key, value)`` with the value parsed as a YAML scalar/list."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--set expects key=value, got {text!r}")
    return key.strip(), _load_yaml(raw, f"--set {key.strip()}") if raw.strip() else ""


def layered_config(
    base: C, path: str | Path | None, overrides: Sequence[str], prefix: str, default: Path
) -> C:
    """``base`` <- the YAML file (a path or a shipped name of ``prefix``; ``default`` without one) <-
    ``key=value`` overrides: how every config-driven command reads its config (checks are the caller's)."""
    cfg = apply(base, read_yaml(resolve_config(path, prefix) if path is not None else default))
    return apply(cfg, dict(parse_override(o) for o in overrides))


def write_config(cfg: Any, path: str | Path) -> None:
    """Write a resolved config (a dataclass with ``to_dict``) as YAML, atomically."""
    atomic_write_text(path, yaml.safe_dump(cfg.to_dict(), sort_keys=False))


def load_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """Defaults <- the YAML file (default ``configs/ppo_classic_2p.yaml``) <- ``key=value`` overrides."""
    return check_config(layered_config(TrainConfig(), path, overrides, "ppo_", DEFAULT_CONFIG))


def save_config(cfg: TrainConfig, path: str | Path) -> None:
    """Write the resolved config as YAML (loadable by :func:`load_config`), atomically."""
    write_config(cfg, path)
