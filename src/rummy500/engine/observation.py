"""What one seat may know: :class:`Observation`, an immutable value.

:meth:`Game.observation` is the only way knowledge leaves a game for a seat: its own hand, the
table with who played each card, the whole discard pile, hand sizes, the stock *size*, scores,
this hand's public history, and the cards each opponent is known to hold because they took them
from the discard pile. Other hands and the order of the stock never appear in it.
:meth:`Game.from_observation` deals a full game consistent with one (for search bots).

:meth:`Observation.to_json` is the one encoding of an observation as JSON (cards and moves in
notation, seats as ``P1`` … ``P8``): the table server's views and the bot protocol's ``act``
requests are both made from it.

This module knows nothing of the game's state: it imports only cards, moves, rules and the
small values of :mod:`rummy500.engine.phases`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from rummy500.engine.cards import JOKER, JOKER_AS, NUM_CODES, card_str, deck, decks_for, played_str
from rummy500.engine.moves import Move, by_seat, seat_str
from rummy500.engine.phases import HandResult, Obligation, ObligationKind, Phase
from rummy500.engine.rules import Rules

__all__ = ["MeldView", "Observation", "own_json", "unseen_cards"]


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld on the table: its number, cards as played (run order for runs), who played each."""

    number: int
    is_run: bool
    cards: tuple[int, ...]
    played_by: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"number": 1, "run": true, "cards": ["4H", "JK=5H", "6H"], "played_by": [...]}``."""
        return {
            "number": self.number,
            "run": self.is_run,
            "cards": [played_str(c) for c in self.cards],
            "played_by": [seat_str(s) for s in self.played_by],
        }

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its constructor's arguments: the compiled build's frozen classes refuse
        # the attribute assignment of pickle's default way (the server's search workers
        # receive observations by pickle).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything ``seat`` may know at this moment. Immutable."""

    seat: int
    players: int
    rules: Rules
    hand_number: int
    dealer: int
    phase: Phase
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
        return not self.hand and self.phase in (Phase.DRAW, Phase.PLAY)

    def to_json(self, *, own: bool = True, history: bool = True) -> dict[str, Any]:
        """What this seat may know, as JSON values: cards in notation, seats as ``P1`` … ``P8``,
        moves in notation (docs/protocol.md, the ``view``).

        Everyone's part first: the table, the pile, sizes, points and totals, the known cards;
        with ``history`` this hand's public moves and every finished hand's result; with
        ``own`` the seat's own part last (:func:`own_json`: ``seat``, ``hand``, ``floating``).
        """
        seat = seat_str
        view: dict[str, Any] = {
            "hand_number": self.hand_number,
            "dealer": seat(self.dealer),
            "phase": str(self.phase),
            "to_act": None if self.to_act is None else seat(self.to_act),
            "turn": seat(self.turn),
            "window": [seat(s) for s in self.window],
            "discard_pile": [card_str(c) for c in self.discard_pile],
            "stock_size": self.stock_size,
            "melds": [m.to_json() for m in self.melds],
            "hand_sizes": by_seat(self.hand_sizes),
            "known_cards": by_seat([[card_str(c) for c in k] for k in self.known]),
            "points": by_seat(self.points),
            "totals": by_seat(self.totals),
            "must_use": card_str(self.must_use) if self.must_use >= 0 else None,
            "winner": None if self.winner is None else seat(self.winner),
        }
        if history:
            view["history"] = [str(m) for m in self.history]
            view["hand_results"] = [r.to_json() for r in self.hand_results]
        if own:
            view.update(own_json(self.seat, self.hand, self.phase))
        return view

    @property
    def obligation(self) -> Obligation | None:
        """The card this seat must meld or lay off before anything else, and how."""
        if self.phase != Phase.PLAY or self.must_use < 0 or self.to_act != self.seat:
            return None
        kind = (ObligationKind.MELD, ObligationKind.NEW_MELD, ObligationKind.LAYOFF)
        return Obligation(self.must_use, kind[self.must_mode])

    @property
    def discarder(self) -> int | None:
        """In a call window, the seat whose discard opened it."""
        return (self.turn - 1) % self.players if self.phase == Phase.CALL else None

    @property
    def protocol_phase(self) -> str:
        """The phase as the bot protocol names it: draw, play, call or float."""
        if self.phase == Phase.CALL:
            return "call"
        if self.phase == Phase.DRAW and not self.hand and self.to_act == self.seat:
            return "float"
        return self.phase

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its constructor's arguments: the compiled build's frozen classes refuse
        # the attribute assignment of pickle's default way (the server's search workers
        # receive observations by pickle).
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))


def own_json(seat: int, hand: Sequence[int], phase: str) -> dict[str, Any]:
    """The part of an observation's JSON only its seat sees: the seat, its cards, and whether
    it floats (no cards left while the hand goes on). A server that has the public part
    already adds this one for each seat without a whole observation of it."""
    return {
        "seat": seat_str(seat),
        "hand": [card_str(c) for c in hand],
        "floating": not hand and phase in (Phase.DRAW, Phase.PLAY),
    }


def unseen_cards(obs: Observation) -> list[int]:
    """The cards ``obs.seat`` cannot place: in other hands (beyond the known ones) or the stock."""
    counts = [0] * NUM_CODES
    for c in deck(decks_for(obs.players), obs.rules.with_jokers):
        counts[c] += 1
    seen = list(obs.hand) + list(obs.discard_pile)
    for m in obs.melds:
        seen.extend(c if c < JOKER_AS else JOKER for c in m.cards)
    for s, cards in enumerate(obs.known):
        if s != obs.seat:
            seen.extend(cards)
    for c in seen:
        counts[c] -= 1
    return [c for c in range(NUM_CODES) for _ in range(counts[c])]
