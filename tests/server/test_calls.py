"""A call window's bookkeeping (server/calls.py): the moves each asked seat may make."""

from __future__ import annotations

import pytest

from rummy500.engine import Move, Phase, RefusedMove
from rummy500.server.calls import CallAnswers
from tests.engine.positions import rummy_call_window


def test_an_asked_seat_gets_moves_no_receiver_can_change() -> None:
    game = rummy_call_window()  # P1 may call P3's 8H onto P2's run
    assert game.phase == Phase.CALL
    calls = CallAnswers()
    calls.open(game, window_id=5, deadline=10.0)
    asked = calls.asked(game)
    # handed as they are to the seat's computer player and to the views: a tuple, a pass first
    assert asked[0] == (Move(0, "pass"), Move(0, "rummy", number=1))
    assert isinstance(asked[0], tuple)
    assert calls.callers[0] is asked[0]


def test_a_call_for_cards_let_go_is_the_tables_own_refusal_and_changes_nothing() -> None:
    """The game would allow the call; the table does not ask a seat again for cards it let go
    this hand: its own rule, a RefusedMove (docs/protocol.md: ``reason`` is ``null``), not the
    engine's IllegalMove."""
    game = rummy_call_window()
    calls = CallAnswers()
    calls.open(game, window_id=5, deadline=10.0)
    calls.answer(0, Move(0, "pass"), "player")  # P1's person lets the 8H go
    calls.close()
    calls.open(game, window_id=6, deadline=20.0)  # the same cards, the same hand
    assert 0 not in calls.callers
    call = Move(0, "rummy", number=1)
    assert game.legal_form(call) == call
    with pytest.raises(RefusedMove) as refused:
        calls.receive(game, 0, call, "r1")
    assert refused.value.code == "not_asked" and "let these cards go" in str(refused.value)
    assert calls.answers == {} and calls.queued_draw is None


def test_asks_says_beforehand_whom_a_window_opened_now_asks() -> None:
    """``asks`` is what :meth:`CallAnswers.open` would decide for each seat, without opening
    the window: the table holds the passes of the seats not asked with the discard before
    them (server/play.py, ``_answer_due``)."""
    game = rummy_call_window()
    calls = CallAnswers()
    before = {seat: calls.asks(game, seat) for seat in game.window}
    assert before == {0: True, 1: True}  # P1 for the 8H, P2 onto its own run
    calls.open(game, window_id=5, deadline=10.0)
    assert {s for s, v in before.items() if v} == set(calls.callers)
    calls.answer(0, Move(0, "pass"), "player")  # the cards let go: not asked again this hand
    calls.close()
    assert not calls.asks(game, 0)
    calls.open(game, window_id=6, deadline=20.0)
    assert 0 not in calls.callers
    calls.close()
    calls.hand = game.hand_number - 1  # what was let go is of another hand: asked again
    assert calls.asks(game, 0)
    assert calls.callers == {} and calls.answers == {}  # asking changed nothing
