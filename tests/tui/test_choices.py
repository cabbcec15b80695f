"""The choice among the engine's readings of an intent, in words: which meld (where the ace
goes, what a joker stands for), which card on which meld at which end, how deep a Rummy! call."""

from __future__ import annotations

from pathlib import Path

from rummy500 import i18n
from rummy500.engine import Move
from rummy500.tui.choices import choice_label, choice_title
from tests.tui.helpers import HANDS, scripted_session


def test_each_choice_is_said_in_words(data_dir: Path) -> None:
    session = scripted_session(data_dir, HANDS, "KH", "AS 2H", [["P2 draw", "P2 discard KS"]])
    session.play_bots()
    session.play(Move.parse("P1 draw"))
    session.play(Move.parse("P1 meld 4H 5H 6H"))
    seen = session.game.observation(0)

    calls = [Move.parse("P1 rummy 1"), Move.parse("P1 rummy 2")]
    assert choice_title(calls) == "Call Rummy! on which card?"
    assert [choice_label(m, seen) for m in calls] == [
        "take the K♠",
        "take 2 cards, down to the K♥",
    ]
    melds = [Move.parse("P1 meld AH 2H 3H"), Move.parse("P1 meld QH KH AH")]
    assert choice_title(melds) == "Which meld do you mean?"
    assert [choice_label(m, seen) for m in melds] == ["A♥ 2♥ 3♥ (ace low)", "Q♥ K♥ A♥ (ace high)"]
    joker = [Move.parse("P1 layoff JK=3H 1"), Move.parse("P1 layoff JK=7H 1")]
    assert choice_title(joker) == "Where does the Joker go?"
    assert choice_label(joker[0], seen) == "Joker=3♥ on meld #1: 4♥ 5♥ 6♥"
    nines = Move.parse("P1 meld 9S JK=9 JK=9")
    assert choice_label(nines, seen) == "9♠ Joker=9 Joker=9"
    with i18n.use_language("lo"):
        assert choice_label(joker[0], seen).startswith("ໂຈກເກີ=3♥ ")
        assert choice_label(nines, seen) == "9♠ ໂຈກເກີ=9 ໂຈກເກີ=9"
        assert choice_title(joker) == "ຈະວາງ ໂຈກເກີ ໄວ້ບ່ອນໃດ?"
    with i18n.use_language("hu"):
        assert choice_title(joker) == "Hová kerüljön ez a lap: Joker?"
    cards = [Move.parse("P1 layoff 3H 1"), Move.parse("P1 layoff 7H 1")]
    assert choice_title(cards) == "Lay off which card?"
