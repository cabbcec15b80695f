"""The checker of why's claims (tests/bots/claims.py) tells a true claim from a false one: the
tests of hints and reviews trust it to find any."""

from __future__ import annotations

from rummy500.bots.why import Explanation, Reason
from rummy500.engine import Game, Move
from tests.bots.claims import check
from tests.bots.test_why import lay_off_or_discard

C3, C4, C5, H7, H8, S4, KS = 2, 3, 4, 32, 33, 42, 51


def problems(game: Game, *reasons: Reason, move: str = "P1 discard 3C") -> list[str]:
    explanation = Explanation(Move.parse(move), Move.parse("P1 layoff 3C 1"), reasons)
    return check(game, 0, explanation, gain=6.0)


def test_true_claims_pass() -> None:
    game = lay_off_or_discard()
    assert not problems(
        game,
        Reason("outs_gone", card=C3, cards=(C4,)),
        Reason("fits_table", card=C3),
        Reason("costly", card=KS, points=10),
        Reason("gain", points=6),
    )
    assert not problems(game, Reason("scores", cards=(C3,), points=3), move="P1 layoff 3C 1")


def test_false_claims_are_found() -> None:
    game = lay_off_or_discard()
    false = [
        Reason("outs_gone", card=C5, cards=(C4,)),  # the 7♣ would go with 5♣ 6♣ too
        Reason("lone", card=C3),  # it goes with the 5♣
        Reason("goes_with", card=C3, other=C5, cards=(C4,)),  # the 4♣ is on the table
        Reason("in_meld", card=C3, cards=(C3, C4, C5)),  # the 4♣ is not in the hand
        Reason("fits_table", card=H8),  # no meld of hearts
        Reason("costly", card=C3, points=10),
        Reason("gain", points=9),
        Reason("scores", cards=(C3,), points=15),
        Reason("goes_with", card=H7, other=H8, cards=(S4,)),  # not in the hand
    ]
    for reason in false:
        move = "P1 layoff 3C 1" if reason.code == "scores" else "P1 discard 3C"
        assert problems(game, reason, move=move), reason
