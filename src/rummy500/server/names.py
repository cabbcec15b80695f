"""What a player's name may look like, beyond clean text: how long and how wide it is as a
person sees it, and whether it reads as one of the seats' own labels.

Length counts *grapheme clusters* (``regex``'s ``\\X``, Unicode's extended grapheme clusters):
what a reader takes for one character — ``é`` written as ``e`` and an accent, a flag, an emoji
family joined by zero-width joiners — counts once. Width counts columns: a character East
Asian typography draws wide (CJK, most emoji) takes two, and the few glyphs drawn much wider
than any letter (the Bismillah ligature U+FDFD, about twelve; cuneiform signs) take what they
are drawn in, so that no short name fills a row meant for 24 letters.

A name that reads as a seat's label — ``P2`` as the notation, the lobby and the table show a
seat without a name, "Seat 2", "Computer P2", "free" as the browser game says them in each of
its languages — would make a taken seat look free or a person look like a computer player: it
is refused.
"""

from __future__ import annotations

import unicodedata

import regex

__all__ = [
    "MAX_NAME_COLUMNS",
    "SEAT_LABELS",
    "graphemes",
    "grapheme_width",
    "reads_as_seat_label",
]

#: A name's width, at most: two columns a character, as wide as 24 CJK characters.
MAX_NAME_COLUMNS = 48

#: Glyphs drawn much wider than a letter (in columns of a letter's width, as common fonts draw
#: them): ``(first, last, columns)``. Wider Arabic ligatures that NFKC spells out (U+FDFA
#: becomes 18 letters) are counted as their letters instead.
VERY_WIDE = (
    (0x2E3A, 0x2E3A, 2),  # ⸺ two-em dash
    (0x2E3B, 0x2E3B, 3),  # ⸻ three-em dash
    (0xFD40, 0xFD4F, 4),  # Arabic honorific ligatures (﵀ …)
    (0xFDCF, 0xFDCF, 4),  # ﷏
    (0xFDFD, 0xFDFD, 12),  # ﷽ the Bismillah
    (0xFDFE, 0xFDFF, 4),  # ﷾ ﷿
    (0x12000, 0x1254F, 3),  # cuneiform signs, numbers and early dynastic cuneiform
)

_GRAPHEME = regex.compile(r"\X")
_WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")


def graphemes(text: str) -> list[str]:
    """``text`` as a reader counts its characters: its extended grapheme clusters."""
    return _GRAPHEME.findall(text)


def _columns(ch: str) -> int:
    code = ord(ch)
    for first, last, columns in VERY_WIDE:
        if first <= code <= last:
            return columns
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def grapheme_width(cluster: str) -> int:
    """Columns one grapheme cluster takes: its widest character's (an emoji presentation
    selector makes it two)."""
    width = max((_columns(ch) for ch in cluster), default=0)
    if "\ufe0f" in cluster:
        width = max(width, 2)
    return width


#: How the seats are labelled where a name would stand, in every language the browser game
#: speaks (``web/js/locales``: ``create.seat``, ``seat.bot.name``, ``seat.free``,
#: ``lobby.seat.free``; the notation's ``P1``…``P8``), matched on a name's letters, marks and
#: digits only (:func:`reads_as_seat_label`).
SEAT_LABELS = (
    r"p\d+",  # P2: a seat as the notation, the lobby and the table name one without a name
    r"seat\d+",  # "Seat 2": the seats of the lobby's forms
    r"\d+hely",  # "2. hely"
    r"ບ່ອນນັ່ງ\d+",  # "ບ່ອນນັ່ງ 2"
    r"computerp\d+",  # "Computer P2": a computer seat without a name
    r"g[ée]pp\d+",  # "Gép P2"
    r"ຄອມພິວເຕີp\d+",  # "ຄອມພິວເຕີ P2"
    r"free(seat)?",  # "free", "free seat"
    r"szabad(hely)?",  # "szabad", "szabad hely"
    r"ຫວ່າງ",  # "ຫວ່າງ"
    r"ບ່ອນນັ່ງຫວ່າງ",  # "ບ່ອນນັ່ງຫວ່າງ"
)
_LABEL = regex.compile("|".join(f"(?:{label})" for label in SEAT_LABELS))
_SEAT = regex.compile(r"p\d+")
#: Letters drawn as a Latin p: Cyrillic er and Greek rho (after ``casefold``).
_LOOKS_LIKE_P = str.maketrans({"\u0440": "p", "\u03c1": "p"})


def _folded_words(name: str) -> list[str]:
    """The words of ``name`` as :data:`SEAT_LABELS` are matched: NFKC, ignoring case, a Cyrillic
    or Greek letter drawn as p read as p, digits of any script as 0-9, and only the runs of
    letters, marks and digits (spaces, punctuation and symbols between them dropped)."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_LOOKS_LIKE_P)
    digits = "".join(
        str(unicodedata.decimal(ch)) if unicodedata.decimal(ch, None) is not None else ch
        for ch in folded
    )
    return _WORD.findall(digits)


def reads_as_seat_label(name: str) -> bool:
    """Whether ``name`` reads as a seat's label (:data:`SEAT_LABELS`: ``P2``, ``p 2``,
    ``Ｐ２``, ``Seat 2``, ``Computer P2``, ``free``, in every language of the browser game), or
    begins with a seat's ``P2`` (``P2 Ann``, ``P2: free``)."""
    words = _folded_words(name)
    if _LABEL.fullmatch("".join(words)):
        return True
    return any(_SEAT.fullmatch("".join(words[:k])) for k in (1, 2))
