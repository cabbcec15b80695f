"""Hand reading's shortcuts change no reading: a card the search leaves out (it has no possible
partner) is one no meld could hold with another card of the hand, and reading with and without
leaving such cards out finds the same score."""

from __future__ import annotations

import gc
import random
from itertools import permutations

import pytest

from rummy500.bots import reading
from rummy500.bots.reading import Reading, TableFits, read_hand, table_fits
from rummy500.engine import JOKER, Game, IllegalMove
from rummy500.engine.melds import analyze_meld

from .helpers import patches_a_module, position


def with_a_run() -> Game:
    """A game with one meld on the table, 5♠ 6♠ 7♠ (4♠ and 8♠ may be laid off)."""
    return position(
        ["2C 3C 4C 5D 9H 2S KD JH AH 6H 7D 3S QC", "5S 6S 7S 8D 9D TC JC KC AS 4H 5H 2D 3D"],
        "QH",
        moves="P2 draw\nP2 meld 5S 6S 7S",
    )


def _meld_holds_both(a: int, b: int) -> bool:
    """Whether some three natural cards holding ``a`` and ``b`` are a meld, in some order."""
    for x in range(52):
        for order in permutations((a, b, x)):
            try:
                analyze_meld(order)
            except IllegalMove:
                continue
            return True
    return False


def test_a_card_left_out_is_one_no_meld_holds_with_the_other() -> None:
    rng = random.Random(5)
    pairs = [(a, b) for a in range(52) for b in range(52) if a != b]
    for a, b in [*rng.sample(pairs, 400), (0, 11), (0, 12), (0, 1), (0, 2), (0, 10), (12, 0)]:
        assert bool(reading._PARTNERS[a] >> b & 1) == _meld_holds_both(a, b), (a, b)


