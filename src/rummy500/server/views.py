"""What a seat or a spectator is sent, built only from :meth:`Game.observation`.

Every card a client ever receives goes through this module: :func:`seat_view` is one seat's
observation (its own hand included), :func:`public_view` the same without any hand, for
spectators; both are the engine's one JSON encoding of an observation
(:meth:`Observation.to_json`, which the bot protocol's ``act`` is made from too). Once a hand
is over, the cards each player was left holding are shown to everyone
(:func:`left_cards`), as at a card table when they are counted against them; the stock never is,
and the full record (every deal) is only sent once the game is over.

The rest of a seat's part of a ``state`` or ``update`` (:func:`game_part`: its legal moves, the
call it may make, the turn timer, whether it may undo) is a pure function of the game and a
:class:`Moment` of the table: what the table's timers, call window and stand-ins are at the
time, so that every seat's message of one change is built from the same facts. The messages
themselves are put together from these parts in :mod:`~rummy500.server.outgoing`.

A ``state`` is sent as text put together from parts
(:func:`~rummy500.server.outgoing.state_text`): its view and log, the same for every seat and
the bulk of it, are serialized once per version (:func:`public_state_texts`), and a seat's own
cards are added to the view's text.
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rummy500.engine import (
    CALL,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    Game,
    Move,
    Observation,
    by_seat,
    card_str,
    own_json,
    seat_str,
)
from rummy500.server.clients import dumps
from rummy500.server.storage import ChatLine, SeatRecord, TableRecord, format_invite

__all__ = [
    "FEATURES",
    "Moment",
    "chat_payload",
    "game_over_summary",
    "game_part",
    "hand_summary",
    "left_cards",
    "move_event",
    "public_log",
    "public_view",
    "public_state_texts",
    "record_comment",
    "seat_part",
    "seat_rows",
    "seat_view",
    "table_info",
    "with_own_part",
]

#: The optional parts of the protocol this server has (``state.table.features``).
FEATURES = ("chat", "hint", "record", "rematch", "spectate", "turn_timer", "undo")


def _cards(cards: Sequence[int]) -> list[str]:
    return [card_str(c) for c in cards]


def public_view(obs: Observation, *, history: bool = False) -> dict[str, Any]:
    """Everything every player may see: the table, the discard pile, sizes, scores, the known
    cards (taken from the discard pile), and with ``history`` this hand's public moves."""
    return obs.to_json(own=False, history=history)


def seat_view(obs: Observation, *, history: bool = False) -> dict[str, Any]:
    """What ``obs.seat`` sees: the public view and its own hand."""
    return obs.to_json(history=history)


def hand_summary(obs: Observation, left: dict[str, list[str]]) -> dict[str, Any]:
    """The ``hand_over`` message body: the hand's result, the totals and the cards ``left`` in
    each hand (:func:`left_cards`; the table and the pile are in the last update)."""
    result = obs.hand_results[-1]
    return {
        "hand_number": obs.hand_number,
        **result.to_json(),
        "totals": by_seat(obs.totals),
        "left_cards": left,
    }


def left_cards(game: Game) -> dict[str, list[str]] | None:
    """Once the hand is over: the cards each player was left holding (the points counted
    against them), by seat; ``None`` while the hand goes on (then they are hidden)."""
    if game.phase not in (HAND_OVER, GAME_OVER):
        return None
    return by_seat([_cards(game.hand(s)) for s in range(game.players)])


def game_over_summary(obs: Observation) -> dict[str, Any]:
    """The ``game_over`` message body."""
    return {
        "totals": by_seat(obs.totals),
        "winner": None if obs.winner is None else seat_str(obs.winner),
        "hands": len(obs.hand_results),
    }


