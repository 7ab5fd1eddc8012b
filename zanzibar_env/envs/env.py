"""The single-agent Gymnasium env: one learner against bots, over the pure rules engine (``GameState``).

Use it in research code (a random agent that respects the action mask)::

    import gymnasium as gym
    import numpy as np
    import zanzibar_env  # registers Zanzibar-v1 and ZanzibarRound-v1

    env = gym.make("Zanzibar-v1", ruleset="classic", num_players=3, opponents="greedy")
    obs, info = env.reset(seed=0)
    rng, done, ret = np.random.default_rng(0), False, 0.0
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        ret, done = ret + reward, terminated or truncated

The batched twin (``SAME_STEP`` autoreset, opponents batched)::

    envs = gym.make_vec("Zanzibar-v1", num_envs=4096, vectorization_mode="vector_entry_point")
    obs, infos = envs.reset(seed=0)
    obs, rewards, terms, truncs, infos = envs.step(np.full(4096, 7))  # everyone stops
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..core import settlement as S
from ..core.checks import check_bool, check_options, check_seed
from ..core.dice import DiceSource, RandomDice, as_dice_source
from ..core.engine import NUM_ACTIONS, RoundState
from ..core.game import GameState
from ..core.kernel import legal_mask
from ..core.observation import encoder
from ..core.records import RoundRecord
from ..core.rules import Ruleset
from . import _envutil as U
from ._obs import ObsFormat


class RoundEncoder:
    """``observation.encode(rs.view())`` for the acting player, without building the view.

    Reads the round's public numbers (:meth:`RoundState.public_numbers`) and joins the kernel encoder's
    tables (:class:`~zanzibar_env.core.observation.Encoder`); the seat blocks (slots 16-32) change only
    when a round is settled, so they are kept for the round and seat, and remembered by stacks.
    """

    def __init__(self, r: Ruleset) -> None:
        self.enc = encoder(r)
        self._tail_round: RoundState | None = None  # held, so its id cannot be reused
        self._tail_seat = -1
        self._tail = b""
        self._tails: dict[tuple[tuple[int, ...], tuple[bool, ...], int], bytes] = {}

    def tail(self, rs: RoundState, seat: int) -> bytes:
        if rs is not self._tail_round or seat != self._tail_seat:
            key = (rs.stacks, rs.active, seat)
            tail = self._tails.get(key)
            if tail is None:
                if len(self._tails) >= 4096:  # bounded: long games on big tables see many stacks
                    self._tails.clear()
                st, act = key[0], key[1]  # tuples: rotated by slicing, as relative() does
                tail = self._tails[key] = self.enc.tail(st[seat:] + st[:seat], act[seat:] + act[:seat])
            self._tail, self._tail_round, self._tail_seat = tail, rs, seat
        return self._tail

    def __call__(self, rs: RoundState) -> np.ndarray:
        seat = rs.current_seat
        assert seat is not None
        tail = self._tail if rs is self._tail_round and seat == self._tail_seat else self.tail(rs, seat)
        return self.enc.one_of(rs.public_numbers(), tail)


def relative(stacks: Any, active: Any, seat: int) -> tuple[list[int], list[bool]]:
    """Stacks and active flags from ``seat``'s point of view (own seat first, clockwise)."""
    st, act = list(stacks), list(active)
    return st[seat:] + st[:seat], act[seat:] + act[:seat]