@patches_a_module
@pytest.mark.parametrize("seed", range(4))
def test_leaving_out_the_lone_cards_finds_the_same_score(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    game = with_a_run()
    tables = [table_fits(()), table_fits(game.observation(0).melds)]
    deck = [*range(52), *range(52), JOKER, JOKER]
    hands = [tuple(sorted(rng.sample(deck, rng.randint(3, 11)))) for _ in range(150)]
    shortcut = [_uncached(h, t) for h in hands for t in tables]
    monkeypatch.setattr(reading, "_PARTNERS", ((1 << 52) - 1,) * 52)  # every card a partner
    full = [_uncached(h, t) for h in hands for t in tables]
    assert [r.score for r in shortcut] == [r.score for r in full]
    assert [r.melded for r in shortcut] == [r.melded for r in full]
    assert any(r.melds for r in full) and any(r.layoffs for r in full)
    # and read_hand (cached) agrees with the reading it caches
    assert read_hand(hands[0], tables[1]) == shortcut[1]


def _uncached(hand: tuple[int, ...], table: TableFits) -> Reading:
    """The reading of ``hand`` worked out anew (not from read_hand's cache)."""
    return Reading(*reading._read.__wrapped__(hand, reading._table_key(table), "standard"))


def _one_search(naturals: list[int]) -> list[tuple[int, tuple[int, ...]]]:
    """The hand as a single search reads it: its lone cards apart, every other card in one
    part (what :func:`reading._read` did before it read the parts apart)."""
    present = 0
    for c in naturals:
        present |= 1 << c
    alone = [c for c in naturals if not reading._PARTNERS[c] & present]
    rest = tuple(c for c in naturals if reading._PARTNERS[c] & present)
    parts = [(1 << c, (c,) * naturals.count(c)) for c in dict.fromkeys(alone)]
    if rest:
        bits = 0
        for c in rest:
            bits |= 1 << c
        parts.append((bits, rest))
    return sorted(parts, key=lambda p: p[1][0])


@patches_a_module
@pytest.mark.parametrize("seed", range(3))
def test_reading_a_hand_without_jokers_by_its_parts_finds_the_same_reading(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cards that cannot share a meld are read apart, each part by itself (and cached): the
    reading is the one a single search finds, to its melds' order and every lay-off."""
    rng = random.Random(seed)
    game = with_a_run()
    tables = [table_fits(()), table_fits(game.observation(0).melds)]
    deck = [*range(52), *range(52)]  # two decks: a card may come twice
    hands = [tuple(sorted(rng.sample(deck, rng.randint(3, 16)))) for _ in range(200)]
    hands += [(0, 1, 2, 13, 26, 39, 11, 12), (4, 4, 5, 6, 17, 30, 30), (4, 4, 5, 6, 17, 30)]
    # copies in two melds at once: two decks of a few ranks
    few = [c + 13 * s for s in range(4) for c in range(3, 8)] * 2
    hands += [tuple(sorted(rng.sample(few, rng.randint(8, 14)))) for _ in range(100)]
    by_parts = [_uncached(h, t) for h in hands for t in tables]
    assert any(len(reading._parts(list(h))) > 2 for h in hands)  # hands of several parts
    monkeypatch.setattr(reading, "_parts", _one_search)
    whole = [_uncached(h, t) for h in hands for t in tables]
    assert by_parts == whole
    # the melds in the order one search over the whole hand (lone cards aside) takes them
    readings = iter(by_parts)
    for h in hands:
        present = sum(1 << c for c in set(h))
        kept = [c for c in h if reading._PARTNERS[c] & present]
        for t in tables:
            fits, after, _joker = reading._table_key(t)
            steps = reading._search(kept, 0, fits, dict(after), t.joker, "standard")[1]
            melds = tuple(cards for _c, kind, cards, _p in steps if kind == reading._MELD)
            assert next(readings).melds == melds, h
    assert any(r.melds for r in whole) and any(r.layoffs for r in whole)


def test_the_fits_of_a_list_of_melds_follow_the_list_as_it_changes() -> None:
    game = with_a_run()
    melds = list(game.observation(0).melds)
    assert table_fits(melds).fits  # 4S and 8S
    melds.clear()
    assert not table_fits(melds).fits
    shown = game.observation(0).melds
    assert table_fits(shown) is table_fits(game.observation(1).melds)  # the same table


def _hands(seed: int, count: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    deck = [*range(52), *range(52), JOKER, JOKER]
    return [tuple(sorted(rng.sample(deck, rng.randint(6, 12)))) for _ in range(count)]


def test_reading_a_hand_leaves_nothing_for_the_garbage_collector() -> None:
    """Every object a search makes is freed as soon as it is done with (no reference cycle):
    the expert reads thousands of hands a decision, and a cycle each would keep its memo for
    the collector, whose passes grow with what waits for it."""
    gc.collect()
    gc.disable()
    try:
        for hand in _hands(7, 60):
            naturals = [c for c in hand if c != JOKER]
            jokers = len(hand) - len(naturals)
            reading._search(naturals, jokers, 1 << 4 | 1 << 30, {4: 3}, True, "standard")
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_the_cached_readings_are_not_tracked_by_the_garbage_collector() -> None:
    """The readings read_hand keeps (tens of thousands) are plain tuples of plain values, which
    the collector stops tracking, so that its full passes do not walk them all."""
    table = table_fits(with_a_run().observation(0).melds)
    hands = _hands(8, 30)
    for hand in hands:
        assert read_hand(hand, table) == reading._read.__wrapped__(
            hand, reading._table_key(table), "standard"
        )
    for _pass in range(3):  # a pass untracks a tuple whose items it untracked before it:
        gc.collect()  # a level of nesting a pass, as the order of its lists goes
    key = reading._table_key(table)
    cached = [reading._read(hand, key, "standard") for hand in hands]
    assert not any(gc.is_tracked(found) for found in cached)
    assert isinstance(read_hand(hands[0], table), Reading)
