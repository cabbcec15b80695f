"""A call window's bookkeeping (server/calls.py): the moves each asked seat may make."""

from __future__ import annotations

from rummy500.engine import Move, Phase
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
