"""The table as an SVG picture, drawn from one seat's observation (as ``chess.svg.board`` draws
a chess board): for notebooks, documents and bug reports.

:func:`table` only builds a string. It draws what :class:`~rummy500.engine.Observation` holds
and nothing else, so a picture never shows a card the seat may not see: its own hand face up,
the other seats' card counts and the cards known to be in their hands, the stock face down, the
whole discard pile, the melds with who played each card, the scores, whose turn it is and the
phase.

Suits differ by symbol and by shape (every card also carries its suit drawn as a path, which
needs no font); red and black only repeat that. Who played a card on the table is written on it
(the seat's number on a band of the seat's colour); the seat boxes are the legend.

>>> from rummy500.engine import Game
>>> picture = table(Game.new(players=2, seed=7).observation(0), names=["Ann", "Bob"])
>>> picture.startswith("<svg")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from rummy500.engine.cards import JOKER, JOKER_AS, JOKER_RANK, sort_key_suit
from rummy500.engine.moves import Move
from rummy500.engine.observation import MeldView, Observation
from rummy500.engine.reasons import RANK_LABELS, card_label

__all__ = ["SEAT_COLORS", "table"]

#: One colour per seat (Okabe and Ito's palette, told apart by most colour-blind eyes); each
#: band also carries the seat's number, so nothing depends on the colour.
SEAT_COLORS = (
    "#e69f00",
    "#56b4e9",
    "#009e73",
    "#f0e442",
    "#cc79a7",
    "#d55e00",
    "#0072b2",
    "#bbbbbb",
)
_DARK_TEXT_ON = frozenset({0, 1, 2, 3, 4, 7})  # seat colours light enough for black text

_FONT = (
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', 'DejaVu Sans', Arial, "
    "sans-serif"
)
_RED = "#c62828"
_BLACK = "#1a1a1a"
_FELT = "#1e5e3a"
_PANEL = "#174d2f"
_INK = "#f3f6f2"  # text on the felt
_MUTED = "#b9d3c2"
_HILITE = "#ffd54a"  # whose turn it is
_JOKER_FACE = "#fff3c4"
_JOKER_INK = "#7a4a00"

_WIDTH = 640
_MARGIN = 12

# Suits as paths in a unit square (clubs, diamonds, hearts, spades).
_SUIT_PATHS = (
    "M.5 .02a.21 .21 0 0 0-.19 .3A.21 .21 0 1 0 .43 .68L.36 .98H.64L.57 .68A.21 .21 0 1 0 "
    ".69 .32 .21 .21 0 0 0 .5 .02Z",
    "M.5 0 .88 .5 .5 1 .12 .5Z",
    "M.5 .95C.2 .7 0 .52 0 .3 0 .12 .14 0 .28 0 .4 0 .47 .07 .5 .17 .53 .07 .6 0 .72 0 "
    ".86 0 1 .12 1 .3 1 .52 .8 .7 .5 .95Z",
    "M.5 0C.8 .26 1 .42 1 .6 1 .76 .88 .86 .75 .86 .64 .86 .56 .8 .53 .74 .54 .86 .58 .94 "
    ".66 1H.34C.42 .94 .46 .86 .47 .74 .44 .8 .36 .86 .25 .86 .12 .86 0 .76 0 .6 0 .42 .2 "
    ".26 .5 0Z",
)


@dataclass
class _Canvas:
    """SVG elements in drawing order (later ones on top)."""

    parts: list[str] = field(default_factory=list)

    def add(self, element: str) -> None:
        self.parts.append(element)

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str,
        *,
        rx: float = 0,
        stroke: str = "none",
        width: float = 1,
        extra: str = "",
    ) -> None:
        self.add(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{_n(rx)}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{_n(width)}"{extra}/>'
        )

    def text(
        self,
        x: float,
        y: float,
        content: str,
        *,
        size: float = 12,
        fill: str = _INK,
        weight: str = "normal",
        anchor: str = "start",
    ) -> None:
        bold = ' font-weight="bold"' if weight == "bold" else ""
        where = f' text-anchor="{anchor}"' if anchor != "start" else ""
        self.add(
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" fill="{fill}"{bold}{where}>'
            f"{escape(content)}</text>"
        )

    def suit(self, suit: int, x: float, y: float, size: float) -> None:
        self.add(
            f'<path d="{_SUIT_PATHS[suit]}" fill="{_suit_color(suit)}" '
            f'transform="translate({_n(x)} {_n(y)}) scale({_n(size)})"/>'
        )


def _n(value: float) -> str:
    """A coordinate, short: ``12``, ``12.5``."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _suit_color(suit: int) -> str:
    return _RED if suit in (1, 2) else _BLACK


