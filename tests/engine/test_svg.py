"""The SVG picture of the table (engine/svg.py): a well-formed, self-contained document that
draws exactly what one seat may see — every card of its hand, the discard pile in order, the
melds with who played each card, the cards known to be in other hands — and nothing else.

The positions come from random legal play (seeded), so that every phase, 2 and 8 players and
melds with jokers are drawn from real games; the hidden cards are taken from the true game, not
from the observation the picture was drawn from.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from functools import cache

import pytest

from rummy500.engine import Game, Rules
from rummy500.engine.cards import JOKER, JOKER_AS, JOKER_RANK, deck
from rummy500.engine.svg import table

SVG = "{http://www.w3.org/2000/svg}"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "♣♦♥♠"
LABEL = re.compile(r"(10|[A2-9JQK])([♣♦♥♠])")


def label(played: int) -> str:
    """How a card is written on its face (written here from the docs, not taken from svg.py):
    ``10♥``; a joker in a hand ``★``; a joker on the table with what it stands for."""
    if played == JOKER:
        return "★"
    if played >= JOKER_RANK:
        return "★" + RANKS[played - JOKER_RANK]
    if played >= JOKER_AS:
        return "★" + label(played - JOKER_AS)
    return RANKS[played % 13] + SUITS[played // 13]


# --- positions from random play -----------------------------------------------------------------


def play_until(
    players: int, wanted: Callable[[Game], bool], rules: Rules | None = None, first_seed: int = 0
) -> Game:
    """The first position of seeded random play that is ``wanted``."""
    for seed in range(first_seed, first_seed + 400):
        game = Game.new(players, rules, seed=seed)
        rng = random.Random(seed)
        for _ in range(2500):
            if wanted(game):
                return game
            moves = game.legal_moves()
            if moves:
                game.play(rng.choice(moves))
            elif game.is_game_over():
                break
            else:
                game.deal()
    raise AssertionError(f"no wanted position for {players} players")


def has_joker_meld(game: Game) -> bool:
    return any(p >= JOKER_AS for m in game.observation(0).melds for p in m.cards)


PHASES = ("draw", "play", "call", "hand_over", "game_over")


@cache
def position(players: int, phase: str) -> Game:
    """A position of ``phase`` with melds on the table (and a joker among them when possible)."""
    rules = Rules(target=150) if phase == "game_over" else None

    def wanted(game: Game) -> bool:
        obs = game.observation(0)
        return obs.phase == phase and len(obs.melds) >= 2 and sum(map(len, obs.known)) > 0

    return play_until(players, wanted, rules)


@cache
def joker_position(players: int) -> Game:
    return play_until(players, lambda g: has_joker_meld(g) and g.phase == "play")


def every_position() -> list[tuple[int, str]]:
    return [(players, phase) for players in (2, 8) for phase in PHASES]


# --- reading the picture --------------------------------------------------------------------------


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def cards_drawn(root: ET.Element, where: str | None = None) -> list[str]:
    """The face labels of the cards drawn (of one class: hand, known, pile, meld), in order."""
    labels = []
    for g in root.iter(SVG + "g"):
        classes = (g.get("class") or "").split()
        if "card" in classes and (where is None or where in classes):
            texts = [t.text or "" for t in g.iter(SVG + "text")]
            labels.append(texts[0])
    return labels


def meld_owners(root: ET.Element) -> list[str]:
    """The seat numbers written on the bands of the meld cards, in order."""
    owners = []
    for g in root.iter(SVG + "g"):
        if "meld" in (g.get("class") or "").split():
            owners.append([t.text for t in g.iter(SVG + "text")][-1] or "")
    return owners


def every_text(root: ET.Element) -> str:
    """All the words of the document: texts, tails and attribute values."""
    words = []
    for element in root.iter():
        words.extend([element.text or "", element.tail or ""])
        words.extend(element.attrib.values())
    return "\n".join(words)


def visible(game: Game, seat: int) -> Counter[str]:
    """The cards ``seat`` may see, as they are written: its hand, the pile, the melds and the
    cards known to be in the other hands."""
    obs = game.observation(seat)
    seen = Counter(label(c) for c in obs.hand)
    seen.update(label(c) for c in obs.discard_pile)
    seen.update(label(p) for m in obs.melds for p in m.cards)
    for other in range(game.players):
        if other != seat:
            seen.update(label(c) for c in game.known_cards(other))
    return seen


def hidden(game: Game, seat: int) -> Counter[int]:
    """The cards ``seat`` may not see, from the true game: the other hands beyond their known
    cards, and the stock (the deck less every hand, the pile and the table)."""
    out: Counter[int] = Counter()
    obs = game.observation(seat)
    in_play = sum(obs.hand_sizes) + obs.stock_size + len(obs.discard_pile)
    in_play += sum(len(m.cards) for m in obs.melds)
    decks, left = divmod(in_play, 54 if game.rules.with_jokers else 52)
    assert left == 0 and decks in (1, 2)
    stock = Counter(deck(decks, game.rules.with_jokers))
    for other in range(game.players):
        stock.subtract(game.hand(other))
        if other != seat:
            out.update(Counter(game.hand(other)) - Counter(game.known_cards(other)))
    stock.subtract(obs.discard_pile)
    stock.subtract(p if p < JOKER_AS else JOKER for m in obs.melds for p in m.cards)
    assert all(n >= 0 for n in stock.values())
    out.update(+stock)
    assert sum(out.values()) == obs.stock_size + sum(
        obs.hand_sizes[s] - len(obs.known[s]) for s in range(game.players) if s != seat
    )
    return out


def hidden_labels_shown(svg: str, game: Game, seat: int) -> set[str]:
    """Labels of cards hidden from ``seat`` (of codes it sees nowhere) that are in ``svg``."""
    root = parse(svg)
    shown = set(LABEL.findall(every_text(root)))
    obs = game.observation(seat)
    seen_codes = set(obs.hand) | set(obs.discard_pile)
    seen_codes |= {
        p - JOKER_AS if JOKER_AS <= p < JOKER_RANK else p for m in obs.melds for p in m.cards
    }
    seen_codes |= {c for s in range(game.players) if s != seat for c in game.known_cards(s)}
    leaked = set()
    for code in hidden(game, seat):
        if code != JOKER and code not in seen_codes:
            rank_suit = (RANKS[code % 13], SUITS[code // 13])
            if rank_suit in shown:
                leaked.add(label(code))
    return leaked


# --- the document ------------------------------------------------------------------------------


def test_the_picture_is_a_self_contained_svg_document_with_a_view_box() -> None:
    game = position(2, "play")
    svg = table(game.observation(0))
    root = parse(svg)
    assert root.tag == SVG + "svg"
    view_box = [float(v) for v in root.get("viewBox", "").split()]
    assert len(view_box) == 4 and view_box[:2] == [0, 0] and min(view_box[2:]) > 0
    assert root.get("width") == "640"
    assert "font-family" in root.attrib and "sans-serif" in root.get("font-family", "")
    names = {element.tag for element in root.iter()}
    assert not {SVG + "script", SVG + "image", SVG + "foreignObject", SVG + "style"} & names
    assert not re.search(
        r"href|url\(|@import|https?:", svg.replace("http://www.w3.org/2000/svg", "")
    )


def test_size_scales_the_picture_and_keeps_its_proportions() -> None:
    obs = position(2, "play").observation(0)
    big, small = parse(table(obs, size=640)), parse(table(obs, size=320))
    assert big.get("viewBox") == small.get("viewBox")
    assert float(small.get("width", "0")) == 320
    assert float(small.get("height", "0")) == pytest.approx(
        float(big.get("height", "0")) / 2, abs=0.1
    )


# --- what is drawn -------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "phase"), every_position())
def test_every_card_of_the_seats_hand_is_drawn_face_up_by_suit_then_rank(
    players: int, phase: str
) -> None:
    game = position(players, phase)
    for seat in range(players):
        root = parse(table(game.observation(seat)))
        hand = game.hand(seat)  # codes are ordered by suit, then rank, the joker last
        assert cards_drawn(root, "hand") == [label(c) for c in sorted(hand)]
        assert "JOKER" in every_text(root) or JOKER not in hand


@pytest.mark.parametrize(("players", "phase"), every_position())
def test_the_cards_drawn_are_exactly_the_cards_the_seat_may_see(players: int, phase: str) -> None:
    game = position(players, phase)
    for seat in range(players):
        root = parse(table(game.observation(seat)))
        assert Counter(cards_drawn(root)) == visible(game, seat)


@pytest.mark.parametrize(("players", "phase"), every_position())
def test_no_card_hidden_from_the_seat_appears_anywhere(players: int, phase: str) -> None:
    game = position(players, phase)
    for seat in range(players):
        assert hidden_labels_shown(table(game.observation(seat)), game, seat) == set()


def test_the_hidden_card_check_catches_a_picture_of_another_hand() -> None:
    game = position(8, "play")
    obs = game.observation(0)
    assert any(hidden(game, 0)), "the position must hide cards"
    cheat = dataclasses.replace(obs, hand=tuple(sorted(obs.hand + tuple(game.hand(1)))))
    svg = table(cheat)
    assert hidden_labels_shown(svg, game, 0)
    assert Counter(cards_drawn(parse(svg))) != visible(game, 0)


def test_the_discard_pile_is_spread_in_order_with_the_top_last() -> None:
    for players in (2, 8):
        game = position(players, "draw")
        obs = game.observation(0)
        assert cards_drawn(parse(table(obs)), "pile") == [label(c) for c in obs.discard_pile]


def test_melds_show_their_numbers_jokers_as_what_they_stand_for_and_who_played_each_card() -> None:
    for players in (2, 8):
        game = joker_position(players)
        obs = game.observation(0)
        root = parse(table(obs))
        assert cards_drawn(root, "meld") == [label(p) for m in obs.melds for p in m.cards]
        assert meld_owners(root) == [str(s + 1) for m in obs.melds for s in m.played_by]
        jokers = [label(p) for m in obs.melds for p in m.cards if p >= JOKER_AS]
        assert jokers and all(j.startswith("★") and len(j) > 1 for j in jokers)
        texts = [t.text for t in root.iter(SVG + "text")]
        assert all(str(m.number) in texts for m in obs.melds)


def test_the_other_seats_show_their_names_card_counts_and_known_cards() -> None:
    game = position(8, "play")
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
    obs = game.observation(2)
    root = parse(table(obs, names=names))
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    for seat in range(8):
        assert names[seat] in texts or f"{names[seat]} (you)" in texts
        count = obs.hand_sizes[seat]
        if seat != 2:
            assert f"{count} card{'s' if count != 1 else ''}" in texts
            assert str(obs.totals[seat]) in texts
    in_turn_order = [(2 + k) % 8 for k in range(1, 8)]
    known = [label(c) for s in in_turn_order for c in sorted(obs.known[s])]
    assert known and cards_drawn(root, "known") == known
    assert str(obs.stock_size) in texts


def test_without_names_the_seats_are_p1_p2() -> None:
    obs = position(2, "draw").observation(1)
    texts = [t.text for t in parse(table(obs)).iter(SVG + "text")]
    assert "P1" in texts and "P2 (you)" in texts


@pytest.mark.parametrize(("players", "phase"), every_position())
def test_the_phase_and_whose_turn_it_is_are_written(players: int, phase: str) -> None:
    game = position(players, phase)
    names = [f"Seat{s + 1}" for s in range(players)]
    obs = game.observation(0)
    words = every_text(parse(table(obs, names=names)))
    expected = {
        "draw": "to draw",
        "play": "to play",
        "call": "Rummy! window",
        "hand_over": "Hand over",
        "game_over": "Game over",
    }[phase]
    assert expected in words
    if obs.to_act is not None:
        assert (
            f"{names[obs.to_act]} {expected}" in words or f"{names[obs.to_act]} may call" in words
        )
    if phase == "game_over":
        assert obs.winner is not None and f"{names[obs.winner]} wins" in words


def test_an_open_call_window_names_who_may_call() -> None:
    game = position(8, "call")
    obs = game.observation(0)
    assert obs.window
    words = every_text(parse(table(obs)))
    assert f"P{obs.window[0] + 1} may call" in words


# --- escaping -----------------------------------------------------------------------------------


def test_names_and_the_title_are_escaped() -> None:
    obs = position(2, "play").observation(0)
    names = ["<script>alert(1)</script>", "Tom & Jerry"]
    svg = table(obs, names=names, title="</title><script>x</script>")
    assert "<script" not in svg
    assert "&lt;script&gt;" in svg and "Tom &amp; Jerry" in svg
    root = parse(svg)
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    texts = [t.text or "" for t in root.iter()]
    assert "<script>alert(1)</script> (you)" in texts and "Tom & Jerry" in texts
    assert root.find(SVG + "title") is not None
    assert root.find(SVG + "title").text == "</title><script>x</script>"  # type: ignore[union-attr]


def card_boxes(root: ET.Element, where: str) -> list[tuple[float, float, float, float]]:
    """The outline (x, y, width, height) of each card of one class, in drawing order."""
    boxes = []
    for g in root.iter(SVG + "g"):
        if where in (g.get("class") or "").split():
            r = g.find(SVG + "rect")
            assert r is not None
            boxes.append(tuple(float(r.get(k, "0")) for k in ("x", "y", "width", "height")))
    return boxes  # type: ignore[return-value]


@pytest.mark.parametrize("where", ["pile", "hand", "meld"])
def test_spread_cards_leave_every_index_visible_and_stay_inside_the_picture(where: str) -> None:
    obs = joker_position(8).observation(0)
    rng = random.Random(5)
    crowded = dataclasses.replace(
        obs,
        discard_pile=tuple(rng.randrange(52) for _ in range(45)),
        hand=tuple(sorted(rng.randrange(53) for _ in range(33))),
    )
    for view in (obs, crowded):
        root = parse(table(view))
        width = float(root.get("viewBox", "").split()[2])
        boxes = card_boxes(root, where)
        assert boxes or view is obs
        for (x0, y0, w0, h0), (x1, y1, _w1, _h1) in itertools.pairwise(boxes):
            if y1 == y0:  # the next card of the row covers all but the index of this one
                assert x1 - x0 >= 22
            else:  # a new row (or a new meld) below, or further right
                assert y1 >= y0 + h0 or x1 > x0 + w0
        assert all(x >= 0 and x + w <= width for x, _y, w, _h in boxes)
