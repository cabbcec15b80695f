"""Why a move is better, in words (rummy500.bots.why): facts the seat can see, every card with
its suit symbol, and the same sentence in hints (the terminal game's and the server's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rummy500 import i18n
from rummy500.bots.evaluate import Evaluation, MoveValue, evaluate
from rummy500.bots.why import move_label, why
from rummy500.engine import Game, Move
from rummy500.notation import read_record
from tests.tui.helpers import ScriptedBot, scripted_session

NOTATION = re.compile(r"\b(?:[2-9TJQKA][CDHS]|JK(?:=\w+)?)\b")


def position(p1: str, p2: str, discard: str, moves: str, stock: str = "") -> object:
    """A two-player game (P2 deals, P1 starts) after ``moves``."""
    text = f"players: 2\nhand 1\ndealer: P2\nP1: {p1}\nP2: {p2}\ndiscard: {discard}\n"
    if stock:
        text += f"stock: {stock}\n"
    return read_record(text + moves.replace("; ", "\n") + "\n")


def test_a_lone_card_goes_and_a_card_with_live_partners_stays() -> None:
    game = position(
        "7H 8H KC 3C TC 6C 2D 5D JD 4S QS AS 9D",
        "2H 3H 4H 5H 6H 7C 8C 9C 4D 6D 7D 8D TH",
        "JC",
        "P1 draw",
        stock="KD",
    )
    obs = game.observation(0)
    text = why(obs, Move.parse("P1 discard 4S"), Move.parse("P1 discard 8H"))
    assert text.startswith("Discard 4♠ rather than discard 8♥: ")
    assert "8♥ goes with 7♥, and 6♥ 9♥ can still come" in text
    assert not NOTATION.search(text)


def test_partners_whose_outs_are_gone_are_said_to_be_gone() -> None:
    # P1 holds 9♠ 9♦; P2 melded the 9♥ and the 9♣: no third nine can come
    game = position(
        "9S 9D KC 3C TC 6C 2D 5D QD 4S QS AS 7H",
        "8H 9H TH 7C 8C 9C 2H 3H 4H 4D 6D 8D KH",
        "JC",
        "P1 draw; P1 discard KC; P2 draw; P2 meld 8H 9H TH; P2 meld 7C 8C 9C; P2 discard KH; "
        "P1 draw",
        stock="2S 3D 4C",
    )
    text = why(game.observation(0), Move.parse("P1 discard 9D"))
    assert text.startswith("Discard 9♦: ")
    assert (
        "the 9♣ 9♥ that would go with 9♦ are already on the table or in the others' hands" in text
    )


def test_a_card_in_the_discard_pile_is_not_said_to_be_gone() -> None:
    # the 9♣ lies in the discard pile: P1 may still take it (with the cards above it) and meld
    # it with its 9♠ 9♦
    game = position(
        "9S 9D KC 3C TC 6C 2D 5D QD 4S QS AS 7H",
        "8H 9H TH 2H 3H 4H 5H 7C 8C 4D 6D 8D KH",
        "9C",
        "P1 draw; P1 discard KC; P2 draw; P2 meld 8H 9H TH; P2 discard KH; P1 draw",
        stock="2S 3D 4C",
    )
    text = why(game.observation(0), Move.parse("P1 discard 9D"))
    assert text.startswith("Discard 9♦: ")
    assert "would go with" not in text and "gone" not in text


def test_a_card_that_gives_an_opponent_a_meld_is_named_with_the_cards_they_took() -> None:
    # P2 took the 7♠ and the 7♦ from the pile and still holds them; P1 then draws the 7♥
    game = position(
        "7S 7D KC 3C TC 6C 2D 5D JD 4S QS AS 9H",
        "2H 3H 4H 5H 6H 7C 8C 9C 4D 6D 8D TH KH",
        "JC",
        "P1 draw; P1 discard 7S; P2 take 1; P2 discard TH; P1 draw; P1 discard 7D; P2 take 1; "
        "P2 discard KH; P1 draw",
        stock="2S 3D 7H",
    )
    obs = game.observation(0)
    assert sorted(obs.known[1]) == sorted(Move.parse("P1 meld 7S 7D 7C").cards[:2])
    text = why(obs, Move.parse("P1 discard KC"), Move.parse("P1 discard 7H"), names=["Ann", "Bo"])
    assert text.startswith("Discard K♣ rather than discard 7♥: ")
    assert "Bo took 7♦ 7♠ from the pile: 7♥ gives them a meld" in text
    assert not NOTATION.search(text)


def test_a_take_says_whether_the_meld_is_made_with_the_hand_or_the_cards_taken() -> None:
    # the pile ends 5♦ 6♦ 7♦: taking three makes a run of them alone; P2 holds the 2♥ 3♥ 4♥
    game = position(
        "5D 7D KC 3C TC 6C 2S QD 4S QS AS 9H 8C",
        "6D 2H 3H 4H 7C 9C JD KD TH KH JH 2C 5S",
        "9S",
        "P1 draw; P1 discard 5D; P2 draw; P2 discard 6D; P1 draw; P1 discard 7D",
        stock="3D 8S 4C 5H",
    )
    obs = game.observation(1)
    text = why(obs, Move.parse("P2 take 3"))
    assert text.startswith("Take 3 cards down to the 5♦: ")
    assert "the 5♦ makes 5♦ 6♦ 7♦ with the cards taken with it" in text
    game = position(
        "5D 6D KC 3C TC 2S QD 4S QS AS 9H 8C JH",
        "2H 3H 4H 7C 9C JD KD TH KH 2C 5S 6S 9S",
        "7D",
        "",
    )
    text = why(game.observation(0), Move.parse("P1 take 1"))
    assert text == "Take the 7♦: the 7♦ makes 5♦ 6♦ 7♦ with your cards."


def test_every_verb_has_a_label_and_a_reason_for_a_hint() -> None:
    game = position(
        "7H 8H 9H AC 2C 3C 4C 5C 6C 2S 3S 4S 5S",
        "2H 3H 4H 5H 6H 7C 8C 9C 4D 6D 7D 8D TH",
        "JC",
        "",
        stock="KC",
    )
    obs = game.observation(0)
    for move in game.legal_moves():
        text = why(obs, move)
        assert text.startswith(move_label(move, obs) + ": "), text
        assert not NOTATION.search(text), text
    game.play("P1 draw")
    obs = game.observation(0)
    for move in game.legal_moves():
        text = why(obs, move)
        assert text.startswith(move_label(move, obs) + ": "), text
    meld = why(obs, Move.parse("P1 meld 7H 8H 9H"))
    assert "7♥ 8♥ 9♥ score 24 points on the table now" in meld


def test_the_evaluator_refuses_bad_input() -> None:
    game = position(
        "7H 8H 9H AC 2C 3C 4C 5C 6C 2S 3S 4S 5S",
        "2H 3H 4H 5H 6H 7C 8C 9C 4D 6D 7D 8D TH",
        "JC",
        "",
    )
    obs = game.observation(0)
    legal = game.legal_moves()
    with pytest.raises(ValueError, match="not one of the legal moves"):
        evaluate(obs, legal, include=[Move.parse("P1 discard 9H")])
    with pytest.raises(ValueError, match="at least two samples"):
        evaluate(obs, legal, samples=1)
    with pytest.raises(ValueError, match="no legal moves"):
        evaluate(obs, [])


def test_the_terminal_games_hint_says_why_with_the_reviews_sentence(tmp_path: Path) -> None:
    session = scripted_session(
        tmp_path,
        ["4H 5H 6H 9S 9D KC 2D 3S 7C 8D JS QH AD", "2C 3C 4C 5C TD TS 8S 7S 6S KD KS QC 7H"],
        "KH",
        "AS 2S",
        [["P2 draw", "P2 discard KS"]],
    )
    game = session.game
    game.play("P2 draw")
    game.play("P2 discard KS")
    assert game.to_act == session.you
    obs = game.observation(session.you)
    want = game.legal_moves()[0]
    session._hint_bot = ScriptedBot([str(want)])
    move, text = session.hint()
    assert move == want
    assert text == why(obs, want, names=session.names)


def test_what_the_sampled_deals_showed_is_said() -> None:
    game = position(
        "7H 8H 9H AC 2C 3C 4C 5C 6C 2S 3S 4S 5S",
        "2H 3H 4H 5H 6H 7C 8C 9C 4D 6D 7D 8D TH",
        "JC",
        "P1 draw; P1 meld AC 2C 3C 4C 5C 6C; P1 meld 2S 3S 4S 5S",
        stock="KC",
    )
    obs = game.observation(0)
    meld, discard = Move.parse("P1 meld 7H 8H 9H"), Move.parse("P1 discard 9H")
    evaluation = Evaluation(
        0,
        20,
        (
            MoveValue(meld, 40.0, 60.0, 0.0, 0.0, went_out=19, picked_up=0),
            MoveValue(discard, 5.0, 2.0, 58.0, 9.0, went_out=4, picked_up=11),
        ),
    )
    text = why(obs, meld, discard, evaluation=evaluation)
    assert "you go out first in 19 of 20 sampled deals, against 4" in text
    assert "another player picks up the 9♥ at once in 11 of 20 sampled deals" in text
    # a difference the deals do not show is not said
    quiet = Evaluation(
        0,
        20,
        (
            MoveValue(meld, 40.0, 60.0, 0.0, 0.0, went_out=10, picked_up=0),
            MoveValue(discard, 5.0, 2.0, 58.0, 9.0, went_out=9, picked_up=1),
        ),
    )
    text = why(obs, meld, discard, evaluation=quiet)
    assert "sampled deals" not in text


def lay_off_or_discard() -> Game:
    """P1 holds 3♣ 5♣ 6♣ (the 4♣ is on the table) and may lay off the 3♣ on P2's threes."""
    game = position(
        "3C 5C KD 9S 7H 2D QH JS 8D 6S TD AH KS",
        "3H 3D 3S 4H 4D 4C 7C 8C JC 2S 9H 5D AS",
        "QC",
        "P1 draw; P1 discard 7H; P2 draw; P2 meld 3H 3D 3S; P2 meld 4H 4D 4C; P2 discard 9H; "
        "P1 draw",
        stock="7D 2H 6C",
    )
    assert isinstance(game, Game)
    return game


