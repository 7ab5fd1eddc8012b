"""The single-agent Gymnasium env: one learner against bots, over the pure rules engine (``GameState``).

Use it in research code (a random agent that respects the action mask)::

    import gymnasium as gym
    import numpy as np
    import zanzibar_env  # registers Zanzibar-v0 and ZanzibarRound-v0

    env = gym.make("Zanzibar-v0", ruleset="classic", num_players=3, opponents="greedy")
    obs, info = env.reset(seed=0)
    rng, done, ret = np.random.default_rng(0), False, 0.0
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        ret, done = ret + reward, terminated or truncated

The batched twin (``SAME_STEP`` autoreset, opponents batched)::

    envs = gym.make_vec("Zanzibar-v0", num_envs=4096, vectorization_mode="vector_entry_point")
    obs, infos = envs.reset(seed=0)
    obs, rewards, terms, truncs, infos = envs.step(np.full(4096, 7))  # everyone stops
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import _envutil as U
from ..core.dice import DiceSource, RandomDice, as_dice_source
from ..core.engine import NUM_ACTIONS, STOP, RoundState
from ..core.game import GameState
from ..core.observation import MAX_EARLIER_PAYMENTS
from ..core.records import RoundRecord
from ..core.rules import MAX_PLAYERS, Ruleset


class RoundEncoder:
    """``observation.encode(rs.view())`` for the acting player, without building the view.

    The same float32 vector as :func:`~zanzibar_env.core.observation.encode` (each entry is the same
    float64 expression rounded once; tests/test_env.py checks equality on thousands of views), from
    cached pieces: dice and rank per multiset, roll counts per (used, limit), and the seat blocks once
    per round (stacks only change when a round is settled).
    """

    def __init__(self, r: Ruleset) -> None:
        t = r.table
        top, mr = max(t.num_ranks - 1, 1), r.max_rolls
        self.top = top
        self.rank = {h.dice: h.rank for h in t.hands}
        self.head = {h.dice: [*(d / 6.0 for d in h.dice), h.rank / top] for h in t.hands}
        rng = range(mr + 1)
        self.rolls = {(u, lim): [u / mr, lim / mr, (lim - u) / mr] for u in rng for lim in rng}
        self.ruleset = r
        self._tail_round: RoundState | None = None  # held, so its id cannot be reused
        self._tail_seat = -1
        self._tail: list[float] = []

    def tail(self, rs: RoundState, seat: int) -> list[float]:
        if rs is not self._tail_round or seat != self._tail_seat:
            st, act, n = rs.stacks, rs.active, rs.num_players
            stacks, active = st[seat:] + st[:seat], act[seat:] + act[:seat]
            pad = [0.0] * (MAX_PLAYERS - n)
            start = self.ruleset.starting_stack
            self._tail = [*(x / start for x in stacks), *pad, *(float(x) for x in active), *pad]
            self._tail.append(n / MAX_PLAYERS)
            self._tail_round, self._tail_seat = rs, seat
        return self._tail

    def __call__(self, rs: RoundState) -> np.ndarray:
        seat = rs.current_seat
        assert seat is not None
        dice, pos, top = rs.dice, rs.pos, self.top
        rank = self.rank[dice]
        if rs.lowest:
            lo, hi = rs.hands[rs.lowest[0]].rank, rs.hands[rs.highest].rank  # type: ignore[index]
            mid = [float(pos == 0), (len(rs.order) - pos - 1) / (MAX_PLAYERS - 1), 1.0, lo / top,
                   len(rs.lowest) / (MAX_PLAYERS - 1), hi / top, float((rank > lo) - (rank < lo)),
                   float((rank > hi) - (rank < hi)), rs.earlier_payments / MAX_EARLIER_PAYMENTS]  # fmt: skip
        else:
            after = (len(rs.order) - pos - 1) / (MAX_PLAYERS - 1)
            paid = rs.earlier_payments / MAX_EARLIER_PAYMENTS
            mid = [float(pos == 0), after, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, paid]
        roll = self.rolls[rs.rolls_used, rs.turn_limit]
        return np.array(self.head[dice] + roll + mid + self.tail(rs, seat), np.float32)


class ZanzibarEnv(gym.Env[np.ndarray, int]):
    """Zanzibar for one learning agent; the other seats are played by bots inside :meth:`step`.

    ## Description
    The dice game Zanzibar (RULES.md): each round every player, clockwise from the starting seat,
    throws three dice up to the roll limit, keeping dice between throws; the lowest hand receives
    chips (or loses lives). ``Zanzibar-v0``: one episode is one game; ``ZanzibarRound-v0``
    (``episode="round"``): one episode is the first round of a fresh game.

    ## Action Space
    ``Discrete(8)``: a hold mask over the dice *sorted ascending*: bit ``i`` keeps die ``i`` and the
    others are re-thrown; ``7`` keeps all and stops. The agent is asked only while a roll remains;
    turns without a choice are played without asking. ``info["action_mask"]`` (int8[8]) and
    :meth:`action_masks` give the legal actions (only 0 and 7 where holds are not allowed); an
    illegal action raises ``ValueError``.

    ## Observation Space
    ``Box(-1, 8, (33,), float32)``, always from the agent's seat, built as ``observation.encode``:

    | index | name | value |
    |---|---|---|
    | 0-2 | dice | the three dice, sorted ascending, face / 6 |
    | 3 | hand_rank | current hand's rank / best rank (0 = worst hand) |
    | 4-6 | rolls_used, roll_limit, rolls_left | each / ruleset ``max_rolls`` |
    | 7 | is_first | 1 if the agent rolls first this round |
    | 8 | players_after | active players still to roll after the agent / 7 |
    | 9-12 | has_lowest, lowest_rank, lowest_count, highest_rank | earlier hands (rank / best, count / 7) |
    | 13-14 | vs_lowest, vs_highest | current hand compared with them: -1, 0, +1 |
    | 15 | earlier_payments | own-hand payments of earlier players / 28 (alt_chips) |
    | 16-23 | stacks | chips or lives / starting stack, own seat first, clockwise, 0-padded |
    | 24-31 | active | 1 if that seat is still in the game |
    | 32 | num_players | players / 8 |

    ``observation.OBS_LAYOUT`` and ``observation.decode`` give the same by name. After the episode
    ends the observation is all zeros but indices 16-32 (final stacks).

    ## Starting State
    Every seat holds the ruleset's starting stack; seat 0 rolls first; the agent's seat is drawn
    uniformly (``seat="random"``) or fixed. Bots' turns before the agent's first decision are
    played during :meth:`reset`.

    ## Rewards
    ``"chips"``: per step, the chips the agent gave away minus the chips it received in the rounds
    that ended during the step (lives rulesets: minus the lives it lost). ``"win"``: at game end
    ``+1/k`` to each of ``k`` winners and ``-1`` to every other player (0 on truncation); in
    ``ZanzibarRound-v0`` the round's result: ``-1`` for a loser, the non-losers share ``+1``, 0 if
    nobody lost. Rewards of rounds that end during ``reset`` (before the agent's first decision)
    are paid with the first step.

    ## Episode End
    Terminated when the game ends (a player reaches 0 chips; one player left with lives), when the
    agent is out of lives, or (round env) when the round is settled. Truncated after ``max_rounds``
    rounds. If the episode ends before the agent's first decision (e.g. in the round env an earlier
    player stopped after one roll, so the agent's turn is a single roll), :meth:`reset` returns the
    final observation with every action legal, and the next :meth:`step` ignores its action and
    reports the end.

    ## Arguments
    ``ruleset`` (name, YAML path, mapping or Ruleset), ``num_players`` (2-8), ``opponents`` (a name in
    ``agents.available_agents()``, an agent object with ``.act(view)``, ``"ppo:PATH"`` or a model
    path; one for every other seat, or a list with one per other seat, clockwise from the agent),
    ``seat`` (``"random"`` or 0..n-1), ``reward`` (``"chips"`` or ``"win"``), ``render_mode``
    (``"ansi"``, ``"human"``, ``"rgb_array"``), ``max_rounds`` (overrides the ruleset's cap),
    ``episode`` (``"game"`` or ``"round"``), ``dice`` (a ``DiceSource`` or a list of faces that
    replaces the random dice, for tests and replays).

    ## Version History
    * v0: initial version.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}  # noqa: RUF012

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
    ) -> None:
        self.rules: Ruleset
        self.rules, self.n, self.fixed_seat = U.check_common(ruleset, num_players, seat, reward, episode)
        self.max_rounds = U.check_max_rounds(max_rounds, self.rules)
        self.render_mode = U.check_render_mode(render_mode, self.metadata["render_modes"])
        self.reward_kind, self.episode = reward, episode
        self.opponents = U.make_opponents(opponents, self.n)
        self.observation_space = U.observation_space()
        self.action_space = spaces.Discrete(NUM_ACTIONS)  # type: ignore[assignment]
        self._script = as_dice_source(dice, None) if dice is not None else None
        self._dice: DiceSource | None = self._script
        legal = np.ones(NUM_ACTIONS, np.int8) if self.rules.holds_allowed else np.zeros(NUM_ACTIONS, np.int8)
        legal[[0, STOP]] = 1
        self._legal, self._all = legal, np.ones(NUM_ACTIONS, np.int8)
        self.game: GameState | None = None
        self._encode = RoundEncoder(self.rules)
        self.seat = 0
        self._ended = True
        self._passing = False

    # ---- gymnasium API --------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            U.seed_opponents(self.opponents, self.np_random)
        if self._script is None and (seed is not None or self._dice is None):
            self._dice = RandomDice(self.np_random)
        assert self._dice is not None
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(self.n))
        cap = 1 if self.episode == "round" else self.max_rounds
        self.game = GameState(self.rules, self.n, self._dice, 0, cap)
        self._seen, self._reward = 0, 0.0
        self._final_stacks: list[int] = []
        self._term = self._trunc = self._ended = False
        records = self._advance()
        self._passing = self._ended
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info(records)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if self._ended and not self._passing:
            raise RuntimeError("the episode has ended; call reset() to start a new one")
        records: list[RoundRecord] = []
        if self._passing:
            self._passing = False
        else:
            self._check_action(action)
            self.game.act(int(action))
            records = self._advance()
        reward, self._reward = self._reward, 0.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._term, self._trunc, self._info(records)

    def action_masks(self) -> np.ndarray:
        """Legal actions as ``bool[8]`` (sb3-contrib's convention)."""
        return self._mask().astype(bool)

    def render(self) -> Any:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= to the constructor")
            return None
        try:
            from ..ui import render as R
        except ImportError as e:
            raise RuntimeError(f"rendering needs zanzibar_env/ui/render.py, which is not available: {e}") from e
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return R.render_rgb(self.game, self.seat)
        text = R.render_ansi(self.game, self.seat)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    # ---- internals ------------------------------------------------------------------------------
    def _check_action(self, action: Any) -> None:
        if type(action) is int and 0 <= action < NUM_ACTIONS and self._legal[action]:
            return
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            if not (
                isinstance(action, np.ndarray)
                and action.shape == ()
                and np.issubdtype(action.dtype, np.integer)
            ):
                raise ValueError(f"action must be an integer hold mask 0-7, got {action!r}")
        a = int(action)
        if not 0 <= a < NUM_ACTIONS or not self._legal[a]:
            raise ValueError(
                f"illegal action {a}: legal hold masks are {np.flatnonzero(self._legal).tolist()} "
                "(bit i keeps sorted die i; 7 stops)"
            )

    def _advance(self) -> list[RoundRecord]:
        """Play the bots until the agent decides or the episode ends; returns the rounds that ended."""
        g = self.game
        assert g is not None
        records: list[RoundRecord] = []
        seat, opps, n = self.seat, self.opponents, self.n
        while True:
            if len(g.record.rounds) > self._seen:
                records.extend(self._collect())
                if self._ended:
                    return records
            s = g.round.current_seat
            if s is None or s == seat:
                return records
            g.act(opps[(s - seat) % n - 1].act(g.round.view()))

    def _collect(self) -> list[RoundRecord]:
        """Score the rounds that ended since the last call, one by one, up to the episode's end."""
        g = self.game
        assert g is not None
        rounds, new = g.record.rounds, []
        while self._seen < len(rounds) and not self._ended:
            rec = rounds[self._seen]
            self._seen += 1
            new.append(rec)
            self._score(rec, last=self._seen == len(rounds))
        return new

    def _score(self, rec: RoundRecord, last: bool) -> None:
        g, seat, win = self.game, self.seat, self.reward_kind == "win"
        assert g is not None
        lives = self.rules.stake == "lives"
        if not win:
            self._reward += rec.transfers[seat] if lives else -rec.transfers[seat]
        if self.episode == "round":
            self._term = True
            if win:
                active = [s > 0 if lives else True for s in rec.stacks_before]
                self._reward += U.round_win_reward(rec.losers, active, seat)
        elif last and g.record.winners:
            self._term = True
            self._reward += U.win_reward(g.record.winners, seat) if win else 0.0
        elif lives and rec.stacks_after[seat] == 0:  # out of lives while others play on
            self._term = True
            self._reward -= 1.0 if win else 0.0
        elif last and g.record.truncated:
            self._trunc = True
        self._ended = self._term or self._trunc
        self._final_stacks = rec.stacks_after

    def _obs(self) -> np.ndarray:
        g = self.game
        assert g is not None
        if self._ended:
            n, s, st = self.n, self.seat, self._final_stacks
            stacks = [st[(s + k) % n] for k in range(n)]
            active = [x > 0 if self.rules.stake == "lives" else True for x in stacks]
            return U.terminal_obs(stacks, active, n, self.rules)
        return self._encode(g.round)

    def _mask(self) -> np.ndarray:
        return self._all if self._passing or self._ended else self._legal

    def _info(self, records: list[RoundRecord]) -> dict[str, Any]:
        return {"action_mask": self._mask().copy(), "rounds": records, "seat": self.seat}