def public_log(game: Game) -> list[dict[str, Any]]:
    """This hand's public history as its log: the deal, then every move (its notation and its
    parts: :meth:`Move.to_json`), with the cards each move took from the discard pile (bottom
    first: everyone saw them there; a draw from the stock never shows its card). The hand is
    replayed from its deal (as the engine's undo does), so every move is said as it was at the
    time."""
    hand = game.record[-1] if game.record else None
    if hand is None or hand.deal is None:
        return []  # a game recorded from the middle of a hand: nothing to say it from
    replay = Game(game.players, game.rules, seed=game.seed)
    replay.deal(hand.deal, dealer=hand.dealer, number=hand.number)
    log: list[dict[str, Any]] = [
        {"kind": "deal", "hand_number": hand.number, "dealer": seat_str(hand.dealer)}
    ]
    for move in hand.moves:
        before = replay.observation(0).discard_pile
        replay.play(move)
        after = replay.observation(0).discard_pile
        taken = before[len(after) :] if len(after) < len(before) else ()
        log.append({"kind": "move", **move.to_json(), "taken": _cards(taken)})
    return log


def move_event(kind: str, move: Move, by: str) -> dict[str, Any]:
    """An update's ``event`` for a move played or taken back (``kind`` ``move`` or ``undo``):
    the move in notation and its parts (:meth:`Move.to_json`), and who made it."""
    return {"kind": kind, **move.to_json(), "by": by}


# --- a seat's part of a state or an update ------------------------------------------------------


@dataclass(frozen=True)
class Moment:
    """What a seat's view needs besides the game, at one moment of a table."""

    #: the table's clock (seconds, the event loop's time)
    now: float
    #: the seats a computer player plays now (it decides for them: they are offered nothing)
    computer_seats: frozenset[int]
    #: the seats of the open call window that have not answered yet, with the moves they may make
    asked: Mapping[int, Sequence[Move]]
    #: when the open call window closes (``None``: no window is open)
    window_deadline: float | None
    #: when the turn timer of the seat whose turn it is runs out (``None``: no timer)
    turn_deadline: float | None
    #: the seats that may take a move back now
    undoable: frozenset[int]


def game_part(
    game: Game | None,
    seat: int | None,
    moment: Moment,
    *,
    history: bool = False,
    public: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The view, legal moves, call and timer of ``seat`` (``None``: a spectator). ``public`` is
    the public view if already made for this version (it is the same for every seat)."""
    if game is None:
        return {"view": None, **_NO_PART}
    if public is not None:
        view = public if seat is None else {**public, **own_json(seat, game.hand(seat), game.phase)}
    elif seat is None:
        view = public_view(game.observation(0), history=history)
    else:
        view = seat_view(game.observation(seat), history=history)
    left = left_cards(game)
    if left is not None:
        view = {**view, "left_cards": left}
    return {"view": view, **seat_part(game, seat, moment)}


#: A seat's part when there is no game yet.
_NO_PART: dict[str, Any] = {
    "legal": [],
    "legal_moves": [],
    "call": None,
    "timer": None,
    "can_undo": False,
    "deciding": [],
}


def seat_part(game: Game | None, seat: int | None, moment: Moment) -> dict[str, Any]:
    """The part of :func:`game_part` besides the view: ``seat``'s legal moves (in notation,
    ``legal``, and as data, ``legal_moves``: :meth:`Move.to_json`), call, the timer and whether
    it may undo."""
    if game is None:
        return dict(_NO_PART)
    legal_moves = [m.to_json() for m in _legal(game, seat, moment)]
    return {
        "legal": [m["move"] for m in legal_moves],
        "legal_moves": legal_moves,
        "call": _call(game, seat, moment),
        "timer": _timer(game, moment),
        "can_undo": seat is not None and seat in moment.undoable,
        "deciding": _deciding(game, moment),
    }


def _legal(game: Game, seat: int | None, moment: Moment) -> Sequence[Move]:
    if seat is None or seat in moment.computer_seats:
        return ()
    if game.phase == CALL:
        return moment.asked.get(seat, ())
    if game.phase in (DRAW, PLAY) and game.to_act == seat:
        return game.legal_moves()
    return ()


def _call(game: Game, seat: int | None, moment: Moment) -> dict[str, Any] | None:
    if seat is None or game.phase != CALL or moment.window_deadline is None:
        return None
    if seat not in moment.asked or seat in moment.computer_seats:
        return None  # not asked, or a computer player answers for this seat
    left = max(0.0, moment.window_deadline - moment.now)
    return {"deadline_ms": int(left * 1000), "window": [seat_str(s) for s in game.window]}


def _deciding(game: Game, moment: Moment) -> list[str]:
    """The seats the open call window asks and that have not answered, nearest first: the same
    for everyone (a seat that let these cards go, or passes by itself, is not among them)."""
    if game.phase != CALL:
        return []
    return [seat_str(s) for s in game.window if s in moment.asked]


def _timer(game: Game, moment: Moment) -> dict[str, Any] | None:
    if moment.turn_deadline is None or game.phase not in (DRAW, PLAY):
        return None
    left = max(0.0, moment.turn_deadline - moment.now)
    return {"seat": seat_str(game.turn), "ms_left": int(left * 1000)}


# --- the table around the game ------------------------------------------------------------------


def table_info(record: TableRecord, status: str) -> dict[str, Any]:
    """The table's settings, as ``state.table``."""
    return {
        "table_id": record.id,
        "invite_code": format_invite(record.invite_code),
        "status": status,
        "players": record.players,
        "rules": record.rules,
        "call_seconds": record.call_seconds,
        "turn_seconds": record.turn_seconds,
        "away_seconds": record.away_seconds,
        "hand_pause": record.hand_pause,
        "features": list(FEATURES),
        "rated": record.rated,
    }


