"""What one seat may know, and full states consistent with it (for search bots).

:func:`observe` is the only way knowledge leaves a :class:`Game` for a seat: its own hand, the
table with who played each card, the whole discard pile, hand sizes, the stock *size*, scores,
this hand's public history, and the cards each opponent is known to hold because they took them
from the discard pile. Other hands and the order of the stock never appear in it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rummy500.engine.cards import JOKER, NUM_CODES, deck
from rummy500.engine.melds import TableMeld, presence_mask
from rummy500.engine.moves import Move
from rummy500.engine.rules import Rules
from rummy500.engine.state import (
    CALL,
    DRAW,
    Game,
    HandResult,
    _Hand,
    _meld_from_cards,
    decks_for,
)

__all__ = ["MeldView", "Observation", "observe", "sample_state"]


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld on the table: its number, cards as played (run order for runs), who played each."""

    number: int
    is_run: bool
    cards: tuple[int, ...]
    played_by: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything ``seat`` may know at this moment. Immutable."""

    seat: int
    players: int
    rules: Rules
    hand_number: int
    dealer: int
    phase: str  # "draw", "play", "call", "hand_over", "game_over"
    to_act: int | None
    turn: int
    hand: tuple[int, ...]
    discard_pile: tuple[int, ...]  # bottom first, top last
    stock_size: int
    melds: tuple[MeldView, ...]
    hand_sizes: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]  # per seat, cards known to be in that hand
    totals: tuple[int, ...]
    points: tuple[int, ...]  # points melded and laid off this hand, per seat
    history: tuple[Move, ...]  # this hand's moves (draws never show a card)
    must_use: int  # card to meld first, or -1
    must_mode: int
    no_discard: int
    resume: int
    window: tuple[int, ...]
    hand_results: tuple[HandResult, ...]
    winner: int | None

    @property
    def floating(self) -> bool:
        """Whether this seat is floating (has melded all its cards and waits for its turn)."""
        return not self.hand and self.phase in (DRAW, "play")

    @property
    def protocol_phase(self) -> str:
        """The phase as the bot protocol names it: draw, play, call or float."""
        if self.phase == CALL:
            return "call"
        if self.phase == DRAW and not self.hand and self.to_act == self.seat:
            return "float"
        return self.phase


def observe(game: Game, seat: int) -> Observation:
    """The observation of ``seat`` in ``game``."""
    return Observation(
        seat=seat,
        players=game.players,
        rules=game.rules,
        hand_number=game.hand_number,
        dealer=game.dealer,
        phase=game.phase,
        to_act=game.to_act,
        turn=game.turn,
        hand=tuple(game.hand(seat)),
        discard_pile=tuple(game.discard),
        stock_size=len(game.stock),
        melds=tuple(
            MeldView(m.number, m.is_run, tuple(m.cards), tuple(m.owners)) for m in game.melds
        ),
        hand_sizes=tuple(game.hand_sizes),
        known=tuple(tuple(c for c in range(NUM_CODES) for _ in range(kn[c])) for kn in game.known),
        totals=tuple(game.totals),
        points=tuple(game.points),
        history=tuple(game.moves),
        must_use=game.must_use,
        must_mode=game.must_mode,
        no_discard=game.no_discard,
        resume=game.resume,
        window=tuple(game.window),
        hand_results=tuple(game.hand_results),
        winner=game.winner,
    )


def unseen_cards(obs: Observation) -> list[int]:
    """The cards ``obs.seat`` cannot place: in other hands (beyond the known ones) or the stock."""
    counts = [0] * NUM_CODES
    for c in deck(decks_for(obs.players), obs.rules.with_jokers):
        counts[c] += 1
    seen = list(obs.hand) + list(obs.discard_pile)
    for m in obs.melds:
        seen.extend(c if c < 100 else JOKER for c in m.cards)
    for s, cards in enumerate(obs.known):
        if s != obs.seat:
            seen.extend(cards)
    for c in seen:
        counts[c] -= 1
    return [c for c in range(NUM_CODES) for _ in range(counts[c])]


def sample_state(obs: Observation, rng: random.Random) -> Game:
    """A full game consistent with ``obs``: the unseen cards dealt at random to the other hands
    (beside the cards known to be there) and the stock. For determinized search."""
    game = Game(obs.players, obs.rules, seed=rng.getrandbits(63), totals=obs.totals)
    unseen = unseen_cards(obs)
    rng.shuffle(unseen)
    hands: list[list[int]] = []
    for s in range(obs.players):
        counts = [0] * NUM_CODES
        if s == obs.seat:
            cards = list(obs.hand)
        else:
            cards = list(obs.known[s])
            need = obs.hand_sizes[s] - len(cards)
            cards += unseen[:need]
            del unseen[:need]
        for c in cards:
            counts[c] += 1
        hands.append(counts)
    game.hands = hands
    game.masks = [presence_mask(h) for h in hands]
    game.hand_sizes = list(obs.hand_sizes)
    game.known = []
    for known in obs.known:
        kn = [0] * NUM_CODES
        for c in known:
            kn[c] += 1
        game.known.append(kn)
    game.stock = unseen  # what is left, in random order
    game.discard = list(obs.discard_pile)
    game.melds = [_rebuild(m) for m in obs.melds]
    game.points = list(obs.points)
    game.hand_number = obs.hand_number
    game.dealer = obs.dealer
    game.phase = obs.phase
    game.turn = obs.turn
    game.window = list(obs.window)
    game.must_use = obs.must_use
    game.must_mode = obs.must_mode
    game.no_discard = obs.no_discard
    game.resume = obs.resume
    game.hand_results = list(obs.hand_results)
    game.winner = obs.winner
    game.record = [_Hand(obs.hand_number, obs.dealer, None, list(obs.history))]
    game.moves = game.record[0].moves
    game._reset_caches()
    return game


def _rebuild(view: MeldView) -> TableMeld:
    return _meld_from_cards(view.number, list(view.cards), list(view.played_by))
