"""Cards as small integers, and their notation.

A natural card is ``suit * 13 + rank`` with ranks ``A 2 … K`` as 0 … 12 and suits ``C D H S`` as
0 … 3, so 0 … 51 in the canonical order of docs/notation.md (clubs, diamonds, hearts, spades; each
A … K). The joker is 52. Copies of a card (two decks) share a code: they are interchangeable.

On the table a joker stands for something, and a card *as played* is one integer too:

- a natural card: its own code, 0 … 51;
- a joker standing for an exact card (in a run): ``JOKER_AS + card`` (100 … 151);
- a joker standing for a rank (in a group): ``JOKER_RANK + rank`` (200 … 212).

Positions in a run go from 0 (a low ace) through 1 … 12 (2 … K) to 13 (a high ace).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from rummy500.engine.errors import NotationError
from rummy500.i18n import _

__all__ = [
    "JOKER",
    "JOKER_AS",
    "JOKER_RANK",
    "NUM_CODES",
    "RANKS",
    "SUITS",
    "card_code",
    "card_counts",
    "card_str",
    "cards_str",
    "deck",
    "decks_for",
    "hand_size_for",
    "parse_card",
    "parse_played",
    "physical",
    "played_str",
    "rank_of",
    "suit_of",
]

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
JOKER: Final = 52
NUM_CODES: Final = 53
JOKER_AS: Final = 100
JOKER_RANK: Final = 200

_CARD_STRS: Final = [r + s for s in SUITS for r in RANKS] + ["JK"]


def card_code(rank: int, suit: int) -> int:
    """The code of the natural card of ``rank`` (0 = ace … 12 = king) and ``suit`` (0 = clubs …)."""
    return suit * 13 + rank


def rank_of(card: int) -> int:
    return card % 13


def suit_of(card: int) -> int:
    return card // 13


def card_str(card: int) -> str:
    """``"AS"``, ``"TD"``, ``"JK"``."""
    return _CARD_STRS[card]


def _parse_rank(text: str) -> int:
    t = text.upper()
    if t == "10":
        t = "T"
    if len(t) != 1 or t not in RANKS:
        raise NotationError(_("unknown rank {rank!r}").format(rank=text))
    return RANKS.index(t)


def parse_card(text: str) -> int:
    """Read a card (``"as"``, ``"10H"``, ``"JK"``); case-insensitive."""
    t = text.strip().upper()
    if t == "JK":
        return JOKER
    if len(t) < 2:
        raise NotationError(_("{card!r} is not a card").format(card=text))
    suit = t[-1]
    if suit not in SUITS:
        raise NotationError(_("{card!r} is not a card: unknown suit").format(card=text))
    try:
        rank = _parse_rank(t[:-1])
    except NotationError:
        raise NotationError(_("{card!r} is not a card: unknown rank").format(card=text)) from None
    return card_code(rank, SUITS.index(suit))


def parse_played(text: str) -> int:
    """Read a card as played: ``"8H"``, ``"JK=8H"`` (joker as a card), ``"JK=9"`` (as a rank)."""
    t = text.strip().upper()
    if t.startswith("JK="):
        meaning = t[3:]
        if meaning and meaning[-1] in SUITS and len(meaning) >= 2:
            return JOKER_AS + parse_card(meaning)
        try:
            return JOKER_RANK + _parse_rank(meaning)
        except NotationError:
            raise NotationError(
                _("{card!r}: a joker stands for a card (JK=8H) or a rank (JK=9)").format(card=text)
            ) from None
    return parse_card(t)


def played_str(played: int) -> str:
    """Notation of a card as played: ``"8H"``, ``"JK=8H"``, ``"JK=9"``, or ``"JK"``."""
    if played < JOKER_AS:
        return _CARD_STRS[played]
    if played < JOKER_RANK:
        return "JK=" + _CARD_STRS[played - JOKER_AS]
    return "JK=" + RANKS[played - JOKER_RANK]


def physical(played: int) -> int:
    """The card in the hand that was played: the natural itself, or the joker."""
    return played if played < JOKER_AS else JOKER


def card_counts(cards: Iterable[int]) -> list[int]:
    """How many of each card code (0-52) ``cards`` hold: a new list of ``NUM_CODES`` counts.
    Cards as played count as the card in the hand (a joker as a joker)."""
    counts = [0] * NUM_CODES
    for c in cards:
        counts[c if c < JOKER_AS else JOKER] += 1
    return counts


def deck(decks: int = 1, jokers: bool = True) -> list[int]:
    """The cards of ``decks`` decks in canonical order (C, D, H, S; A … K; then jokers)."""
    cards: list[int] = []
    for _i in range(decks):
        cards.extend(range(52))
    cards.sort()
    if jokers:
        cards.extend([JOKER] * (2 * decks))
    return cards


def decks_for(players: int) -> int:
    """One deck for 2–4 players, two for 5–8 (docs/rules.md §1)."""
    return 2 if players >= 5 else 1


def hand_size_for(players: int) -> int:
    """13 cards each with 2 players, 7 with 3 or more."""
    return 13 if players == 2 else 7


def cards_str(cards: Iterable[int]) -> str:
    """Notation of several cards, separated by spaces: ``"4H 5H JK"``."""
    return " ".join(card_str(c) for c in cards)


def sort_key_suit(card: int) -> int:
    """Sort by suit then rank, jokers last (the order the code already has)."""
    return card
