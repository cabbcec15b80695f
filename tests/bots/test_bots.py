"""Every bot plays every rule variation with 2 to 8 players, sees only its observation, and
never stalls."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import pytest

from rummy500.bots import LEVELS, REFERENCE_EXPERT, Bot, IntermediatePolicy, make_bot
from rummy500.bots.expert import ExpertBot
from rummy500.engine import Game, Move, Observation, Rules
from rummy500.engine.rules import option_choices
from rummy500.sim.match import parse_bot_spec

from .helpers import play_hands

# The expert with a tiny fixed budget: a couple of short playouts per candidate.
TINY_EXPERT: dict[str, Any] = {"samples": 1, "candidates": 3, "playout_moves": 24}


def bots(names: Sequence[str], seed: int) -> list[Bot]:
    return [
        make_bot(n, seed=seed + i, **(TINY_EXPERT if n == "expert" else {}))
        for i, n in enumerate(names)
    ]


def variations() -> list[Rules]:
    """The defaults, then every other value of every option, one at a time."""
    rules = [Rules(target=100)]
    for name in ("jokers", "values", "pickup", "rummy", "going-out", "win"):
        for value in option_choices(name)[1:]:
            rules.append(Rules(target=100).with_options({name: value}))
    return rules


def test_make_bot_knows_every_name_and_level() -> None:
    for name in ("random", "beginner", "intermediate", "expert", *LEVELS):
        bot = make_bot(name, seed=3)
        assert isinstance(bot, Bot)
    assert make_bot("easy").name == "beginner"
    assert make_bot("medium").name == "intermediate"
    hard = make_bot("hard")
    assert isinstance(hard, ExpertBot)
    assert (hard.samples, hard.candidates, hard.horizon, hard.confidence) == (8, 4, 12, 0.25)
    expert = make_bot("expert")
    assert isinstance(expert, ExpertBot)
    assert (expert.samples, expert.candidates, expert.confidence) == (24, 8, 0.25)
    assert expert.policy == IntermediatePolicy(out_value=6.0)
    # the reference is the expert as it was: its options spelled out, none from the level
    reference = parse_bot_spec(REFERENCE_EXPERT).build(0)
    assert isinstance(reference, ExpertBot)
    assert (reference.samples, reference.candidates, reference.confidence) == (8, 6, 1.0)
    assert reference.policy == IntermediatePolicy()
    timed = make_bot("hard", samples=None, time=0.1)
    assert isinstance(timed, ExpertBot) and (timed.samples, timed.time) == (None, 0.1)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("grandmaster")


@pytest.mark.parametrize("rules", variations(), ids=str)
def test_every_bot_plays_every_variation(rules: Rules) -> None:
    # Four seats (seven cards each) with every level, then two seats (thirteen cards each).
    game = play_hands(bots(["expert", "intermediate", "beginner", "random"], 1), rules, 11, 2)
    assert game.hand_results
    game = play_hands(bots(["intermediate", "expert"], 5), rules, 12, 1)
    assert not any(r.capped for r in game.hand_results)  # no bot but random stalls a hand


@pytest.mark.parametrize("players", range(2, 9))
def test_every_bot_plays_with_2_to_8_players(players: int) -> None:
    names = ["expert", "intermediate", "beginner", "random"] * 2
    game = play_hands(bots(names[:players], players), Rules(), seed=players, hands=1)
    assert len(game.hand_results) == 1


@pytest.mark.parametrize("name", ["beginner", "intermediate"])
def test_bots_play_whole_games_without_stalling(name: str) -> None:
    game = play_hands(bots([name, name, name], 7), Rules(target=300), seed=3, hands=50)
    assert game.is_game_over()
    assert not any(r.capped for r in game.hand_results)


class Spy(Bot):
    """Records what it is given, plays like the beginner."""

    name = "spy"

    def __init__(self) -> None:
        super().__init__(0)
        self.inner = make_bot("beginner")
        self.seen: list[tuple[object, object]] = []

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        self.seen.append((observation, legal_moves))
        return self.inner.choose(observation, legal_moves)


def reachable(root: object, limit: int = 100_000) -> list[object]:
    """Every object reachable from ``root`` through attributes, fields and containers."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack and len(seen) < limit:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (str, int, float, bool, type(None))):
            continue
        seen[id(obj)] = obj
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (tuple, list, set, frozenset)):
            stack.extend(obj)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            stack.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))
        for slot in getattr(type(obj), "__slots__", ()):
            if hasattr(obj, slot):
                stack.append(getattr(obj, slot))
        if hasattr(obj, "__dict__") and not isinstance(obj, type):
            stack.append(vars(obj))
    return list(seen.values())


