"""The checks of a training config across its keys, and of the names and files it refers to.

Each key alone is checked when it is set (:func:`zanzibar_env.train.config.training.apply`); :func:`check_config`
then checks what depends on several keys (seats, opponents, the keys of game learning, the seat split,
``expected_reward``), that every agent name or ``ppo:PATH`` loads and that the ruleset exists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zanzibar_env.core.rules import load_ruleset
from zanzibar_env.train.config.resources import check_memory

if TYPE_CHECKING:
    from zanzibar_env.train.config.training import TrainConfig

TABLE_TEACHER = "table_game"  # pretrain: zanzibar_env.agents.exact.table_game_response for the run's table
STACK_READERS = ("optimal_game",)  # bots whose play depends on the stacks: no table teacher against them


def bad_value(key: str, value: Any, allowed: str, what: str = "config key") -> ValueError:
    """The error for a bad value of config key ``key`` (what was given, what is allowed); ``what`` names
    the kind of key (``"sweep key"`` for sweep configs)."""
    return ValueError(f"{what} {key!r}: bad value {_short(value)!r}; allowed: {allowed}")


def _short(value: Any) -> str:
    """At most 80 characters of ``str(value)``, without building the whole string of a huge container."""
    if isinstance(value, (list, tuple, dict)) and len(value) > 20:
        kind = type(value).__name__
        return f"<{kind} of {len(value)} items>"
    return str(value)[:80]


def check_config(cfg: TrainConfig) -> TrainConfig:
    """Cross-field checks and the names and files a config refers to (each field alone was checked)."""
    if isinstance(cfg.seat, int) and cfg.seat >= cfg.num_players:
        raise bad_value("seat", cfg.seat, f"'random' or a seat 0-{cfg.num_players - 1}")
    if not cfg.opponents:
        why = " (with self_play the fixed bots play until the pool has a checkpoint)" if cfg.self_play else ""
        raise bad_value("opponents", cfg.opponents, f"at least one opponent{why}")
    _check_agents("opponents", cfg.opponents, cfg.num_players)
    _check_agents("second_seat_opponents", cfg.second_seat_opponents, cfg.num_players)
    if cfg.second_seat_opponents and cfg.second_seat_frac == 0:
        raise bad_value(
            "second_seat_opponents", cfg.second_seat_opponents, "empty unless second_seat_frac > 0"
        )
    _check_agents("eval_bots", cfg.eval_bots, cfg.num_players)
    if len(set(cfg.eval_bots)) != len(cfg.eval_bots):
        raise bad_value("eval_bots", cfg.eval_bots, "distinct names")
    if cfg.exploiter_frac > 0 and cfg.num_players != 2:
        raise bad_value(
            "exploiter_frac", cfg.exploiter_frac, "0 unless num_players is 2 (exact best responses)"
        )
    _check_game_keys(cfg)
    try:
        load_ruleset(cfg.ruleset)
    except ValueError as e:
        raise ValueError(f"config key 'ruleset': {e}") from None
    _check_seat_split(cfg)
    _check_groups(cfg)
    _check_expected_reward(cfg)
    if cfg.batch_size > cfg.n_steps * cfg.num_envs:
        raise bad_value(
            "batch_size", cfg.batch_size, f"at most n_steps * num_envs = {cfg.n_steps * cfg.num_envs}"
        )
    check_memory(cfg)
    return cfg


def opponent_groups(cfg: TrainConfig) -> int:
    """How many env groups the run's opponents split the envs into
    (:func:`zanzibar_env.train.sb3.opponents.build_opponents`)."""
    if cfg.exploiter_frac > 0:
        return 8
    if cfg.self_play:
        return min(8, cfg.num_envs)
    return len(cfg.opponents) if len(cfg.opponents) not in (1, cfg.num_players - 1) else 1


def _check_groups(cfg: TrainConfig) -> None:
    """Every env group needs an env: ``num_envs`` at least the opponent groups (the seat split checks
    each of its parts itself)."""
    if cfg.second_seat_frac == 0 and cfg.num_envs < opponent_groups(cfg):
        why = "8 with exploiter_frac > 0" if cfg.exploiter_frac > 0 else "one per opponent"
        raise bad_value(
            "num_envs", cfg.num_envs, f"at least the {opponent_groups(cfg)} opponent groups ({why})"
        )


def _check_game_keys(cfg: TrainConfig) -> None:
    """The keys of game learning (:mod:`zanzibar_env.train.sb3.game_learn`): exact game figures need a 2-player game."""
    if cfg.eval_game_exact and (cfg.num_players != 2 or cfg.env_id != "Zanzibar-v1"):
        raise bad_value("eval_game_exact", True, "false unless env_id is Zanzibar-v1 with num_players 2")
    if cfg.eval_table_games and cfg.env_id != "Zanzibar-v1":
        raise bad_value(
            "eval_table_games", cfg.eval_table_games, "0 unless env_id is Zanzibar-v1 (full games)"
        )
    one_table = (
        len(cfg.opponents) in (1, cfg.num_players - 1) and not cfg.self_play and not cfg.exploiter_frac
    )
    if cfg.eval_table_games and not one_table:
        raise bad_value(
            "eval_table_games",
            cfg.eval_table_games,
            "0 unless the run trains at one table: opponents one name or one per other seat, "
            "no self_play, exploiter_frac 0",
        )
    if cfg.pretrain == TABLE_TEACHER:
        _check_table_teacher(cfg, one_table)
    elif cfg.pretrain is not None:
        from zanzibar_env.core.bots import check_table_size
        from zanzibar_env.core.registry import make_agent

        _check_agents("pretrain", [cfg.pretrain])
        try:
            check_table_size(make_agent(cfg.pretrain), cfg.num_players, load_ruleset(cfg.ruleset))
        except ValueError as e:
            raise bad_value(
                "pretrain", cfg.pretrain, f"a bot that plays {cfg.num_players} players ({e})"
            ) from None


def table_opponents(cfg: TrainConfig) -> list[str]:
    """The opponents clockwise after the learner at a one-table run (one name for every seat, or one each)."""
    if len(cfg.opponents) == 1:
        return list(cfg.opponents) * (cfg.num_players - 1)
    return list(cfg.opponents)


def _check_table_teacher(cfg: TrainConfig, one_table: bool) -> None:
    """``pretrain: table_game`` solves the game of the learner's seat at the run's one table: full games,
    2-4 players, a ruleset :func:`zanzibar_env.agents.exact.check_table_ruleset`
    supports, opponents that are bots not reading stacks."""
    why = "a bot name, or 'table_game' for full games at one table of bots that do not read stacks"
    if cfg.env_id != "Zanzibar-v1" or not one_table or not 2 <= cfg.num_players <= 4:
        raise bad_value(
            "pretrain",
            cfg.pretrain,
            f"{why} (needs env_id Zanzibar-v1, 2-4 players, opponents one name or one per other seat, "
            "no self_play, exploiter_frac 0)",
        )
    bad = [o for o in cfg.opponents if o.startswith("ppo:") or o in STACK_READERS]
    if bad:
        raise bad_value("pretrain", cfg.pretrain, f"{why}; these opponents read stacks: {bad}")
    _check_agents("opponents", list(cfg.opponents))
    from zanzibar_env.agents.exact import check_table_ruleset as check_ruleset

    try:
        check_ruleset(load_ruleset(cfg.ruleset), cfg.num_players)
    except ValueError as e:
        raise bad_value("pretrain", cfg.pretrain, f"{why} ({e})") from None


def _check_expected_reward(cfg: TrainConfig) -> None:
    """``expected_reward`` reads the solver's 2-player round tables: only right against ``optimal`` (whose
    values the exploiter shares) in 2-player rounds with chip/life rewards."""
    if not cfg.expected_reward:
        return
    needs = (
        ("env_id", cfg.env_id == "ZanzibarRound-v1", "ZanzibarRound-v1"),
        ("num_players", cfg.num_players == 2, "2"),
        ("reward", cfg.reward == "chips", "'chips'"),
        ("opponents", list(cfg.opponents) == ["optimal"], "[optimal] (the exploiter may join)"),
        ("self_play", not cfg.self_play, "false"),
    )
    for key, ok, want in needs:
        if not ok:
            got = f"{key}={getattr(cfg, key)!r}"
            raise bad_value("expected_reward", True, f"false unless {key} is {want}; got {got}")


def seat_split(cfg: TrainConfig) -> tuple[int, int]:
    """``(envs following 'seat', envs where the learner rolls second)`` under ``second_seat_frac``."""
    second = round(cfg.num_envs * cfg.second_seat_frac)
    return cfg.num_envs - second, second


def _check_seat_split(cfg: TrainConfig) -> None:
    """``second_seat_frac`` needs rounds and enough envs in both parts for the opponent groups."""
    if cfg.second_seat_frac == 0:
        return
    if cfg.env_id != "ZanzibarRound-v1":
        raise bad_value("second_seat_frac", cfg.second_seat_frac, "0 unless env_id is ZanzibarRound-v1")
    many = len(cfg.opponents) not in (1, cfg.num_players - 1)
    groups = 8 if cfg.self_play or cfg.exploiter_frac > 0 else len(cfg.opponents) if many else 1
    second = len(cfg.second_seat_opponents)
    groups2 = 8 if cfg.exploiter_frac > 0 and second else second if second > 1 else groups
    follow, n_second = seat_split(cfg)
    if follow < groups or n_second < groups2:
        raise bad_value(
            "second_seat_frac",
            cfg.second_seat_frac,
            f"a share leaving at least {groups} envs (the opponent groups) to the first part and {groups2} "
            f"to the second-seat part (num_envs {cfg.num_envs} splits {follow} + {n_second})",
        )


def _check_agents(key: str, names: list[str], players: int | None = None) -> None:
    """Every name loads (``ppo:PATH`` a model file) and, given ``players``, plays that table size."""
    from zanzibar_env.agents.ppo_agent import load_model
    from zanzibar_env.core.registry import available_agents, declared_table_sizes

    for name in names:
        if name.startswith("ppo:"):
            try:
                load_model(name[4:])
            except ValueError as e:
                raise bad_value(key, name, f"'ppo:PATH' with a loadable model file ({e})") from None
        elif name not in available_agents():
            raise bad_value(key, name, f"agent names {available_agents()} or 'ppo:PATH'")
        sizes = declared_table_sizes(name)
        if players is not None and sizes is not None and players not in sizes:
            raise bad_value(
                key, name, f"agents that play {players} players (num_players); {name!r} plays {list(sizes)}"
            )
