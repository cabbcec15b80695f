"""Playing one game between bots, and the plan of a whole simulation.

A simulation is a list of :class:`GameTask` values, each complete in itself (bots, seats, rules
and the game's own seed, derived from the master seed and the game index), so that any executor
on any machine plays exactly the same games and gets exactly the same :class:`GameResult`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from rummy500.bots import Bot, make_bot
from rummy500.engine import Game, IllegalMove, Rules, seat_str
from rummy500.i18n import _

__all__ = [
    "DEFAULT_MAX_HANDS",
    "DEFAULT_MOVE_CAP",
    "BotSpec",
    "GameResult",
    "GameTask",
    "parse_bot_spec",
    "plan_games",
    "play_game",
    "play_task",
]

#: Moves per hand after which a hand is scored as if the stock had run out (docs/rules.md §7).
DEFAULT_MOVE_CAP = 1000
#: Hands after which an unfinished game is decided by the highest total.
DEFAULT_MAX_HANDS = 200


@dataclass(frozen=True)
class BotSpec:
    """A bot as a simulation names it: ``label`` in reports, ``name`` and ``options`` to build
    it (``"expert:time=0.2"`` is the bot ``expert`` with the option ``time=0.2``)."""

    label: str
    name: str
    options: tuple[tuple[str, Any], ...] = ()

    def build(self, seed: int) -> Bot:
        return make_bot(self.name, seed=seed, **dict(self.options))


def _option_value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_bot_spec(text: str, label: str | None = None) -> BotSpec:
    """Read ``NAME`` or ``NAME:key=value,key=value`` (the bot is built lazily, in the worker)."""
    name, _sep, rest = text.strip().partition(":")
    options: list[tuple[str, Any]] = []
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(_("bot option {item!r} is not key=value").format(item=item))
        options.append((key.strip(), _option_value(value.strip())))
    make_bot(name, seed=0, **dict(options)).close()  # fail early on a bad name or option
    return BotSpec(label or text.strip(), name.strip(), tuple(options))


@dataclass(frozen=True)
class GameTask:
    """Everything needed to play game number ``index`` of a simulation."""

    index: int
    seed: int
    bots: tuple[BotSpec, ...]  # one per seat
    bot_seeds: tuple[int, ...]
    rules: str
    move_cap: int = DEFAULT_MOVE_CAP
    max_hands: int = DEFAULT_MAX_HANDS
    record: bool = False
    timing: bool = False


@dataclass
class GameResult:
    """What happened in one game (JSON-ready with :meth:`to_json`)."""

    index: int
    seed: int
    seats: list[str]  # bot label per seat
    winner: str | None  # label of the winner
    winner_seat: int | None
    totals: list[int]
    hand_scores: list[list[int]]  # per hand, per seat
    capped_hands: int
    moves: int
    adjudicated: bool  # stopped after max_hands: the highest total won
    record: str | None = None
    move_seconds: dict[str, list[float]] = field(default_factory=dict)  # label -> choice times

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("move_seconds")
        if self.record is None:
            data.pop("record")
        return data


def derive_seed(master: int, *parts: object) -> int:
    """A 63-bit seed from the master seed and the given parts (stable across Python runs)."""
    return random.Random(":".join(["rummy500-sim", str(master), *map(str, parts)])).getrandbits(63)


def plan_games(
    bots: Sequence[BotSpec],
    players: int,
    games: int,
    rules: Rules,
    seed: int,
    *,
    duplicate: bool = True,
    move_cap: int = DEFAULT_MOVE_CAP,
    max_hands: int = DEFAULT_MAX_HANDS,
    record: bool = False,
    timing: bool = False,
) -> list[GameTask]:
    """The games of a simulation, in order.

    The bots take the seats in the order given; when there are fewer bots than players the last
    one fills the remaining seats. The seats rotate by one from each game to the next. With two
    players and ``duplicate``, games come in pairs on the same deals (the same game seed) with
    the seats swapped, which takes most of the luck of the cards out of the comparison.
    """
    if not bots:
        raise ValueError(_("name at least one bot"))
    if len(bots) > players:
        raise ValueError(
            _("{n} bots for {players} seats: name at most one bot per seat").format(
                n=len(bots), players=players
            )
        )
    lineup = list(bots) + [bots[-1]] * (players - len(bots))
    tasks = []
    paired = duplicate and players == 2
    for index in range(games):
        deal = index // 2 if paired else index
        shift = index % players
        seats = tuple(lineup[(s - shift) % players] for s in range(players))
        slots = tuple((s - shift) % players for s in range(players))
        game_seed = derive_seed(seed, "game", deal)
        tasks.append(
            GameTask(
                index=index,
                seed=game_seed,
                bots=seats,
                bot_seeds=tuple(derive_seed(seed, "bot", deal, slot) for slot in slots),
                rules=str(rules),
                move_cap=move_cap,
                max_hands=max_hands,
                record=record,
                timing=timing,
            )
        )
    return tasks


def play_task(task: GameTask, players: Mapping[str, Bot] | None = None) -> GameResult:
    """Play one planned game (the function every executor runs).

    ``players`` maps labels to bots that already exist and outlive the game (external bots in
    a ``bot-match``); the others are built for this game from their spec and seed.
    """
    players = players or {}
    bots = [
        players[spec.label] if spec.label in players else spec.build(seed)
        for spec, seed in zip(task.bots, task.bot_seeds, strict=True)
    ]
    try:
        return play_game(
            bots,
            Rules.parse(task.rules),
            task.seed,
            labels=[spec.label for spec in task.bots],
            index=task.index,
            move_cap=task.move_cap,
            max_hands=task.max_hands,
            record=task.record,
            timing=task.timing,
        )
    finally:
        for spec, bot in zip(task.bots, bots, strict=True):
            if spec.label not in players:
                bot.close()


def play_game(
    bots: Sequence[Bot],
    rules: Rules,
    seed: int,
    *,
    labels: Sequence[str] | None = None,
    index: int = 0,
    move_cap: int = DEFAULT_MOVE_CAP,
    max_hands: int = DEFAULT_MAX_HANDS,
    record: bool = False,
    timing: bool = False,
) -> GameResult:
    """Play a whole game, one bot per seat, to the target (or ``max_hands`` hands).

    Each bot is given only its seat's observation and a copy of the legal moves. A built-in bot
    that answers with an illegal move is a bug: :class:`IllegalMove` is raised with the move.
    """
    players = len(bots)
    labels = list(labels) if labels is not None else [b.name for b in bots]
    game = Game.new(players, rules, seed=seed, max_moves_per_hand=move_cap)
    clock = time.perf_counter
    times: dict[str, list[float]] = {}
    moves = 0
    while True:
        while not game.is_hand_over():
            seat = game.to_act
            assert seat is not None
            legal = game.legal_moves()
            observation = game.observation(seat)
            t0 = clock() if timing else 0.0
            move = bots[seat].choose(observation, legal)
            if timing and len(legal) > 1:
                times.setdefault(labels[seat], []).append(clock() - t0)
            try:
                game.play(move)
            except IllegalMove as e:
                e.add_note(
                    _("{bot} at {seat} played the illegal move {move!r}: {reason}").format(
                        bot=labels[seat], seat=seat_str(seat), move=str(move), reason=e
                    )
                )
                raise
            moves += 1
        hands = [tuple(game.hand(s)) for s in range(players)]
        for s, bot in enumerate(bots):
            bot.hand_over(game.observation(s), hands)
        if game.is_game_over() or game.hand_number >= max_hands:
            break
        game.deal()
    adjudicated = game.winner is None
    winner_seat = game.winner
    if winner_seat is None:
        best = max(game.totals)
        if game.totals.count(best) == 1:
            winner_seat = game.totals.index(best)
    for s, bot in enumerate(bots):
        bot.game_over(game.observation(s))
    text = None
    if record:
        from rummy500.notation import format_record

        comment = _("game {n}, seed {seed}: {seats}").format(
            n=index + 1,
            seed=seed,
            seats=", ".join(f"{seat_str(s)}={label}" for s, label in enumerate(labels)),
        )
        text = format_record(game, comment=comment)
    return GameResult(
        index=index,
        seed=seed,
        seats=labels,
        winner=None if winner_seat is None else labels[winner_seat],
        winner_seat=winner_seat,
        totals=list(game.totals),
        hand_scores=[list(r.scores) for r in game.hand_results],
        capped_hands=sum(1 for r in game.hand_results if r.capped),
        moves=moves,
        adjudicated=adjudicated,
        record=text,
        move_seconds=times,
    )
