"""What a name may be: counted in characters as a reader counts them, no wider than a row of them,
and never a seat's label as the browser game shows it in any of its languages; chat and names on
one line (the attacks on a real server are in test_abuse_chat.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rummy500.server.client_messages import MAX_NAME_CHARS, clean_text, normalize_name
from rummy500.server.names import MAX_NAME_COLUMNS, grapheme_width, graphemes
from rummy500.server.seating import COMPUTER_NAMES

LOCALES = Path(__file__).resolve().parents[2] / "src" / "rummy500" / "web" / "js" / "locales"
#: The browser game's words for a seat where a name would stand (lobby, waiting room, table).
SEAT_KEYS = ("create.seat", "seat.bot.name", "seat.free", "lobby.seat.free", "waiting.seat.free")


def browser_labels(language: str) -> list[str]:
    """The browser game's seat labels in ``language``, filled in for seat P2."""
    text = (LOCALES / f"{language}.js").read_text(encoding="utf-8")
    labels = []
    for key in SEAT_KEYS:
        found = re.search(rf"'{re.escape(key)}':\s*'([^']*)'", text)
        assert found, f"{language}.js has no {key}"
        labels.append(found.group(1).replace("{n}", "2").replace("{seat}", "P2"))
    return labels


def refused(name: str) -> str:
    with pytest.raises(ValueError) as error:
        normalize_name(name)
    return str(error.value)


@pytest.mark.parametrize("language", ["en", "hu", "lo"])
def test_the_browser_games_seat_labels_are_no_names(language: str) -> None:
    for label in browser_labels(language):
        assert "seat's label" in refused(label), label


@pytest.mark.parametrize(
    "name",
    [
        "P2",
        "p 2",
        "Ｐ２",  # full-width: P2 after NFKC
        "P\u200b2",  # an invisible space between
        "p-2",
        "P₂",
        "Р2",  # Cyrillic Er
        "P٢",  # an Arabic-Indic two
        "P8",
        "P2 Ann",  # begins as a seat's label does
        "P2: free",
        "Seat 3",
        "Computer P1",
        "Gep P3",
        "ບ່ອນນັ່ງ ໒",  # Lao digit
    ],
)
def test_names_that_read_as_a_seat_are_refused(name: str) -> None:
    assert "seat's label" in refused(name)


@pytest.mark.parametrize(
    "name",
    ["Ann", "Pál", "Pete 2", "P.J.", "Player 1", "R2D2", "Piper", "Ann P2", "Seat", "Freddie"],
)
def test_names_that_merely_hold_a_p_or_a_digit_are_kept(name: str) -> None:
    assert normalize_name(name) == name


def test_no_computer_players_name_reads_as_a_seat() -> None:
    for name in COMPUTER_NAMES:
        assert normalize_name(name) == name


def test_length_counts_grapheme_clusters() -> None:
    family, flag = "👩\u200d👩\u200d👧", "🇭🇺"
    assert graphemes(family + flag + "e\u0301") == [family, flag, "e\u0301"]
    # ten families are 50 code points but ten characters to a reader; thirteen flags 26
    assert normalize_name(family * 10) == family * 10
    assert normalize_name(flag * 13) == flag * 13
    assert normalize_name("é" * MAX_NAME_CHARS) == "é" * MAX_NAME_CHARS
    assert f"at most {MAX_NAME_CHARS} characters, not 25" in refused("e\u0301" * 25)


def test_width_is_capped_and_very_wide_glyphs_count_what_they_take() -> None:
    assert grapheme_width("a") == 1 and grapheme_width("漢") == 2
    assert grapheme_width("👩\u200d👩\u200d👧") == 2 and grapheme_width("\ufdfd") == 12
    assert normalize_name("漢" * MAX_NAME_CHARS) == "漢" * MAX_NAME_CHARS  # 48 columns
    assert normalize_name("\ufdfd" * 4) == "\ufdfd" * 4  # as wide as 24 CJK characters
    message = refused("\ufdfd" * 24)  # one grapheme each, but 288 columns
    assert f"288 columns, at most {MAX_NAME_COLUMNS}" in message and "12" in message
    assert "too wide" in refused("𒈙" * 17)  # cuneiform: 3 columns each


def test_line_and_paragraph_separators_become_spaces() -> None:
    assert clean_text("one\u2028two\u2029three", "chat") == "one two three"
    assert clean_text("\u2029hi\u2028", "chat") == "hi"
    assert normalize_name("Ann\u2028Lee") == "Ann Lee"