def test_bots_are_given_only_their_observation() -> None:
    spy = Spy()
    game = Game.new(3, Rules(), seed=5, max_moves_per_hand=1000)
    others = bots(["intermediate", "intermediate"], 1)
    players: list[Bot] = [spy, *others]
    while not game.is_hand_over():
        seat = game.to_act
        assert seat is not None
        legal = game.legal_moves()
        move = players[seat].choose(game.observation(seat), legal)
        game.play(move)
    assert spy.seen
    for observation, legal in spy.seen:
        assert isinstance(observation, Observation)
        assert observation.seat == 0
        assert all(isinstance(m, Move) for m in legal)  # type: ignore[attr-defined]
        found = reachable((observation, legal))
        assert not any(isinstance(x, Game) for x in found), "a bot could reach the game"
        # the other hands and the stock are not in it: only their sizes
        assert len(observation.hand) == observation.hand_sizes[0]


def test_expert_with_a_fixed_budget_is_reproducible() -> None:
    def moves(seed: int) -> list[str]:
        game = Game.new(2, Rules(), seed=21, max_moves_per_hand=1000)
        players = [
            ExpertBot(seed=seed, samples=2, candidates=3, playout_moves=40),
            make_bot("intermediate"),
        ]
        out = []
        for _ in range(30):
            if game.is_hand_over():
                break
            seat = game.to_act
            assert seat is not None
            move = players[seat].choose(game.observation(seat), game.legal_moves())
            game.play(move)
            out.append(str(move))
        return out

    assert moves(4) == moves(4)


def test_expert_keeps_to_its_time_budget() -> None:
    game = Game.new(2, Rules(), seed=3)
    bot = ExpertBot(seed=1, time=0.05)
    game.play("P2 draw")
    start = time.perf_counter()
    move = bot.choose(game.observation(1), game.legal_moves())
    assert time.perf_counter() - start < 1.0
    assert move in game.legal_moves()