def test_a_discard_compared_with_a_lay_off_of_the_same_card_says_nothing_of_keeping_it() -> None:
    # P1 may lay off its 3♣ on P2's 3♥ 3♦ 3♠, or discard it: either way the 3♣ leaves the hand,
    # so what it goes with (the 5♣; the 4♣ between them is on the table) is no reason
    game = lay_off_or_discard()
    text = why(
        game.observation(0), Move.parse("P1 discard 3C"), Move.parse("P1 layoff 3C 1"), gain=6.2
    )
    assert text == (
        "Discard 3♣ rather than lay off 3♣ on meld 1: over the sampled deals it scores about "
        "6 points more."
    )


def test_a_low_ace_laid_off_scores_what_the_engine_counts() -> None:
    game = position(
        "AC 5D KD 9S 7H 2D QH JS 8D 6S TD AH KS",
        "2C 3C 4C 4H 4D 9C 7C 8C JC 2S 9H 5H AS",
        "QC",
        "P1 draw; P1 discard 7H; P2 draw; P2 meld 2C 3C 4C; P2 discard 9H; P1 draw",
        stock="7D 2H 6C",
    )
    text = why(game.observation(0), Move.parse("P1 layoff AC 1"))
    assert text.startswith("Lay off A♣ on meld 1: A♣ scores 1 point on the table now")


