"""Why a move is refused, as data: a stable code, its parameters, and the sentence for players.

Every :class:`IllegalMove` (and :class:`AmbiguousMoveError`, the two errors defined here with
the reasons they put into words) carries a ``code`` (one of :data:`REASONS`) and ``params``:
cards as integer codes, seats as 0-based indices, meld numbers and limits as integers.
:func:`reason_text` puts them into words in the current language, with cards as players read
them (``5♥``, ``10♠``, the joker as ``Joker``, a joker on the table as ``Joker=8♥``) and seats
by name when the names are given. The codes and their parameters are part of the public API:
front ends and clients (the table server's ``error`` messages) show them in their own words and
languages.

Parameter names say what a value is: ``card`` and ``must`` are cards in a hand, ``played`` a
card as played on the table (a joker with what it stands for), ``cards`` several played cards,
``seat`` and ``other`` seats, ``end`` ``"low"`` or ``"high"``, ``rank`` a rank (0 = ace … 12 =
king), ``n``, ``meld`` and ``limit`` integers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rummy500.engine.cards import JOKER, JOKER_AS, JOKER_RANK, card_str, played_str
from rummy500.engine.errors import MoveError
from rummy500.engine.moves import Move
from rummy500.i18n import N_, _

__all__ = [
    "RANK_LABELS",
    "REASONS",
    "AmbiguousMoveError",
    "IllegalMove",
    "IllegalMoveError",
    "SUIT_SYMBOLS",
    "card_label",
    "card_name",
    "cards_label",
    "cards_name",
    "params_json",
    "played_label",
    "played_name",
    "reason_text",
]

SUIT_SYMBOLS = "♣♦♥♠"
RANK_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def card_label(card: int) -> str:
    """A card in a hand, compact for a cell of a grid: ``"10♥"``, ``"A♠"``, ``"JK"`` (the
    joker). A sentence or a choice names it with :func:`card_name`."""
    if card == JOKER:
        return "JK"
    return RANK_LABELS[card % 13] + SUIT_SYMBOLS[card // 13]


def played_label(played: int) -> str:
    """A card as played on the table, compact for a cell of a grid: ``"8♥"``, ``"*8♥"`` (a
    joker as the 8♥), ``"*9"``. A sentence or a choice names it with :func:`played_name`."""
    if played < JOKER_AS:
        return card_label(played)
    if played < JOKER_RANK:
        return "*" + card_label(played - JOKER_AS)
    return "*" + RANK_LABELS[played - JOKER_RANK]


def cards_label(cards: Sequence[int]) -> str:
    """Cards as played, separated by spaces, compact (:func:`played_label`)."""
    return " ".join(played_label(c) for c in cards)


def card_name(card: int) -> str:
    """A card in a hand or on the discard pile, for a sentence a player reads, in the current
    language: ``"10♥"``, ``"A♠"``, ``"Joker"`` (the joker) — as the browser writes it."""
    if card == JOKER:
        return _("Joker")
    return card_label(card)


def played_name(played: int) -> str:
    """A card as played on the table, for a sentence a player reads, in the current language:
    ``"8♥"``, ``"Joker=8♥"`` (a joker as the 8♥), ``"Joker=9"`` (a joker as a 9 of a group)
    — as the browser writes it; a joker not declared yet is ``"Joker"``."""
    if played < JOKER_AS:
        return card_name(played)
    if played < JOKER_RANK:
        card = card_label(played - JOKER_AS)
    else:
        card = RANK_LABELS[played - JOKER_RANK]
    return _("Joker={card}").format(card=card)


def cards_name(cards: Sequence[int]) -> str:
    """Cards as played, for a sentence (:func:`played_name`), separated by spaces."""
    return " ".join(played_name(c) for c in cards)


#: Every reason a move can be refused for: code → English template (translated when shown).
REASONS: dict[str, str] = {
    # the game and its seats
    "game_over": N_("the game is over"),
    "hand_over": N_("the hand is over"),
    "hand_not_over": N_("the hand is not over yet"),
    "no_such_seat": N_("there is no seat {seat} at this table"),
    "not_your_turn": N_("it is {seat}'s turn, not {other}'s"),
    "not_allowed": N_("that move is not allowed now"),
    # the research environments (an action outside the action mask)
    "action_not_legal": N_(
        "action {action} ({what}) is not legal now: the action mask lists the legal ones "
        "(illegal_action='penalize' rewards an illegal one instead)"
    ),
    "nothing_to_undo": N_("there is no move of this hand to take back"),
    "ambiguous_move": N_("{move} could mean any of: {readings}; say which"),
    # taking a move back (Game.undo_refusal)
    "draw_seen": N_(
        "nothing to undo: the card you drew from the stock has been seen, so the draw cannot "
        "be taken back"
    ),
    "rummy_final": N_("nothing to undo: a Rummy! call cannot be taken back"),
    "window_final": N_(
        "nothing to undo: a move made while a Rummy call window was open cannot be taken back"
    ),
    "nothing_this_turn": N_(
        "nothing to undo: only your melds, lay-offs and takes of this turn can be taken back, "
        "until you discard"
    ),
    # the Rummy call window
    "window_open": N_("a Rummy call window is open: {seat} may call or pass now"),
    "window_call_or_pass": N_("a Rummy call window is open: call Rummy or pass"),
    "rummy_by_discarder": N_("the player who discarded cannot call Rummy on their own discard"),
    "rummy_off": N_("Rummy calls are off at this table"),
    "rummy_not_now": N_("you can only call Rummy or pass right after another player's discard"),
    "rummy_last_only": N_("only the last discard can be claimed with Rummy at this table"),
    "rummy_nothing": N_(
        "the {card} in the discard pile cannot be melded without cards from a hand: no Rummy"
    ),
    "rummy_cannot_meld": N_("you could not meld the {card} you would take"),
    # drawing
    "draw_first": N_("draw first: from the stock or the discard pile"),
    "already_drawn": N_("you have already drawn this turn"),
    "stock_empty": N_("the stock is empty: take from the discard pile or end the hand"),
    "end_not_allowed": N_("you can only end the hand when the stock is empty"),
    "pile_too_short": N_("the discard pile has only {n} cards"),
    "take_needs_new_meld": N_(
        "you could not put the {card} into a new meld at once, as this table's rules require"
    ),
    "take_needs_meld": N_(
        "you could not meld or lay off the {card} at once, as taking it requires"
    ),
    "take_stuck": N_(
        "after taking the {card} you could not finish your turn: you may not discard it again"
    ),
    # what must be melded first
    "card_not_held": N_("you do not have the {card}"),
    "must_lay_off_claim": N_("you must lay off the {card} you claimed"),
    "must_meld_taken": N_("you must meld the {card} you took from the discard pile first"),
    "must_new_meld": N_("the {card} you took must go into a new meld"),
    # discarding and going out
    "discard_just_taken": N_(
        "you may not discard the {card} you just took from the top of the discard pile, nor "
        "a copy of it"
    ),
    "discard_playable": N_(
        "you cannot go out with the {card}: it could be laid off; lay it off and float"
    ),
    "keep_card_to_discard": N_("you must keep a card to discard when you go out"),
    "left_with_taken": N_(
        "that would leave you only the {card} you may not discard, with no way to lay it off"
    ),
    # new melds
    "meld_too_short": N_("a meld needs at least 3 cards"),
    "joker_undeclared": N_("say what each joker stands for: JK=8H in a run, JK=9 in a group"),
    "meld_only_jokers": N_("a new meld must contain at least one card that is not a joker"),
    "joker_rank_in_run": N_("a joker declared as a rank only belongs in a group of that rank"),
    "group_same_suit": N_(
        "the cards of a group must all be of different suits: {cards} has two of one suit"
    ),
    "group_too_long": N_("a group has at most four cards, one of each suit"),
    "not_a_meld": N_("{cards} is neither a run (one suit, in sequence) nor a group (one rank)"),
    "run_two_aces": N_("a run cannot hold two aces: the ace is either low or high"),
    "run_same_card": N_("a run cannot hold the same card twice"),
    "run_gap": N_("the cards of a run must follow each other without a gap (K-A-2 does not wrap)"),
    # laying off
    "no_such_meld": N_("there is no meld {meld} on the table"),
    "joker_layoff_undeclared": N_("say what the joker stands for: JK=9H on a run, JK=9 on a group"),
    "group_has_no_end": N_("meld {meld} is a group: it has no low or high end"),
    "wrong_end": N_("{played} can only go at the {end} end of meld {meld}"),
    "either_end": N_("{played} could go at either end of meld {meld}: say low or high"),
    "group_full": N_("a group has at most four cards; meld {meld} is full"),
    "group_wrong_rank": N_("meld {meld} is a group of {rank}s: {played} is not one"),
    "group_suit_taken": N_("meld {meld} already has a card of that suit: {played} does not fit"),
    "run_wrong_suit": N_("meld {meld} is a run of another suit: {played} does not fit"),
    "run_full": N_("meld {meld} holds all thirteen ranks: nothing more fits"),
    "run_not_next": N_("{played} does not fit at either end of meld {meld}"),
    "layoff_no_fit": N_("{played} does not fit meld {meld}"),
    "fits_no_meld": N_("the {card} does not fit any meld on the table"),
}

_SEATS = frozenset({"seat", "other"})
_CARDS = frozenset({"card", "must"})


def _seat_name(seat: int, names: Sequence[str] | None) -> str:
    if names is not None and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"P{seat + 1}"


def reason_text(
    code: str, params: Mapping[str, Any] | None = None, names: Sequence[str] | None = None
) -> str:
    """The sentence for ``code`` with ``params``, in the current language; seats by ``names``
    (0-based) when given, else ``P1``, ``P2``…"""
    template = REASONS.get(code, REASONS["not_allowed"])
    values: dict[str, Any] = {}
    for key, value in (params or {}).items():
        if key in _SEATS:
            values[key] = _seat_name(value, names)
        elif key in _CARDS:
            values[key] = card_name(value)
        elif key == "played":
            values[key] = played_name(value)
        elif key == "cards":
            values[key] = cards_name(value)
        elif key == "end":
            values[key] = _("low") if value == "low" else _("high")
        elif key == "rank":
            values[key] = RANK_LABELS[value]
        elif isinstance(value, list | tuple):
            values[key] = ", ".join(map(str, value))
        else:
            values[key] = value
    try:
        return _(template).format(**values)
    except (KeyError, IndexError):  # a translation naming a parameter this reason lacks
        return template.format_map(_Missing(values))


class _Missing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def params_json(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` for a file or a wire: cards in notation (``"5H"``, ``"JK=8H"``), seats as
    0-based indices, the rest as they are."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key in _CARDS:
            out[key] = card_str(value)
        elif key == "played":
            out[key] = played_str(value)
        elif key == "cards":
            out[key] = [played_str(c) for c in value]
        else:
            out[key] = value
    return out


# --- the errors that carry a reason --------------------------------------------------------------


class IllegalMove(MoveError):
    """A move the rules do not allow now. The game is left exactly as it was.

    ``IllegalMove(code, **params)``: ``code`` is one of :data:`REASONS` (a rule of a front end's
    own is a :class:`~rummy500.engine.RefusedMove`), ``params`` its parameters. ``str(error)``
    is the sentence in the current language, :meth:`text` the same with the players' names.
    """

    def __init__(self, code: str = "not_allowed", /, **params: Any) -> None:
        if code not in REASONS:
            raise ValueError(f"{code!r} is not a reason code (rummy500.engine.reasons.REASONS)")
        super().__init__(code)
        self.code = code
        self.params = params

    def __str__(self) -> str:
        return reason_text(self.code, self.params)

    def text(self, names: Sequence[str] | None = None) -> str:
        """The reason in the current language, seats called by ``names`` (0-based)."""
        return reason_text(self.code, self.params, names)

    def to_dict(self) -> dict[str, Any]:
        """``{"code": …, "params": {…}, "message": …}``, ready for JSON (cards in notation)."""
        return {"code": self.code, "params": params_json(self.params), "message": str(self)}

    def __reduce__(self) -> tuple[Any, ...]:
        return _illegal_move, (self.code, self.params), self.__dict__


#: The name python-chess users look for.
IllegalMoveError = IllegalMove


def _illegal_move(code: str, params: dict[str, Any]) -> IllegalMove:
    return IllegalMove(code, **params)


class AmbiguousMoveError(MoveError):
    """A move that could be read more than one way here (a joker or an ace that fits more than
    one place, a lay-off that fits more than one meld); ``readings`` lists the legal moves it
    could mean. ``code`` is ``"ambiguous_move"``."""

    def __init__(self, text: str, readings: Sequence[Move]) -> None:
        super().__init__(text)
        self.readings = tuple(readings)
        self.code = "ambiguous_move"
        self.params = {"move": text, "readings": [str(m) for m in self.readings]}

    def __str__(self) -> str:
        return reason_text(self.code, self.params)

    def text(self, names: Sequence[str] | None = None) -> str:
        return reason_text(self.code, self.params, names)

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.params["move"], self.readings), self.__dict__
