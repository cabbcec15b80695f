"""Seeded games scripted up to a Rummy call window, found with the engine.

The server deals from the table's seed, so a test that creates a table with one of these seeds
and plays the scripted moves reaches the same window.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from rummy500.engine import CALL, Game, Move, Rules


@dataclass
class Window:
    seed: int
    script: list[str]  # moves up to and including the discard that opens the window
    order: list[int]  # the window's seats, nearest first
    callers: dict[int, list[str]]  # seat -> its legal moves in the window (with a rummy)
    discarder: int
    turn: int  # the next player


def window_callers(game: Game) -> dict[int, list[str]]:
    """Who may call in the open window, with their moves (as the server works them out)."""
    probe = game.clone()
    callers = {}
    for seat in list(game.window):
        legal = probe.legal_moves()
        if any(m.verb == "rummy" for m in legal):
            callers[seat] = [str(m) for m in legal]
        probe.play(Move(seat, "pass"))
        if probe.phase != CALL:
            break
    return callers


def _policy(legal: list[Move], rng: random.Random) -> Move:
    plays = [m for m in legal if m.verb in ("meld", "layoff")]
    if plays:
        return rng.choice(plays)
    for verb in ("draw", "end"):
        for m in legal:
            if m.verb == verb:
                return m
    discards = [m for m in legal if m.verb == "discard"]
    return rng.choice(discards or legal)


def find_window(
    players: int,
    want: Callable[[Window], bool],
    rules: Rules | None = None,
    seeds: range = range(5000),
) -> Window:
    """The first seeded game whose first window with a caller satisfies ``want``; windows
    nobody can call on are passed on the way (the server passes them by itself)."""
    rules = rules or Rules(target=100)
    for seed in seeds:
        game = Game.new(players, rules, seed=seed, max_moves_per_hand=1000)
        rng = random.Random(seed)
        script: list[str] = []
        while game.phase in ("draw", "play") and len(script) < 300:
            move = _policy(game.legal_moves(), rng)
            game.play(move)
            script.append(str(game.moves[-1]))
            if game.phase == CALL:
                callers = window_callers(game)
                if callers:
                    window = Window(
                        seed,
                        [m for m in script if m.split()[1] != "pass"],
                        list(game.window),
                        callers,
                        move.seat,
                        game.turn,
                    )
                    if want(window):
                        return window
                    break
                for seat in list(game.window):
                    game.play(Move(seat, "pass"))
                    script.append(f"P{seat + 1} pass")
    raise LookupError("no such window in the seeds searched")


@dataclass
class Repeat:
    """A game in which ``seat`` lets a call go and, a few moves later, a window opens again in
    which it could claim only cards it let go: ``script`` goes from the deal to that window's
    discard, each pass of a seat that is asked (the server asks only for cards not let go
    before) written out, the passes the server makes by itself left out."""

    seed: int
    script: list[str]
    seat: int
    cards: frozenset[tuple[int, int]]


def _claim(game: Game, seat: int) -> frozenset[tuple[int, int]]:
    pile = game.discard
    return frozenset((len(pile) - d, pile[-d]) for d in game.callable_depths(seat))


def find_repeat(players: int, seeds: range = range(3000)) -> Repeat:
    """The first seeded game (rules ``target=100``) with a :class:`Repeat` in its first hand."""
    rules = Rules(target=100)
    for seed in seeds:
        game = Game.new(players, rules, seed=seed, max_moves_per_hand=1000)
        rng = random.Random(seed)
        script: list[str] = []
        let_go: dict[int, frozenset[tuple[int, int]]] = {}
        while game.phase in ("draw", "play", CALL) and len(script) < 300:
            if game.phase == CALL:
                asked = {}
                for s in game.window:
                    claim = _claim(game, s)
                    if claim and not claim <= let_go.get(s, frozenset()):
                        asked[s] = claim
                    elif claim and let_go.get(s):
                        return Repeat(seed, script, s, claim)
                for s in list(game.window):
                    game.play(Move(s, "pass"))
                    if s in asked:
                        script.append(f"P{s + 1} pass")
                        let_go[s] = let_go.get(s, frozenset()) | asked[s]
                continue
            move = _policy(game.legal_moves(), rng)
            game.play(move)
            script.append(str(game.moves[-1]))
    raise LookupError("no such game in the seeds searched")


@dataclass
class Behind:
    """A game in which a call window asks ``asked`` (the nearest seat still in it) while a
    farther seat, ``quiet``, is not asked (it let those cards go before) and will pass by
    itself once its turn in the window comes: ``script`` goes from the deal to that window's
    discard, each pass of an asked seat written out (as :class:`Repeat`'s)."""

    seed: int
    script: list[str]
    asked: int
    quiet: int
    discarder: int


def find_behind(players: int, seeds: range = range(3000)) -> Behind:
    """The first seeded game (rules ``target=100``) with a :class:`Behind` in its first hand."""
    rules = Rules(target=100)
    for seed in seeds:
        game = Game.new(players, rules, seed=seed, max_moves_per_hand=1000)
        rng = random.Random(seed)
        script: list[str] = []
        let_go: dict[int, frozenset[tuple[int, int]]] = {}
        while game.phase in ("draw", "play", CALL) and len(script) < 300:
            if game.phase == CALL:
                asked = {}
                quiet = []
                for s in game.window:
                    claim = _claim(game, s)
                    if claim and not claim <= let_go.get(s, frozenset()):
                        asked[s] = claim
                    else:
                        quiet.append(s)
                order = list(game.window)
                first = next((s for s in order if s in asked), None)
                if first is not None:
                    behind = [s for s in order[order.index(first) :] if s in quiet]
                    if behind and let_go.get(behind[0]):
                        discarder = Move.parse(script[-1]).seat
                        return Behind(seed, script, first, behind[0], discarder)
                for s in order:
                    game.play(Move(s, "pass"))
                    if s in asked:
                        script.append(f"P{s + 1} pass")
                        let_go[s] = let_go.get(s, frozenset()) | asked[s]
                continue
            move = _policy(game.legal_moves(), rng)
            game.play(move)
            script.append(str(game.moves[-1]))
    raise LookupError("no such game in the seeds searched")
