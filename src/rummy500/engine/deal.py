"""Deals: the seeded shuffle, a hand's cards before the first move (:class:`Deal`), and the
record of a hand (its deal and moves)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from hashlib import sha512
from typing import Final, NamedTuple

from rummy500.engine.cards import (
    JOKER,
    NUM_CODES,
    card_str,
    deck,
    decks_for,
    hand_size_for,
)
from rummy500.engine.errors import (
    InvalidDeal,
)
from rummy500.engine.moves import Move, seat_str
from rummy500.engine.rules import Rules
from rummy500.i18n import _

try:  # the generator random.Random extends, in C: seeded by its constructor
    from _random import Random as _Twister
except ImportError:  # pragma: no cover (an interpreter without CPython's _random)
    from random import Random as _Twister  # type: ignore[assignment]


def generator(seed: int | str) -> _Twister:
    """A Mersenne Twister seeded exactly as ``random.Random(seed)`` is (the same numbers
    follow), without ``random.py``'s seeding written in Python (about 7% of a compiled hand went to
    it): an int seeds the C generator itself, and text is first made an int as ``random.Random``
    does (version 2: the UTF-8 text followed by its SHA-512, read as one big-endian number)."""
    if isinstance(seed, str):
        text = seed.encode()
        return _Twister(int.from_bytes(text + sha512(text).digest(), "big"))
    return _Twister(seed)


def shuffle(cards: list[int], seed: int | str) -> None:
    """Shuffle ``cards`` in place exactly as ``random.Random(seed).shuffle`` does (Fisher-Yates
    from the end, each index drawn by rejection from ``getrandbits``), written out here so that
    the project's deals stay the same whatever a Python version does, and faster."""
    getrandbits = generator(seed).getrandbits
    for i, k in _SWAPS[len(cards)]:
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


_SWAPS: Final = [tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1)) for n in range(109)]


@cache
def _deck(decks: int, jokers: bool) -> tuple[int, ...]:
    return tuple(deck(decks, jokers))


class Deal(NamedTuple):
    """The cards of one hand before the first move: each seat's hand, the turned-up discard, and
    the stock top first."""

    hands: tuple[tuple[int, ...], ...]
    discard: int
    stock: tuple[int, ...]

    @classmethod
    def shuffled(cls, players: int, rules: Rules, seed: int | str, dealer: int = 0) -> Deal:
        """The project's own shuffle: ``random.Random(seed)`` shuffles the deck in canonical
        order; cards are dealt one at a time clockwise from the left of the dealer."""
        cards = list(_deck(decks_for(players), rules.with_jokers))
        shuffle(cards, seed)
        size = hand_size_for(players)
        dealt = size * players
        hands: list[tuple[int, ...]] = [()] * players
        for k in range(players):  # the k-th seat from the dealer's left gets every players-th card
            hands[(dealer + 1 + k) % players] = tuple(sorted(cards[k:dealt:players]))
        return cls(tuple(hands), cards[dealt], tuple(cards[dealt + 1 :]))

    def validate(self, players: int, rules: Rules) -> None:
        """Raise :class:`InvalidDeal` unless this deal is exactly the deck for ``players``."""
        if len(self.hands) != players:
            raise InvalidDeal(
                _("the deal has {n} hands for {players} players").format(
                    n=len(self.hands), players=players
                )
            )
        size = hand_size_for(players)
        for seat, hand in enumerate(self.hands):
            if len(hand) != size:
                raise InvalidDeal(
                    _("{seat} has {n} cards; with {players} players each gets {size}").format(
                        seat=seat_str(seat), n=len(hand), players=players, size=size
                    )
                )
        check_cards_fit(
            [c for h in self.hands for c in h] + [self.discard] + list(self.stock), players, rules
        )
        if len(self.hands) * size + 1 + len(self.stock) != len(
            deck(decks_for(players), rules.with_jokers)
        ):
            raise InvalidDeal(_("the deal is missing cards of the deck"))


def check_cards_fit(cards: Iterable[int], players: int, rules: Rules) -> None:
    """Raise :class:`InvalidDeal` if ``cards`` hold more copies of a card than the deck has."""
    decks = decks_for(players)
    counts = [0] * NUM_CODES
    for c in cards:
        counts[c] += 1
        if c == JOKER:
            if not rules.with_jokers:
                raise InvalidDeal(_("there are no jokers when jokers are off"))
            if counts[c] > 2 * decks:
                raise InvalidDeal(_("too many jokers: the deck has {n}").format(n=2 * decks))
        elif counts[c] > decks:
            raise InvalidDeal(
                _("too many copies of {card}: the deck has {n}").format(card=card_str(c), n=decks)
            )


@dataclass
class HandHistory:
    """The record of one hand: its deal and its moves (for writing records)."""

    number: int
    dealer: int
    deal: Deal | None
    moves: list[Move] = field(default_factory=list)
