"""Moves in words for the Python front ends (rummy500.words): the seat the text is for reads its
own moves in the second person, everyone else's in the third, and a spectator has no "you"."""

from __future__ import annotations

import pytest

from rummy500 import i18n
from rummy500.engine import Game, Move, parse_card, parse_played
from rummy500.engine.reasons import card_label
from rummy500.stepper import _cards  # how rummy500 replay --step draws cards
from rummy500.words import describe_move, is_red
from tests.engine.positions import position


def game() -> Game:
    return Game.new(players=2, seed=1)  # P2 starts


def test_a_spectator_reads_every_move_in_the_third_person() -> None:
    g = game()
    assert describe_move(Move.parse("P2 draw"), g) == "P2 draws from the stock."
    assert describe_move(Move.parse("P2 draw"), g, names=["Ann", "Bob"]) == (
        "Bob draws from the stock."
    )


def test_the_seat_the_text_is_for_reads_its_own_moves_as_you() -> None:
    g = game()
    top = g.discard[-1]
    after = g.clone()
    after.play("P2 take 1")
    names = ["Ann", "Bob"]
    text = describe_move(Move.parse("P2 take 1"), g, after, names, you=1)
    assert text == f"You take the {card_label(top)} from the discard pile."
    assert describe_move(Move.parse("P2 take 1"), g, after, names, you=0).startswith("Bob takes")


def test_a_draw_not_played_yet_names_no_card() -> None:
    # a hint: the move is not played, so the card the stock brings is not known
    assert describe_move(Move.parse("P2 draw"), game(), you=1) == "You draw from the stock."


def test_a_stock_draw_is_named_only_to_the_seat_that_drew() -> None:
    g = game()
    after = g.clone()
    after.play("P2 draw")
    (new,) = [c for c in after.hand(1) if after.hand(1).count(c) > g.hand(1).count(c)]
    mine = describe_move(Move.parse("P2 draw"), g, after, you=1)
    assert mine == f"You draw {card_label(new)} from the stock."
    assert describe_move(Move.parse("P2 draw"), g, after, you=0) == "P2 draws from the stock."


def test_one_card_colour_for_the_text_front_ends() -> None:
    """Diamonds and hearts are red, and so is a joker on the table standing for one: the
    terminal game, the review and ``rummy500 replay --step`` draw a meld's cards alike."""
    assert is_red(parse_card("5H")) and is_red(parse_card("QD"))
    assert not is_red(parse_card("5S")) and not is_red(parse_card("JK"))
    assert is_red(parse_played("JK=8H")) and not is_red(parse_played("JK=8C"))
    assert not is_red(parse_played("JK=8"))  # a joker standing for a rank in a group
    meld = _cards([parse_played("JK=8H"), parse_card("9H")], played=True)
    assert [span.style for span in meld.spans] == ["red", "red"]


@pytest.mark.parametrize(
    ("language", "joker"), [("en", "Joker="), ("hu", "Joker="), ("lo", "ໂຈກເກີ=")]
)
def test_a_joker_on_the_table_is_named_in_words(language: str, joker: str) -> None:
    """A joker melded or laid off is named as the browser names it (``Joker=3♥``, ``Joker=9``
    for a nine of a group), not in the compact ``*3♥`` of the terminal table's meld rows."""
    g = game()
    names = ["Ann", "Bob"]
    with i18n.use_language(language):
        meld = describe_move(Move.parse("P2 meld JK=3H 4H 5H"), g, names=names)
        layoff = describe_move(Move.parse("P2 layoff JK=9 1"), g, names=names, you=1)
    assert f"{joker}3♥ 4♥ 5♥" in meld and "*" not in meld, meld
    assert f"{joker}9" in layoff and "*" not in layoff, layoff
    if language == "en":
        assert (meld, layoff) == ("Bob melds Joker=3♥ 4♥ 5♥.", "You lay off Joker=9 on meld 1.")


@pytest.mark.parametrize(
    ("language", "take", "discard"),
    [
        ("en", "You take the Joker from the discard pile.", "Bob discards Joker."),
        ("hu", "Felveszed a dobópakliból ezt: Joker.", "Bob eldobja: Joker."),
        ("lo", "ເຈົ້າເກັບກອງຖິ້ມລົງໄປຮອດ ໂຈກເກີ (1 ໃບ).", "Bob ຖິ້ມ ໂຈກເກີ."),
    ],
    ids=("en", "hu", "lo"),
)
def test_the_joker_itself_is_named_in_words(language: str, take: str, discard: str) -> None:
    """The joker on the discard pile or in a hand is named as the browser names it (``Joker``,
    Lao ``ໂຈກເກີ``), not in the compact ``JK`` of the terminal's hand row."""
    g = position(["2C 3C 4C 5C 6C 7C 8C", "5H 6H 7H 9S 9D KC 4D", "TS JS QD 3S 4S 5S 7D"], "JK")
    after = g.clone()
    after.play("P2 take 1")
    names = ["Ann", "Bob", "Cy"]
    with i18n.use_language(language):
        assert describe_move(Move.parse("P2 take 1"), g, after, names, you=1) == take
        assert describe_move(Move.parse("P2 discard JK"), after, names=names, you=0) == discard