def joker_in_hand() -> Game:
    """P1 has drawn, holding a joker with the 4♥ and 5♥ (a meld of the three) and a lone K♣."""
    game = position(
        "4H 5H JK 9S 9D KC 2D 3S 7C 8D JS QH AD",
        "2C 3C 4C 5C TD TS 8S 7S 6S KD KS QC 7H",
        "KH",
        "P1 draw",
        stock="AS",
    )
    assert isinstance(game, Game)
    return game


def test_a_joker_in_a_hint_is_named_in_words() -> None:
    """The meld a hint or a review suggests names its joker as the browser does (``Joker=3♥``),
    in the label and in the reason, in every shipped language; a label that starts with a card
    keeps the card as it is written when it follows "rather than"."""
    game = joker_in_hand()
    obs = game.observation(0)
    meld = Move.parse("P1 meld JK=3H 4H 5H")
    assert meld in game.legal_moves()
    assert move_label(meld, obs) == "Meld Joker=3♥ 4♥ 5♥"
    assert why(obs, meld).startswith(
        "Meld Joker=3♥ 4♥ 5♥: Joker=3♥ 4♥ 5♥ score 24 points on the table now"
    )
    for language, joker in (("hu", "Joker="), ("lo", "ໂຈກເກີ=")):
        with i18n.use_language(language):
            text = why(obs, meld)
        assert text.count(f"{joker}3♥ 4♥ 5♥") == 2 and "*" not in text, text
    with i18n.use_language("hu"):
        # the Hungarian label of a discard starts with the card: "K♣ eldobása"
        assert "K♣ eldobása" in why(obs, meld, Move.parse("P1 discard KC"))
        assert "Joker=3♥ 4♥ 5♥ kirakása" in why(obs, Move.parse("P1 discard KC"), meld)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Take the Joker: the Joker makes Q♥ K♥ Joker with your cards."),
        ("hu", "Joker felvétele: a felvett lap (Joker) a lapjaiddal kirakást ad: Q♥ K♥ Joker."),
        ("lo", "ເກັບ ໂຈກເກີ: ໂຈກເກີ ເຂົ້າຊຸດ Q♥ K♥ ໂຈກເກີ ກັບໄພ່ຂອງເຈົ້າ."),
    ],
    ids=("en", "hu", "lo"),
)
def test_the_joker_itself_in_a_hint_is_named_in_words(language: str, text: str) -> None:
    """The joker on the pile or in the hand, standing for nothing yet, is named as the browser
    names it (``Joker``), not in the hand row's compact ``JK``: in the move label and in the
    reasons, in every shipped language."""
    game = position(
        "4H 5H KH 9S 9D KC 2D 3S 7C 8D JS QH AD",
        "2C 3C 4C 5C TD TS 8S 7S 6S KD KS QC 7H",
        "JK",
        "",
        stock="AS",
    )
    take = Move.parse("P1 take 1")
    assert take in game.legal_moves()
    with i18n.use_language(language):
        assert why(game.observation(0), take) == text


def test_a_held_joker_keeps_its_name_after_rather_than() -> None:
    game = joker_in_hand()
    obs = game.observation(0)
    joker = Move.parse("P1 discard JK")
    assert move_label(joker, obs) == "Discard Joker"
    assert why(obs, Move.parse("P1 discard KC"), joker).startswith(
        "Discard K♣ rather than discard Joker: "
    )
    with i18n.use_language("hu"):
        # the Hungarian label of a discard starts with the card, kept as it is written
        assert "K♣ eldobása, nem pedig Joker eldobása: " in why(
            obs, Move.parse("P1 discard KC"), joker
        )
    with i18n.use_language("lo"):
        assert move_label(joker, obs) == "ຖິ້ມ ໂຈກເກີ"
