"""What a table sends its clients: the news it publishes, and every message, built here.

A table's parts return **news** — a change stored (a deal, a move, a take-back), a hand over, a
turn whose time ran out, a queued draw cancelled, a chat line, a rematch — and the table's one
publish point (:meth:`~rummy500.server.play.TablePlay.publish`) moves the version on and sends
each client its message of it, as lila's round publishes the events its helpers return. Nothing
else tells the table's clients anything. What one connection is answered (an error in what it
sent, a ``queued`` call, its ``state``, a hint, a ``pong``, the record) goes to that connection
alone, built here too.

The cards and the rest of a seat's view come from :mod:`~rummy500.server.views`, which reads
only the engine's observation; this module puts the messages of ``docs/protocol.md`` together
from them (their models are in :mod:`~rummy500.server.wire`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rummy500.engine import Game, IllegalMove, Move, MoveError, Observation, seat_str
from rummy500.i18n import _
from rummy500.server.storage import ChatLine
from rummy500.server.views import (
    Moment,
    chat_payload,
    game_over_summary,
    game_part,
    hand_summary,
    move_event,
    public_view,
)

__all__ = [
    "Change",
    "ChatSaid",
    "Dealt",
    "DrawCancelled",
    "DrawRefused",
    "HandEnded",
    "Moved",
    "News",
    "NextHandWaits",
    "PairingCancelled",
    "RematchOffered",
    "SeatLeft",
    "SeatsChanged",
    "TookBack",
    "TurnTimedOut",
    "chat_message",
    "draw_cancelled_message",
    "error_message",
    "game_over_message",
    "hand_over_message",
    "hint_message",
    "illegal_move_message",
    "next_hand_message",
    "pairing_cancelled_message",
    "pong_message",
    "queued_message",
    "record_message",
    "rematch_message",
    "seat_left_message",
    "seats_message",
    "state_message",
    "state_text",
    "update_messages",
]


# --- news: what happened at a table, as its parts return it ------------------------------------


@dataclass(frozen=True)
class Dealt:
    """A hand was dealt and stored at ``version``."""

    version: int
    hand_number: int
    dealer: int


@dataclass(frozen=True)
class Moved:
    """A move was played and stored at ``version``; ``by`` ``player``, ``bot``, ``takeover``,
    ``auto`` or ``timeout``; ``ref`` the id of the player's message."""

    version: int
    move: Move
    by: str
    ref: Any = None


@dataclass(frozen=True)
class TookBack:
    """``seat`` took ``move`` back, stored at ``version`` (:mod:`~rummy500.server.undo`)."""

    version: int
    move: Move
    seat: int
    ref: Any = None


#: A change stored: every client is sent its ``update`` (and the version moves on).
Change = Dealt | Moved | TookBack


@dataclass(frozen=True)
class HandEnded:
    """The last change ended the hand (and perhaps the game): its summary to all."""


@dataclass(frozen=True)
class NextHandWaits:
    """Who the next deal waits for changed (:class:`~rummy500.server.play.BetweenHands`)."""


@dataclass(frozen=True)
class SeatsChanged:
    """Who sits, is connected or is played by a computer may have changed (a ``seats`` goes out
    only when its rows differ from the last one's)."""


@dataclass(frozen=True)
class TurnTimedOut:
    """``seat``'s turn timer ran out: a computer player finishes its turn
    (:class:`~rummy500.server.turn_clock.TurnClock`; clients see it in the ``seats``)."""

    seat: int


@dataclass(frozen=True)
class DrawRefused:
    """The draw ``seat`` sent during a call window was refused by the engine once it closed."""

    seat: int
    error: IllegalMove
    ref: Any = None


@dataclass(frozen=True)
class DrawCancelled:
    """A Rummy call was made: the draw (``verb``) ``seat`` sent during the window is not played
    (:class:`~rummy500.server.calls.CallAnswers`)."""

    seat: int
    verb: str
    ref: Any = None


@dataclass(frozen=True)
class ChatSaid:
    """A chat line was stored."""

    line: ChatLine


@dataclass(frozen=True)
class RematchOffered:
    """The players' rematch table was made."""

    table_id: str
    invite_code: str


@dataclass(frozen=True)
class SeatLeft:
    """``seat``'s player gave the seat up in the lobby: its connections are told, then closed."""

    seat: int


@dataclass(frozen=True)
class PairingCancelled:
    """A paired table's people did not all come in time (``connect_seconds``): it is
    cancelled; its connections are told who did not come, then closed."""

    absent: tuple[str, ...]


News = (
    Change
    | HandEnded
    | NextHandWaits
    | SeatsChanged
    | TurnTimedOut
    | DrawRefused
    | DrawCancelled
    | ChatSaid
    | RematchOffered
    | SeatLeft
    | PairingCancelled
)


# --- the messages -------------------------------------------------------------------------------


def update_messages(
    change: Change, game: Game, moment: Moment
) -> Callable[[int | None], dict[str, Any]]:
    """The maker of each seat's ``update`` of a stored change (a spectator's: seat ``None``),
    for :meth:`~rummy500.server.clients.Audience.broadcast`. What is the same for every seat
    (the event, the public view of the game now) is made here, once; the mover's carries
    its ref."""
    event: dict[str, Any]
    if isinstance(change, Dealt):
        dealer = seat_str(change.dealer)
        event = {"kind": "deal", "hand_number": change.hand_number, "dealer": dealer}
        mover, ref = None, None
    elif isinstance(change, Moved):
        mover, ref = change.move.seat, change.ref
        event = move_event("move", change.move, change.by)
    else:
        mover, ref = change.seat, change.ref
        event = move_event("undo", change.move, "player")
    public = public_view(game.observation(0))

    def update(seat: int | None) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "update", "version": change.version, "event": event}
        message.update(game_part(game, seat, moment, public=public))
        if ref is not None and seat is not None and seat == mover:
            message["ref"] = ref
        return message

    return update


