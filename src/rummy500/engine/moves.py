"""Moves: small immutable values that print in the notation of docs/notation.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NamedTuple, TypeAlias, TypeVar

from rummy500.engine.cards import card_str, parse_card, parse_played, played_str
from rummy500.engine.errors import NotationError
from rummy500.i18n import _

__all__ = [
    "VERBS",
    "Move",
    "Seat",
    "by_seat",
    "is_number",
    "parse_seat",
    "seat_label",
    "seat_str",
]

#: A seat, as every API takes and returns it: its place in table order counted from 0, so the
#: first seat is 0. Every text shows it as ``P1`` … ``Pn`` (:func:`seat_label`), and every text
#: is read back with :func:`parse_seat`; nothing else converts between the two.
Seat: TypeAlias = int

VERBS: Final = ("draw", "take", "meld", "layoff", "discard", "rummy", "end", "pass")


def is_number(text: str) -> bool:
    """Whether ``text`` is a whole number written with the digits 0-9 (not ``²`` or ``٣``)."""
    return text.isascii() and text.isdigit()


_is_number = is_number


def seat_label(seat: Seat) -> str:
    """The seat as every text writes it: ``seat_label(0) == "P1"``.

    Raises ``ValueError`` for a negative number, which is no seat (a seat counted twice from 1
    would show as ``P0``).
    """
    if seat < 0:
        raise ValueError(f"{seat} is not a seat: seats are counted from 0 (P1)")
    return f"P{seat + 1}"


def seat_str(seat: Seat) -> str:
    """``0`` -> ``"P1"``: :func:`seat_label` without its check, the name most of the code
    calls it by."""
    return f"P{seat + 1}"


_T = TypeVar("_T")


def by_seat(values: Sequence[_T]) -> dict[str, _T]:
    """One value a seat, keyed by the seats' labels, as JSON carries them:
    ``by_seat([3, 4]) == {"P1": 3, "P2": 4}``."""
    return {f"P{s + 1}": v for s, v in enumerate(values)}


def parse_seat(text: str, players: int | None = None) -> Seat:
    """The seat a label names: ``parse_seat("P1") == 0`` (any case, spaces around).

    With ``players``, only a seat of a game of that many players is accepted. Raises
    :class:`NotationError` with a sentence for the player.
    """
    t = text.strip().upper()
    if len(t) < 2 or t[0] != "P" or not _is_number(t[1:]) or int(t[1:]) < 1:
        raise NotationError(_("{seat!r} is not a seat (P1, P2, …)").format(seat=text))
    seat = int(t[1:]) - 1
    if players is not None and seat >= players:
        raise NotationError(
            _("{seat!r} is not a seat of this game: its seats are P1 to P{last}").format(
                seat=text, last=players
            )
        )
    return seat


class Move(NamedTuple):
    """One move of one seat. ``str(move)`` is its notation; :meth:`parse` reads it.

    - ``seat``: a :data:`Seat`, counted from 0 (``P1`` is 0);
    - ``verb``: one of :data:`VERBS`;
    - ``cards``: the cards as played (meld), the card laid off or discarded;
    - ``number``: how many cards for ``take``/``rummy``, the meld number for ``layoff``;
    - ``end``: ``"low"``/``"high"`` for a lay-off that could go at either end of a run.
    """

    seat: Seat
    verb: str
    cards: tuple[int, ...] = ()
    number: int = 0
    end: str = ""

    def __str__(self) -> str:
        head = f"P{self.seat + 1} {self.verb}"
        verb = self.verb
        if verb in ("draw", "end", "pass"):
            return head
        if verb in ("take", "rummy"):
            return f"{head} {self.number}"
        if verb == "meld":
            return head + " " + " ".join(played_str(c) for c in self.cards)
        if verb == "layoff":
            tail = f" {self.end}" if self.end else ""
            return f"{head} {played_str(self.cards[0])} {self.number}{tail}"
        return f"{head} {card_str(self.cards[0])}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """The move as JSON, read without parsing: its notation (``move``) and its parts.

        ``cards`` as played (a joker with what it stands for: ``JK=8H``), ``number`` the cards
        taken (``take``, ``rummy``) or the meld laid off on (``layoff``), ``end`` ``"low"`` or
        ``"high"`` for a lay-off at a chosen end of a run; ``null`` where the verb has none.

        >>> Move.parse("P2 layoff JK=8H 1 low").to_json()["cards"]
        ['JK=8H']
        """
        verb = self.verb
        return {
            "move": str(self),
            "seat": seat_str(self.seat),
            "verb": verb,
            "cards": [played_str(c) for c in self.cards],
            "number": self.number if verb in ("take", "rummy", "layoff") else None,
            "end": self.end or None,
        }

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a move in notation: ``Move.parse("P2 take 3")``."""
        words = text.split()
        if len(words) < 2:
            raise NotationError(
                _("{text!r} is not a move: expected a seat and a verb, like 'P2 draw'").format(
                    text=text.strip()
                )
            )
        seat = parse_seat(words[0])
        verb = words[1].lower()
        args = words[2:]
        if verb in ("draw", "end", "pass"):
            if args:
                raise NotationError(_("'{verb}' takes no arguments").format(verb=verb))
            return cls(seat, verb)
        if verb in ("take", "rummy"):
            if len(args) != 1 or not _is_number(args[0]) or int(args[0]) < 1:
                raise NotationError(
                    _("'{verb}' needs a number of cards, like '{verb} 2'").format(verb=verb)
                )
            return cls(seat, verb, number=int(args[0]))
        if verb == "meld":
            if not args:
                raise NotationError(_("'meld' needs cards, like 'meld 4H 5H 6H'"))
            return cls(seat, verb, tuple(parse_played(a) for a in args))
        if verb == "layoff":
            if len(args) not in (2, 3) or not _is_number(args[1]):
                raise NotationError(
                    _("'layoff' needs a card and a meld number, like 'layoff 8H 1'")
                )
            end = args[2].lower() if len(args) == 3 else ""
            if end not in ("", "low", "high"):
                raise NotationError(
                    _("a lay-off ends with 'low' or 'high', not {word!r}").format(word=args[2])
                )
            return cls(seat, verb, (parse_played(args[0]),), int(args[1]), end)
        if verb == "discard":
            if len(args) != 1:
                raise NotationError(_("'discard' needs one card, like 'discard 2C'"))
            return cls(seat, verb, (parse_card(args[0]),))
        raise NotationError(
            _("unknown verb {verb!r} (draw, take, meld, layoff, discard, rummy, end, pass)").format(
                verb=words[1]
            )
        )