def _seat_name(seat: int, names: Sequence[str] | None) -> str:
    if names is not None and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"P{seat + 1}"


def _fit(text: str, width: float, size: float) -> str:
    """``text`` cut with an ellipsis to about ``width`` pixels at font ``size``."""
    room = max(3, int(width / (size * 0.58)))
    return text if len(text) <= room else text[: room - 1] + "…"


# --- cards ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CardSize:
    w: float
    h: float
    label: float  # font size of the corner index
    pip: float  # size of the suit under the index


_HAND = _CardSize(46, 66, 15, 13)
_PILE = _CardSize(40, 56, 13, 11)
_MELD = _CardSize(36, 52, 12, 10)
_MINI = _CardSize(26, 34, 10, 0)


def _label_width(label: str, size: float) -> float:
    """About how wide ``label`` is in bold at font ``size`` (suits and the star are wider)."""
    return sum((0.8 if ch in "★♣♦♥♠" else 0.68) * size for ch in label)


def _label_size(label: str, size: _CardSize) -> float:
    """The font size of a corner index: the card's, smaller for an index too wide for it."""
    return min(size.label, (size.w - 6) / _label_width(label, 1))


def _index_label(played: int) -> str:
    """The corner index of a card as played: ``10♦``, ``★8♥``, ``★9``, ``★`` (a joker)."""
    if played == JOKER:
        return "★"
    if played >= JOKER_RANK:
        return "★" + RANK_LABELS[played - JOKER_RANK]
    if played >= JOKER_AS:
        return "★" + card_label(played - JOKER_AS)
    return card_label(played)


def _card(
    c: _Canvas,
    played: int,
    x: float,
    y: float,
    size: _CardSize,
    where: str,
    *,
    band: int | None = None,
    outline: str | None = None,
    seen: bool = False,
) -> None:
    """A card face: ``played`` is a card code or a card as played (a joker with what it stands
    for); ``where`` is a class name (hand, known, pile, meld). ``band``: the seat that played
    it, written on a coloured band at the bottom."""
    c.add(f'<g class="card {where}">')
    joker = played == JOKER or played >= JOKER_AS
    c.rect(
        x,
        y,
        size.w,
        size.h,
        _JOKER_FACE if joker else "#ffffff",
        rx=size.w * 0.1,
        stroke=outline or ("#b8860b" if joker else "#6b6b6b"),
        width=2.5 if outline else 1,
    )
    left = x + 3
    top = y + size.label + 1
    natural = played - JOKER_AS if JOKER_AS <= played < JOKER_RANK else played
    suit = natural // 13 if natural < JOKER else -1  # no suit: a joker, or one as a rank
    ink = _JOKER_INK if joker else _suit_color(suit)
    label = _index_label(played)
    c.text(left, top, label, size=_label_size(label, size), fill=ink, weight="bold")
    if played == JOKER and size.pip:
        c.add(
            f'<text x="{_n(x + size.w / 2)}" y="{_n(y + size.h * 0.62)}" '
            f'font-size="{_n(size.label * 0.62)}" fill="{_JOKER_INK}" font-weight="bold" '
            f'text-anchor="middle" letter-spacing="0.5">JOKER</text>'
        )
    if suit >= 0 and size.pip:
        c.suit(suit, left, top + 3, size.pip)
        if size is _HAND:
            big = size.w * 0.5
            c.suit(suit, x + (size.w - big) / 2 + 4, y + size.h - big - 6, big)
    if band is not None:
        bh = size.h * 0.22
        c.rect(x + 0.5, y + size.h - bh, size.w - 1, bh - 0.5, SEAT_COLORS[band % 8], rx=2)
        c.text(
            left + 1,
            y + size.h - bh * 0.25,
            str(band + 1),
            size=bh * 0.8,
            fill=_BLACK if band % 8 in _DARK_TEXT_ON else "#ffffff",
            weight="bold",
        )
    if seen:  # the other seats know this card is in the hand
        c.add(
            f'<circle cx="{_n(x + 8)}" cy="{_n(y + size.h - 8)}" r="4" fill="none" '
            f'stroke="#555" stroke-width="1.5"/>'
        )
    c.add("</g>")