def seat_rows(
    seats: Sequence[SeatRecord],
    connected: Container[int],
    computer_seats: Container[int],
    left: Mapping[int, str | None] | None = None,
) -> list[dict[str, Any]]:
    """Who sits where, who is connected and which seats a computer player plays now. A
    computer seat is always taken (by its computer player) and has the name the server gave
    it when the table was made (:func:`~rummy500.server.seating.computer_names`); ``level``
    says how it plays. ``left``: the seats a person gave up during the game (a computer player
    plays them until someone takes one over), with the name of who left when known."""
    left = left or {}
    return [
        {
            "seat": s.label,
            "kind": s.kind,
            "level": s.level,
            "name": s.name,
            "taken": s.taken or s.kind == "bot",
            "connected": s.number in connected,
            "bot_playing": s.number in computer_seats,
            "left": s.number in left,
            "left_name": left.get(s.number),
        }
        for s in seats
    ]


def record_comment(table_id: str, seats: Sequence[SeatRecord]) -> str:
    """The header of a table's ``.r500`` record: the table, and who played each seat (the
    ``names:`` line, which ``rummy500 replay`` reads; a computer seat's level on its own line)."""
    names = [s.name or s.left_name or s.label for s in seats]
    lines = [f"rummy500 table {table_id}", "names: " + json.dumps(names, ensure_ascii=False)]
    lines.extend(
        f"{s.label} {s.name or s.label}: computer player, {s.level or 'easy'}"
        for s in seats
        if s.kind == "bot"
    )
    return "\n".join(lines)


def chat_payload(line: ChatLine) -> dict[str, Any]:
    """One chat line, as sent."""
    return {
        "seat": None if line.seat is None else seat_str(line.seat),
        "name": line.name,
        "text": line.text,
        "at": line.at,
        "account": line.account,
    }


def public_state_texts(game: Game | None, log: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """The texts of a ``state``'s ``view`` as everyone may see it (with the hand's history, and
    the cards left in each hand once it is over) and of its ``log`` (:func:`public_log`): the
    same for every seat and spectator, and in every language."""
    if game is None:
        return "null", "[]"
    view = public_view(game.observation(0), history=True)
    left = left_cards(game)
    if left is not None:
        view["left_cards"] = left
    return dumps(view), dumps(list(log))


def with_own_part(view: str, game: Game | None, seat: int | None) -> str:
    """The text of ``seat``'s view: the public view's text (:func:`public_state_texts`) and the
    seat's own part (:func:`~rummy500.engine.own_json`); a spectator's is the public view itself."""
    if game is None or seat is None:
        return view
    own = dumps(own_json(seat, game.hand(seat), game.phase))
    return view[:-1] + "," + own[1:]  # two objects of different keys: one object