class ZanzibarEnv(gym.Env[np.ndarray, int]):
    """Zanzibar for one learning agent; the other seats are played by bots inside :meth:`step`.

    ## Description
    The dice game Zanzibar (RULES.md): each round every player, clockwise from the starting seat,
    throws three dice up to the roll limit, keeping dice between throws; the lowest hand receives
    chips (or loses lives). ``Zanzibar-v1``: one episode is one game; ``ZanzibarRound-v1``
    (``episode="round"``): one episode is the first round of a fresh game.

    ## Action Space
    ``Discrete(8)``: a hold mask over the dice *sorted ascending*: bit ``i`` keeps die ``i`` and the
    others are re-thrown; ``7`` keeps all and stops. The agent is asked only while a roll remains;
    turns without a choice are played without asking. ``info["action_mask"]`` and
    :meth:`action_masks` (both ``bool[8]``) give the legal actions (only 0 and 7 where holds are not
    allowed); an illegal action raises ``ValueError``.

    ## Observation Space
    ``Box(-1, 8, (33,), float32)``, always from the agent's seat, built as ``observation.encode``:

    | index | name | value |
    |---|---|---|
    | 0-2 | dice | the three dice, sorted ascending, face / 6 |
    | 3 | hand_rank | rank / best rank (0 = worst) of the hand scored by stopping now (RULES.md §9) |
    | 4-6 | rolls_used, roll_limit, rolls_left | each / ruleset ``max_rolls`` |
    | 7 | is_first | 1 if the agent rolls first this round |
    | 8 | players_after | active players still to roll after the agent / 7 |
    | 9-12 | has_lowest, lowest_rank, lowest_count, highest_rank | earlier hands (rank / best, count / 7) |
    | 13-14 | vs_lowest, vs_highest | the index-3 hand compared with them: -1, 0, +1 |
    | 15 | earlier_payments | own-hand payments of earlier players / 28 (alt_chips) |
    | 16-23 | stacks | chips, lives or points / `Ruleset.stack_scale`, own seat first, clockwise, 0-padded |
    | 24-31 | active | 1 if that seat is still in the game |
    | 32 | num_players | players / 8 |

    ``observation.OBS_LAYOUT`` and ``observation.decode`` give the same by name. After the episode
    ends the observation is all zeros but indices 16-32 (final stacks).

    ``obs_type="onehot"``: ``Box(-1, 8, (k,), float32)``, the 33 floats above followed by one-hot codes
    of the dice, face counts, ranks and rolls (``zanzibar_env.core.onehot``; ``k`` =
    ``onehot_size(...)``: 212 for ``classic``, 152 for ``simple_scoring``, 224 for ``lives``), the
    encoding the default training uses. ``obs_type="dict"``:
    ``Dict{"observation": Box(33), "action_mask": MultiBinary(8)}`` (RLlib / Tianshou style).

    ## Starting State
    Every seat holds the ruleset's starting stack; seat 0 rolls first; the agent's seat is drawn
    uniformly (``seat="random"``) or fixed. Bots' turns before the agent's first decision are
    played during :meth:`reset`.

    ## Rewards
    ``"chips"``: per step, the chips the agent gave away minus the chips it received in the rounds
    that ended during the step (lives rulesets: minus the lives it lost). ``"win"``: at game end
    ``+1/k`` to each of ``k`` winners and ``-1`` to every other player (0 on truncation); in
    ``ZanzibarRound-v1`` the round's result: ``-1`` for a loser, the non-losers share ``+1``, 0 if
    nobody lost. Rewards of rounds that end during ``reset`` (before the agent's first decision)
    are paid with the first step.

    ## Episode End
    Terminated when the game ends (a player reaches 0 chips; one player left with lives), when the
    agent is out of lives, or (round env) when the round is settled. Truncated after ``max_rounds``
    rounds. If the episode ends before the agent's first decision (e.g. in the round env an earlier
    player stopped after one roll, so the agent's turn is a single roll), :meth:`reset` returns the
    final observation with every action legal and ``info["no_decision"] = True`` (False otherwise; the
    flag is in every info of the episode), and the next :meth:`step` ignores its action and reports
    the end. ``skip_no_decision=True`` makes :meth:`reset` start new games until the agent has a
    decision (frequent in ``ZanzibarRound-v1``: an earlier player who stops after one roll leaves
    the agent a single roll). Every info also holds ``seat``, ``num_rounds`` (rounds played in the
    episode) and ``rounds`` (the :class:`RoundRecord` of each round that ended during the call).

    ## Arguments
    ``ruleset`` (name, YAML path, mapping or Ruleset), ``num_players`` (2-8), ``opponents`` (a name in
    ``zanzibar_env.agents.available_agents()``, an agent object with ``.act(view)``, ``"ppo:PATH"`` or a model
    path; one for every other seat, or a list with one per other seat, clockwise from the agent),
    ``seat`` (``"random"`` or 0..n-1), ``reward`` (``"chips"`` or ``"win"``), ``render_mode``
    (``"ansi"``, ``"human"``, ``"rgb_array"``), ``max_rounds`` (overrides the ruleset's cap),
    ``episode`` (``"game"`` or ``"round"``), ``dice`` (a ``DiceSource`` or a list of faces that
    replaces the random dice, for tests and replays), ``obs_type`` (``"flat"``, ``"onehot"``,
    ``"dict"``), ``skip_no_decision`` (``True`` or ``False``; other values are refused). ``reset(seed=...)``: ``None``
    or a non-negative integer (Python or numpy). ``reset(options={"seat": s})`` puts the agent in seat
    ``s`` (an int, or ``"random"``: drawn) for that episode; ``"seat"`` is the only option key.
    ``opponents`` given as objects are checked when the env is built (an instance with a callable
    ``act``, not a class). ``step`` before ``reset`` (or after the end) raises ``ResetNeeded``
    (Gymnasium's, also a ``RuntimeError``).

    ## Version History
    * v1: ``info["action_mask"]`` is ``bool`` (was ``int8``); new info keys ``no_decision`` and
      ``num_rounds``; ``obs_type`` (``"flat"``, ``"onehot"``, ``"dict"``), ``skip_no_decision`` and
      ``reset(options={"seat": ...})``; rulesets with ``final_hand: best`` show the best throw so far
      at index 3; every game truncated at ``Ruleset.round_cap``.
    * v0: initial version.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (the base class declares it a plain attribute, not a ClassVar)
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 4,
    }

    def __init__(
        self,
        ruleset: Any = "classic",
        num_players: int = 2,
        opponents: Any = "random",
        seat: int | str = "random",
        reward: str = "chips",
        render_mode: str | None = None,
        max_rounds: int | None = None,
        episode: str = "game",
        dice: DiceSource | list[int] | None = None,
        obs_type: str = "flat",
        skip_no_decision: bool = False,
    ) -> None:
        self.rules: Ruleset
        self.rules, self.n, self.fixed_seat = U.check_common(ruleset, num_players, seat, reward, episode)
        self.max_rounds = U.check_max_rounds(max_rounds, self.rules)
        self.render_mode = U.check_render_mode(render_mode, self.metadata["render_modes"])
        self.reward_kind, self.episode = reward, episode
        self.opponents = U.make_opponents(opponents, self.n, self.rules)
        fmt = ObsFormat(obs_type, self.rules)
        self.observation_space = fmt.space
        self._fmt = None if fmt.kind == "flat" else fmt  # None: the flat observation as it is
        self.skip_no_decision = check_bool(skip_no_decision, "skip_no_decision")
        self.action_space = spaces.Discrete(NUM_ACTIONS)  # type: ignore[assignment]  # Discrete is a Space[np.int64]
        self._script = as_dice_source(dice, None) if dice is not None else None
        self._dice: DiceSource | None = self._script
        # (at most ~29 instance attributes in all: past 30 CPython stops sharing the keys of instance
        # dicts; docs/benchmarks.md#scalar-engine-and-single-env)
        self._legal = legal_mask(self.rules.holds_allowed)
        self.game: GameState | None = None
        self._encode = RoundEncoder(self.rules)
        self.seat = 0
        self._ended, self._term, self._trunc, self._reward = True, False, False, 0.0
        self._passing = self._no_decision = False

    # ---- gymnasium API --------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        seed = check_seed(seed)
        seat = U.seat_option(check_options(options, U.RESET_OPTIONS), self.n)
        super().reset(seed=seed)
        if seed is not None:
            U.seed_opponents(self.opponents, self.np_random)
        if self._script is None and (seed is not None or self._dice is None):
            self._dice = RandomDice(self.np_random)
        assert self._dice is not None
        for _ in range(U.MAX_SKIPS):
            records = self._start(seat)
            if not (self._ended and self.skip_no_decision):
                break
        else:
            raise RuntimeError(f"no decision in {U.MAX_SKIPS} resets; set skip_no_decision=False")
        self._passing = self._no_decision = self._ended
        if self.render_mode == "human":
            self.render()
        return self._outputs(records)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        g = self.game
        if g is None or self._ended:
            if g is None:
                raise U.ResetNeeded("call reset() before step()")
            if not self._passing:
                raise U.ResetNeeded("the episode has ended; call reset() to start a new one")
            self._passing = False
            records: list[RoundRecord] = []
        else:
            g.apply(action)  # the engine checks it (kernel.check_action)
            records = self._advance()
        reward, self._reward = self._reward, 0.0
        if self.render_mode == "human":
            self.render()
        obs, info = self._outputs(records)
        return obs, reward, self._term, self._trunc, info

    def action_masks(self) -> np.ndarray:
        """Legal actions as ``bool[8]`` (sb3-contrib's convention; the same as ``info["action_mask"]``)."""
        return self._mask().copy()

    def render(self) -> Any:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= to the constructor")
            return None
        if self.game is None:
            raise U.ResetNeeded("call reset() before render()")
        if self.render_mode == "rgb_array":
            from ..ui import render as R  # raises MissingExtraError naming the [ui] install without Pillow

            return R.render_rgb(self.game, self.seat)
        from ..ui.table import render_ansi  # plain text: no Pillow needed

        text = render_ansi(self.game, self.seat)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    # ---- internals ------------------------------------------------------------------------------
    def _start(self, seat: int | None) -> list[RoundRecord]:
        """Begin a new game (the agent in ``seat``; ``None``: the fixed seat if any; ``-1`` or no fixed seat:
        a random seat); play to its decision."""
        if seat is None:
            seat = self.fixed_seat if self.fixed_seat is not None else -1
        if seat < 0:
            seat = int(self.np_random.integers(self.n))
        self.seat = seat
        assert self._dice is not None
        cap = 1 if self.episode == "round" else self.max_rounds
        self.game = GameState(self.rules, self.n, self._dice, 0, cap)
        self._seen, self._reward = 0, 0.0
        self._final_stacks: list[int] = []
        self._term = self._trunc = self._ended = False
        return self._advance()

    def _advance(self) -> list[RoundRecord]:
        """Play the bots until the agent decides or the episode ends; returns the rounds that ended."""
        g = self.game
        assert g is not None
        records: list[RoundRecord] = []
        seat, opps, n, rounds = self.seat, self.opponents, self.n, g.record.rounds
        while True:
            if len(rounds) > self._seen:
                self._collect(records)
                if self._ended:
                    return records
            rnd = g.round
            s = rnd.current_seat
            if s is None or s == seat:
                return records
            action = opps[(s - seat) % n - 1].act(rnd.view())
            try:
                g.apply(action)  # checked by the engine (kernel.check_action)
            except ValueError as e:
                raise ValueError(f"{e} (from the opponent in seat {s})") from None

    def _collect(self, records: list[RoundRecord]) -> None:
        """Score the rounds that ended since the last call, one by one, up to the episode's end (the
        learner's reward and episode end, kernel: ``settlement.episode_step``); append them to ``records``."""
        g, seat, rules = self.game, self.seat, self.rules
        assert g is not None
        game = g.record
        rounds = game.rounds
        while self._seen < len(rounds) and not self._ended:
            rec = rounds[self._seen]
            self._seen = seen = self._seen + 1
            records.append(rec)
            last = seen == len(rounds)
            winners = game.winners if last else []
            reward, term = S.episode_step(  # (positional: docs/benchmarks.md#scalar-engine-and-single-env)
                rules,
                self.episode,
                self.reward_kind,
                rec.transfers[seat],
                seat in winners,
                len(winners),
                bool(winners),
                rec.stacks_after[seat] > 0,  # won, winners, over, alive
                _round_result(rec, seat, rules) if self.episode == "round" else 0.0,  # round_result
            )
            self._reward += reward
            self._term = term
            self._trunc = trunc = not term and last and game.truncated
            self._ended = term or trunc
            self._final_stacks = rec.stacks_after

    def _mask(self) -> np.ndarray:
        return _ALL_LEGAL if self._ended else self._legal  # (passing implies ended)

    def _outputs(self, records: list[RoundRecord]) -> tuple[Any, dict[str, Any]]:
        """The observation (as ``obs_type`` asks) and the info of a reset or step (one call per step)."""
        g = self.game
        assert g is not None
        if self._ended:  # every action legal; zeros but the final seat blocks
            mask, obs = _ALL_LEGAL, terminal_obs(self.rules, self._final_stacks, self.seat)
        else:
            mask, obs = self._legal, self._encode(g.round)
        info = {
            "action_mask": mask.copy(),
            "rounds": records,
            "seat": self.seat,
            "no_decision": self._no_decision,
            "num_rounds": len(g.record.rounds),
        }
        return (obs if self._fmt is None else self._fmt(obs, mask)), info


_ALL_LEGAL = np.ones(NUM_ACTIONS, bool)  # the mask after the episode's end (read-only: callers copy)
_ALL_LEGAL.setflags(write=False)


def _round_result(rec: RoundRecord, seat: int, rules: Ruleset) -> float:
    """The round episode's ``"win"`` result of ``seat`` (kernel: ``settlement.round_win_reward``)."""
    lives = rules.stake == "lives"
    others = sum(1 for s, x in enumerate(rec.stacks_before) if (x > 0 or not lives) and s not in rec.losers)
    return float(S.round_win_reward(bool(rec.losers), seat in rec.losers, others))


def terminal_obs(rules: Ruleset, stacks: Any, seat: int) -> np.ndarray:
    """The observation of ``seat`` after its episode (kernel encoder's :meth:`terminal`)."""
    active = [x > 0 if rules.stake == "lives" else True for x in stacks]
    st, act = relative(stacks, active, seat)
    return encoder(rules).terminal(np.array([st]), np.array([act]))[0]