def _back(c: _Canvas, x: float, y: float, w: float, h: float) -> None:
    """A face-down card."""
    c.rect(x, y, w, h, "#2a4d8f", rx=w * 0.1, stroke="#f0f0f0", width=1)
    c.rect(x + 3, y + 3, w - 6, h - 6, "none", rx=w * 0.06, stroke="#8fb0e8", width=1)


def _spread_step(count: int, room: float, card_w: float, best: float, least: float) -> float:
    """The distance between the left edges of ``count`` cards spread over ``room`` pixels."""
    if count <= 1:
        return best
    return max(least, min(best, (room - card_w) / (count - 1)))


def _per_row(room: float, card_w: float, least: float) -> int:
    """How many cards fit in a row of ``room`` pixels, their left edges ``least`` apart."""
    return max(1, int((room - card_w) // least) + 1)


# --- the picture --------------------------------------------------------------------------------


def table(
    observation: Observation,
    *,
    names: Sequence[str] | None = None,
    size: int = 640,
    title: str | None = None,
) -> str:
    """The table as ``observation.seat`` sees it, as a self-contained SVG document.

    ``names`` name the seats (0-based; ``P1``, ``P2``… otherwise); ``size`` is the width in
    pixels (the height follows the content); ``title`` is the picture's accessible title.
    Every text from outside (names, title) is escaped.
    """
    obs = observation
    c = _Canvas()
    w = _WIDTH
    inner = w - 2 * _MARGIN
    y = float(_MARGIN)

    y = _header(c, obs, names, y, inner)
    y = _seats(c, obs, names, y + 6, inner)
    y = _piles(c, obs, names, y + 10, inner)
    y = _melds(c, obs.melds, y + 6, inner)
    y = _own_hand(c, obs, names, y + 8, inner)
    height = y + _MARGIN

    heading = title if title is not None else _default_title(obs, names)
    scale = size / w
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" '
        f'width="{_n(size)}" height="{_n(height * scale)}" viewBox="0 0 {w} {_n(height)}" '
        f'font-family="{_FONT}" role="img">'
        f"<title>{escape(heading)}</title>"
        f'<rect width="{w}" height="{_n(height)}" rx="10" fill="{_FELT}"/>'
        + "".join(c.parts)
        + "</svg>"
    )


def _default_title(obs: Observation, names: Sequence[str] | None) -> str:
    return (
        f"Rummy 500, hand {obs.hand_number}, {obs.players} players, "
        f"as {_seat_name(obs.seat, names)} sees it"
    )


def _header(
    c: _Canvas, obs: Observation, names: Sequence[str] | None, y: float, inner: float
) -> float:
    """The hand, whose turn it is and the phase (and an open call window)."""
    x = _MARGIN
    c.text(x, y + 15, f"Hand {obs.hand_number}", size=16, weight="bold")
    c.text(x + inner, y + 15, f"game to {obs.rules.target}", size=11, fill=_MUTED, anchor="end")
    status = _status(obs, names)
    if len(status) * 13 * 0.6 <= inner - 170:
        c.text(x + 78, y + 15, status, size=13, fill=_HILITE, weight="bold")
        return y + 22
    c.text(x, y + 35, _fit(status, inner, 13), size=13, fill=_HILITE, weight="bold")
    return y + 42


def _status(obs: Observation, names: Sequence[str] | None) -> str:
    """The phase in words: who must do what."""

    def name(seat: int) -> str:
        return _seat_name(seat, names)

    phase = obs.phase
    actor = obs.to_act
    if phase in ("hand_over", "game_over"):
        result = obs.hand_results[-1] if obs.hand_results else None
        if result is None:
            ended = ""
        elif result.out is not None:
            ended = f"{name(result.out)} went out"
        else:
            ended = "the stock ran out"
        if phase == "hand_over":
            return f"Hand over: {ended}" if ended else "Hand over"
        won = f"{name(obs.winner)} wins" if obs.winner is not None else "nobody wins"
        return f"Game over: {won}" + (f" ({ended})" if ended else "")
    if actor is None:
        return str(phase)
    if phase == "call":
        discarder = (obs.turn - 1) % obs.players
        waiting = [name(s) for s in obs.window]
        then = f" (then {', '.join(waiting[1:])})" if len(waiting) > 1 else ""
        return f"Rummy! window after {name(discarder)}'s discard: {name(actor)} may call{then}"
    if phase == "draw":
        if obs.hand_sizes[actor] == 0:
            return f"{name(actor)} to draw (floating, no cards)"
        return f"{name(actor)} to draw"
    doing = f"{name(actor)} to play"
    if obs.must_use >= 0:
        card = card_label(obs.must_use)
        how = ("meld or lay off", "put into a new meld", "lay off")[obs.must_mode % 3]
        doing += f": must {how} the {card} first"
    return doing


def _seat_chip(c: _Canvas, seat: int, cx: float, cy: float, r: float = 8) -> None:
    c.add(
        f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" fill="{SEAT_COLORS[seat % 8]}" '
        f'stroke="#102a1a" stroke-width="1"/>'
    )
    c.text(
        cx,
        cy + r * 0.45,
        str(seat + 1),
        size=r * 1.3,
        fill=_BLACK if seat % 8 in _DARK_TEXT_ON else "#ffffff",
        weight="bold",
        anchor="middle",
    )


def _hand_score(obs: Observation, seat: int) -> str:
    """This hand's points so far, or the hand's score once it is over."""
    if obs.phase in ("hand_over", "game_over") and obs.hand_results:
        return f"scored {obs.hand_results[-1].scores[seat]:+d}"
    return f"hand {obs.points[seat]:+d}"


def _seats(
    c: _Canvas, obs: Observation, names: Sequence[str] | None, y: float, inner: float
) -> float:
    """A box per other seat, in turn order after this one: name, cards, totals, known cards."""
    others = [(obs.seat + k) % obs.players for k in range(1, obs.players)]
    cols = (1, 2, 3, 2, 3, 3, 4)[len(others) - 1]
    gap = 8
    bw = (inner - gap * (cols - 1)) / cols
    step_best, step_least = _MINI.w + 2, 23.0
    per_row = _per_row(bw - 16, _MINI.w, step_least)
    for row_start in range(0, len(others), cols):
        row = others[row_start : row_start + cols]
        known_rows = [
            (len(obs.known[s]) + per_row - 1) // per_row if obs.known[s] else 0 for s in row
        ]
        bh = 44 + max(known_rows) * (_MINI.h + 4) + (4 if max(known_rows) else 0)
        for i, seat in enumerate(row):
            x = _MARGIN + i * (bw + gap)
            acting = seat == obs.to_act
            c.rect(
                x,
                y,
                bw,
                bh,
                _PANEL,
                rx=6,
                stroke=_HILITE if acting else "#2f7a50",
                width=2.5 if acting else 1,
            )
            c.rect(x, y, 5, bh, SEAT_COLORS[seat % 8], rx=2)
            _seat_chip(c, seat, x + 17, y + 13)
            tags = " ".join(_SHORT_MARKS[m] for m in _marks(obs, seat))
            total = str(obs.totals[seat])
            room = bw - 34 - 8 * len(total) - 7 * len(tags) - 10
            c.text(x + 30, y + 18, _fit(_seat_name(seat, names), room, 13), size=13, weight="bold")
            c.text(x + bw - 8, y + 18, total, size=14, weight="bold", anchor="end")
            if tags:
                c.text(
                    x + bw - 14 - 8.5 * len(total),
                    y + 17,
                    tags,
                    size=10,
                    fill=_HILITE,
                    anchor="end",
                    weight="bold",
                )
            _back(c, x + 11, y + 25, 10, 14)
            count = obs.hand_sizes[seat]
            cards = f"{count} card{'s' if count != 1 else ''}"
            c.text(x + 25, y + 36, cards, size=11)
            score = _hand_score(obs, seat)
            if bw < 170:  # narrow boxes: the number only
                score = score.split()[-1]
            c.text(x + bw - 8, y + 36, score, size=11, fill=_MUTED, anchor="end")
            known = sorted(obs.known[seat], key=sort_key_suit)
            if known:
                step = _spread_step(
                    min(len(known), per_row), bw - 16, _MINI.w, step_best, step_least
                )
                for k, card in enumerate(known):
                    r, col = divmod(k, per_row)
                    _card(c, card, x + 10 + col * step, y + 44 + r * (_MINI.h + 4), _MINI, "known")
        y += bh + gap
    return y - gap


def _marks(obs: Observation, seat: int) -> list[str]:
    """What a seat is besides a player: the dealer, the winner, floating (no cards)."""
    marks = []
    if seat == obs.dealer:
        marks.append("dealer")
    if obs.winner == seat:
        marks.append("winner")
    elif obs.hand_sizes[seat] == 0 and obs.phase in ("draw", "play", "call"):
        marks.append("floating")
    return marks


_SHORT_MARKS = {"dealer": "D", "winner": "WIN", "floating": "FLOAT"}


def _move_words(move: Move, names: Sequence[str] | None) -> str:
    """A move of the history in words (a draw from the stock never shows its card)."""
    who = _seat_name(move.seat, names)
    cards = " ".join(_index_label(p) for p in move.cards)
    verb = move.verb
    if verb == "draw":
        return f"{who} drew from the stock"
    if verb in ("take", "rummy"):
        n = move.number
        taken = "the top discard" if n == 1 else f"{n} cards from the discard pile"
        return f"{who} called Rummy! and took {taken}" if verb == "rummy" else f"{who} took {taken}"
    if verb == "meld":
        return f"{who} melded {cards}"
    if verb == "layoff":
        return f"{who} laid off {cards} on meld {move.number}"
    if verb == "discard":
        return f"{who} discarded {cards}"
    if verb == "end":
        return f"{who} ended the hand"
    return f"{who} passed"


def _piles(
    c: _Canvas, obs: Observation, names: Sequence[str] | None, y: float, inner: float
) -> float:
    """The stock face down with its count, and the discard pile spread, top last."""
    x = _MARGIN
    size = _PILE
    c.text(x, y + 10, "stock", size=11, fill=_MUTED)
    top = y + 16
    if obs.stock_size:
        layers = min(3, obs.stock_size)
        for k in range(layers):
            _back(c, x + 2 * (layers - 1 - k), top + 2 * (layers - 1 - k), size.w, size.h)
        c.text(
            x + size.w / 2 + 2,
            top + size.h / 2 + 7,
            str(obs.stock_size),
            size=17,
            weight="bold",
            anchor="middle",
        )
    else:
        c.rect(x, top, size.w, size.h, "none", rx=4, stroke=_MUTED, extra=' stroke-dasharray="4 3"')
        c.text(x + size.w / 2, top + size.h / 2 + 4, "empty", size=10, fill=_MUTED, anchor="middle")
    px = x + size.w + 26
    room = _MARGIN + inner - px
    pile = obs.discard_pile
    label = f"discard pile · {len(pile)} card{'s' if len(pile) != 1 else ''} · top last"
    c.text(px, y + 10, label, size=11, fill=_MUTED)
    if obs.history:
        last = "last: " + _move_words(obs.history[-1], names)
        c.text(
            _MARGIN + inner, y + 10, _fit(last, inner - 300, 11), size=11, fill=_MUTED, anchor="end"
        )
    if not pile:
        c.rect(
            px, top, size.w, size.h, "none", rx=4, stroke=_MUTED, extra=' stroke-dasharray="4 3"'
        )
        return top + size.h + 4
    least = 31.0
    per_row = _per_row(room, size.w, least)
    step = _spread_step(min(len(pile), per_row), room, size.w, size.w + 4, least)
    rows = (len(pile) + per_row - 1) // per_row
    row_h = size.h + 14
    for k, card in enumerate(pile):
        r, col = divmod(k, per_row)
        cx = px + col * step
        cy = top + r * row_h
        _card(c, card, cx, cy, size, "pile")
        depth = len(pile) - k  # how many cards a take of this one takes
        c.text(cx + 2, cy + size.h + 10, str(depth), size=8.5, fill=_MUTED)
    return top + rows * row_h - 4


def _meld_step(played: int) -> float:
    """How much of a meld card shows under the next one: its whole index."""
    label = _index_label(played)
    return max(22.0, _label_width(label, _label_size(label, _MELD)) + 6)


def _melds(c: _Canvas, melds: Sequence[MeldView], y: float, inner: float) -> float:
    """The melds on the table, each with its number and who played each card."""
    x0 = _MARGIN
    size = _MELD
    if not melds:
        c.text(x0, y + 12, "no melds on the table yet", size=11, fill=_MUTED)
        return y + 16
    c.text(x0, y + 10, "melds · the band says who played each card", size=11, fill=_MUTED)
    y += 16
    x = float(x0)
    row_h = size.h + 8
    for meld in melds:
        steps = [_meld_step(p) for p in meld.cards[:-1]]
        width = 22 + sum(steps) + size.w
        if x > x0 and x + width > x0 + inner:
            x = float(x0)
            y += row_h
        c.add(
            f'<circle cx="{_n(x + 9)}" cy="{_n(y + 11)}" r="9" fill="#0f3a22" '
            f'stroke="{_MUTED}" stroke-width="1"/>'
        )
        c.text(x + 9, y + 15, str(meld.number), size=11, weight="bold", anchor="middle")
        cx = x + 22
        for k, (played, owner) in enumerate(zip(meld.cards, meld.played_by, strict=True)):
            _card(c, played, cx, y, size, "meld", band=owner)
            if k < len(steps):
                cx += steps[k]
        x += width + 14
    return y + size.h


def _own_hand(
    c: _Canvas, obs: Observation, names: Sequence[str] | None, y: float, inner: float
) -> float:
    """The seat's own hand, face up, by suit then rank."""
    seat = obs.seat
    x = _MARGIN
    size = _HAND
    hand = sorted(obs.hand, key=sort_key_suit)
    acting = seat == obs.to_act
    least = 34.0
    per_row = _per_row(inner - 16, size.w, least)
    rows = max(1, (len(hand) + per_row - 1) // per_row)
    per_row = max(1, (len(hand) + rows - 1) // rows)  # rows of even length
    must_play = obs.must_use if acting and obs.phase == "play" else -1
    notes = []
    if obs.known[seat]:
        notes.append("○ the others know you hold it")
    if must_play >= 0:
        notes.append("outlined: must be played first")
    height = 30 + rows * (size.h + 6) + (18 if notes else 4)
    c.rect(
        x,
        y,
        inner,
        height,
        _PANEL,
        rx=6,
        stroke=_HILITE if acting else "#2f7a50",
        width=2.5 if acting else 1,
    )
    c.rect(x, y, 5, height, SEAT_COLORS[seat % 8], rx=2)
    _seat_chip(c, seat, x + 17, y + 14)
    name = _fit(_seat_name(seat, names), inner * 0.4, 13)
    c.text(x + 30, y + 19, f"{name} (you)", size=13, weight="bold")
    count = len(hand)
    summary = " · ".join(
        [
            *_marks(obs, seat),
            f"{count} card{'s' if count != 1 else ''}",
            _hand_score(obs, seat),
            "total",
        ]
    )
    c.text(
        x + inner - 12 - 9 * len(str(obs.totals[seat])),
        y + 19,
        summary,
        size=11,
        fill=_MUTED,
        anchor="end",
    )
    c.text(x + inner - 8, y + 19, str(obs.totals[seat]), size=14, weight="bold", anchor="end")
    top = y + 28
    known = list(obs.known[seat])
    if not hand:
        c.text(x + 14, top + 30, "no cards", size=12, fill=_MUTED)
    step = _spread_step(min(len(hand), per_row), inner - 16, size.w, size.w + 5, least)
    for k, card in enumerate(hand):
        r, col = divmod(k, per_row)
        seen = card in known
        if seen:
            known.remove(card)
        must = card == must_play
        if must:
            must_play = -1  # one copy is enough
        _card(
            c,
            card,
            x + 10 + col * step,
            top + r * (size.h + 6),
            size,
            "hand",
            outline=_HILITE if must else None,
            seen=seen,
        )
    if notes:
        c.text(x + 12, y + height - 7, " · ".join(notes), size=9.5, fill=_MUTED)
    return y + height
