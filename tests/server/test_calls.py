"""A call window's bookkeeping (server/calls.py): the moves each asked seat may make."""

from __future__ import annotations

from rummy500.engine import Move, Phase
from rummy500.server.calls import CallAnswers
from tests.engine.positions import position


def test_an_asked_seat_gets_moves_no_receiver_can_change() -> None:
    # P3 discards the 8H, which fits P2's run: P1 may call it (P2's meld is on the table).
    game = position(
        ["2C 3C 4C 5C 6C 7C KS", "5H 6H 7H 9S 9D KC 4D", "8H JS QD 3S 4S 5S 7D"],
        "2D",
        "AS AD",
        moves="P2 draw\nP2 meld 5H 6H 7H\nP2 discard AS\nP3 draw\nP3 discard 8H",
    )
    assert game.phase == Phase.CALL
    calls = CallAnswers()
    calls.open(game, window_id=5, deadline=10.0)
    asked = calls.asked(game)
    # handed as they are to the seat's computer player and to the views: a tuple, a pass first
    assert asked[0] == (Move(0, "pass"), Move(0, "rummy", number=1))
    assert isinstance(asked[0], tuple)
    assert calls.callers[0] is asked[0]