def hand_over_message(version: int, obs: Observation, left: dict[str, list[str]]) -> dict[str, Any]:
    """The hand just over: its result, the totals and the cards left in each hand."""
    return {"type": "hand_over", "version": version, **hand_summary(obs, left)}


def game_over_message(version: int, obs: Observation) -> dict[str, Any]:
    return {"type": "game_over", "version": version, **game_over_summary(obs)}


def next_hand_message(version: int, part: dict[str, Any]) -> dict[str, Any]:
    """Who the next deal waits for, and when it comes anyway (``part``: the state's
    ``next_hand``)."""
    return {"type": "next_hand", "version": version, **part}


def seats_message(version: int, seats: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "seats", "version": version, "seats": seats}


def chat_message(version: int, line: ChatLine) -> dict[str, Any]:
    return {"type": "chat", "version": version, **chat_payload(line)}


def rematch_message(version: int, rematch: dict[str, Any]) -> dict[str, Any]:
    """The rematch table (``rematch``: its ``table_id`` and ``invite_code``, as in a state)."""
    return {"type": "rematch", "version": version, **rematch}


def queued_message(version: int, move: Move, ref: Any) -> dict[str, Any]:
    """A call, a pass or the next player's draw sent during a call window, kept until the
    window's order reaches it."""
    return {"type": "queued", "version": version, **move.to_json(), "ref": ref}


def hint_message(version: int, move: Move, text: str, ref: Any) -> dict[str, Any]:
    return {"type": "hint", "version": version, **move.to_json(), "text": text, "ref": ref}


def pong_message(version: int) -> dict[str, Any]:
    return {"type": "pong", "version": version}


def record_message(version: int, text: str) -> dict[str, Any]:
    return {"type": "record", "version": version, "text": text}


def state_message(
    *,
    version: int,
    table: dict[str, Any],
    seat: int | None,
    seats: list[dict[str, Any]],
    chat: Sequence[ChatLine],
    rematch: dict[str, Any] | None,
    game: dict[str, Any],
    next_hand: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole state as ``seat`` (or a spectator) may see it but its view and log (they are
    added as texts: :func:`state_text`); ``game`` is its
    :func:`~rummy500.server.views.seat_part`; ``next_hand`` between hands: who the next deal
    waits for."""
    return {
        "type": "state",
        "version": version,
        "table": table,
        "you": {"seat": None if seat is None else seat_str(seat), "spectator": seat is None},
        "seats": seats,
        "chat": [chat_payload(line) for line in chat],
        "rematch": rematch,
        **game,
        "next_hand": next_hand,
    }


def state_text(message: str, view: str, log: str) -> str:
    """The text of a ``state``: ``message``, the text of its :func:`state_message`, with the
    texts of its view (:func:`~rummy500.server.views.with_own_part`) and log
    (:func:`~rummy500.server.views.public_state_texts`) added."""
    return message[:-1] + ',"view":' + view + ',"log":' + log + "}"


def error_message(version: int, code: str, message: str, ref: Any = None) -> dict[str, Any]:
    """What was wrong with a client's message (nothing has changed)."""
    return {"type": "error", "version": version, "code": code, "message": message, "ref": ref}


def illegal_move_message(
    version: int,
    error: MoveError,
    names: Sequence[str],
    ref: Any = None,
    code: str = "illegal_move",
) -> dict[str, Any]:
    """Why a move (``code`` ``cannot_undo``: a take-back) was refused: in words, with the
    players' ``names``, and, when it is the engine's reason, as data (``reason``: its code and
    parameters) for clients that say it in their own words (docs/protocol.md). A rule of the
    table's own (:class:`~rummy500.engine.RefusedMove`) has no ``reason``."""
    reason = None
    if isinstance(error, IllegalMove):
        reason = {"code": error.code, "params": error.to_dict()["params"]}
    return {
        "type": "error",
        "version": version,
        "code": code,
        "message": error.text(names),
        "reason": reason,
        "ref": ref,
    }


def draw_cancelled_message(version: int, verb: str, ref: Any) -> dict[str, Any]:
    """The draw (``verb`` ``take`` or ``draw``) sent during a call window is not played: a
    Rummy call was made (said in the current language)."""
    if verb == "take":
        text = _("your take from the discard pile was not played: a Rummy call was made")
    else:
        text = _("your draw from the stock was not played: a Rummy call was made")
    return error_message(version, "draw_cancelled", text, ref)


def pairing_cancelled_message(version: int, absent: tuple[str, ...]) -> dict[str, Any]:
    """To a cancelled paired table's connections (said in each one's language): who did not
    come; the players who came wait to be paired again, first in line."""
    return error_message(
        version,
        "pairing_cancelled",
        _(
            "{names} did not come to the table in time: the game is cancelled, nobody's rating "
            "changes, and you wait to be paired again, first in line"
        ).format(names=", ".join(absent)),
    )


def seat_left_message(version: int) -> dict[str, Any]:
    """To a seat's connections when its player gave it up (said in the current language)."""
    return error_message(version, "seat_left", _("you have left this seat"))
