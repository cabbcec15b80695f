"""What a seat or a spectator is sent, built only from :meth:`Game.observation`.

Every card a client ever receives goes through this module: :func:`seat_view` is one seat's
observation (its own hand included), :func:`public_view` the same without any hand, for
spectators. Hand-end summaries carry the scores and the points, never the cards left in a hand;
the full record (every deal) is only sent once the game is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rummy500.engine import DRAW, PLAY, Move, Observation, card_str, played_str, seat_str

__all__ = [
    "by_seat",
    "game_over_summary",
    "hand_result",
    "hand_summary",
    "legal_strings",
    "own_part",
    "public_view",
    "seat_view",
]


def by_seat(values: Sequence[Any]) -> dict[str, Any]:
    """``[3, 4]`` -> ``{"P1": 3, "P2": 4}``."""
    return {seat_str(s): v for s, v in enumerate(values)}


def _cards(cards: Sequence[int]) -> list[str]:
    return [card_str(c) for c in cards]


def public_view(obs: Observation, *, history: bool = False) -> dict[str, Any]:
    """Everything every player may see: the table, the discard pile, sizes, scores, the known
    cards (taken from the discard pile), and with ``history`` this hand's public moves."""
    view: dict[str, Any] = {
        "hand_number": obs.hand_number,
        "dealer": seat_str(obs.dealer),
        "phase": obs.phase,
        "to_act": None if obs.to_act is None else seat_str(obs.to_act),
        "turn": seat_str(obs.turn),
        "window": [seat_str(s) for s in obs.window],
        "discard_pile": _cards(obs.discard_pile),
        "stock_size": obs.stock_size,
        "melds": [
            {
                "number": m.number,
                "run": m.is_run,
                "cards": [played_str(c) for c in m.cards],
                "played_by": [seat_str(s) for s in m.played_by],
            }
            for m in obs.melds
        ],
        "hand_sizes": by_seat(obs.hand_sizes),
        "known_cards": by_seat([_cards(k) for k in obs.known]),
        "points": by_seat(obs.points),
        "totals": by_seat(obs.totals),
        "must_use": card_str(obs.must_use) if obs.must_use >= 0 else None,
        "winner": None if obs.winner is None else seat_str(obs.winner),
    }
    if history:
        view["history"] = [str(m) for m in obs.history]
        view["hand_results"] = [hand_result(r) for r in obs.hand_results]
    return view


def seat_view(obs: Observation, *, history: bool = False) -> dict[str, Any]:
    """What ``obs.seat`` sees: the public view and its own hand."""
    view = public_view(obs, history=history)
    view.update(own_part(obs.seat, obs.hand, obs.phase))
    return view


def own_part(seat: int, hand: Sequence[int], phase: str) -> dict[str, Any]:
    """The part of a seat's view only that seat sees: its cards (and whether it floats: no
    cards left while the hand goes on)."""
    return {
        "seat": seat_str(seat),
        "hand": _cards(hand),
        "floating": not hand and phase in (DRAW, PLAY),
    }


def hand_result(result: Any) -> dict[str, Any]:
    """One finished hand: how it ended and the points. No card is named."""
    return {
        "scores": by_seat(result.scores),
        "melded": by_seat(result.melded),
        "left": by_seat(result.left),
        "ended_by": result.ended_by,
        "out": None if result.out is None else seat_str(result.out),
        "capped": result.capped,
    }


def hand_summary(obs: Observation) -> dict[str, Any]:
    """The ``hand_over`` message body: the hand's result and the totals (what is public then:
    the table and the pile are in the last update; hands left are given as points only)."""
    result = obs.hand_results[-1]
    return {
        "hand_number": obs.hand_number,
        **hand_result(result),
        "totals": by_seat(obs.totals),
    }


def game_over_summary(obs: Observation) -> dict[str, Any]:
    """The ``game_over`` message body."""
    return {
        "totals": by_seat(obs.totals),
        "winner": None if obs.winner is None else seat_str(obs.winner),
        "hands": len(obs.hand_results),
    }


def legal_strings(moves: Sequence[Move]) -> list[str]:
    """Moves in notation."""
    return [str(m) for m in moves]