class Counting(Bot):
    """Wraps a bot and counts the phases it is asked about and the verbs it plays."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(0)
        self.inner = inner
        self.name = inner.name
        self.phases: dict[str, int] = {}
        self.verbs: dict[str, int] = {}

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        phase = observation.protocol_phase
        self.phases[phase] = self.phases.get(phase, 0) + 1
        move = self.inner.choose(observation, legal_moves)
        self.verbs[move.verb] = self.verbs.get(move.verb, 0) + 1
        return move


@pytest.mark.parametrize("name", ["intermediate", "expert"])
def test_bots_answer_rummy_call_windows(name: str) -> None:
    players = [Counting(b) for b in bots([name, "intermediate", "random", "beginner"], 2)]
    play_hands(players, Rules(), seed=0, hands=3)
    me = players[0]
    assert me.phases.get("call", 0) > 0 and me.verbs.get("pass", 0) > 0
    assert sum(p.verbs.get("rummy", 0) for p in players) > 0, "nobody ever called Rummy"


def test_the_searching_levels_count_deals_not_seconds_so_a_slow_clock_changes_no_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """hard and expert search a fixed number of sampled deals: a machine so busy that every
    reading of the clock is a minute later plays the same moves (a time budget would cut the
    search short and play the intermediate choice)."""
    from rummy500.bots import expert as expert_module

    game = Game.new(2, Rules(), seed=5)
    positions = []
    medium = make_bot("medium")
    while len(positions) < 6 and not game.is_hand_over():
        seat = game.to_act
        assert seat is not None
        legal = game.legal_moves()
        obs = game.observation(seat)
        if len(legal) > 2:
            positions.append((obs, legal))
        game.play(medium.choose(obs, legal))
    assert len(positions) == 6

    def decide() -> dict[str, list[tuple[str, int]]]:
        made: dict[str, list[tuple[str, int]]] = {}
        for level in ("hard", "expert"):
            for i, (obs, legal) in enumerate(positions):
                bot = make_bot(level, seed=i)
                assert isinstance(bot, ExpertBot)
                made.setdefault(level, []).append((str(bot.choose(obs, legal)), bot.last_samples))
        return made

    calm = decide()
    ticks = iter(range(0, 10**9, 60))
    monkeypatch.setattr(expert_module._time, "perf_counter", lambda: float(next(ticks)))
    assert decide() == calm
    searched = [n for level in calm.values() for _move, n in level if n]
    assert searched and set(n for _m, n in calm["hard"] if n) == {8}
    assert set(n for _m, n in calm["expert"] if n) == {24}


def test_a_capped_search_stops_at_its_cap_and_chooses_on_the_deals_it_has(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``cap`` (the server's hints): with a clock a minute later at every reading, a search
    capped at a second stops after its first deal, whatever ``samples`` says, and keeps the
    intermediate choice (one deal is no evidence against it); a cap never reached changes
    no move."""
    from rummy500.bots import expert as expert_module

    game = Game.new(2, Rules(), seed=5)
    positions = []
    medium = make_bot("medium")
    while len(positions) < 6 and not game.is_hand_over():
        seat = game.to_act
        assert seat is not None
        legal = tuple(game.legal_moves())
        obs = game.observation(seat)
        if len(legal) > 2:
            positions.append((obs, legal))
        game.play(medium.choose(obs, legal))

    def decide(**options: float) -> list[tuple[Move, int]]:
        made = []
        for i, (obs, legal) in enumerate(positions):
            bot = make_bot("hard", seed=i, **options)
            assert isinstance(bot, ExpertBot)
            made.append((bot.choose(obs, legal), bot.last_samples))
        return made

    calm = decide()
    assert decide(cap=3600.0) == calm
    ticks = iter(range(0, 10**9, 60))
    monkeypatch.setattr(expert_module._time, "perf_counter", lambda: float(next(ticks)))
    capped = decide(cap=1.0)
    searched = [i for i, (_move, n) in enumerate(calm) if n]
    assert searched and all(capped[i][1] == 1 for i in searched)
    for i in searched:
        obs, legal = positions[i]
        assert capped[i][0] == ExpertBot(seed=i).policy.rank(obs, legal)[0]
    with pytest.raises(ValueError, match="time cap must be positive"):
        make_bot("hard", cap=0)


def test_an_unknown_expert_option_is_named_with_the_options_there_are() -> None:
    with pytest.raises(TypeError, match=r"no option 'depth' \(its options: time, samples"):
        make_bot("hard", depth=3)
    assert isinstance(make_bot("expert", settle=2.0), ExpertBot)


def test_the_expert_takes_the_judgement_it_searches_with_as_options() -> None:
    tuned = make_bot("hard", out_value=6.0, danger_weight=4.0)
    assert isinstance(tuned, ExpertBot)
    assert tuned.policy == IntermediatePolicy(out_value=6.0, danger_weight=4.0)
    assert (tuned.samples, tuned.candidates, tuned.horizon) == (8, 4, 12)  # the level's others
    plain = make_bot("hard")
    assert isinstance(plain, ExpertBot) and plain.policy == IntermediatePolicy()
    with pytest.raises(TypeError, match=r"no option 'outs'.*out_value, danger_weight"):
        make_bot("expert", outs=3)
