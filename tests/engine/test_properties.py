"""Property tests (hypothesis) of melds, card values, notation, rule options and records.

The oracles are written from docs/rules.md and docs/notation.md: what makes a meld valid,
what a card is worth, how cards, moves and rules are written. Hypothesis generates the cases.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from rummy500.engine import (
    Game,
    IllegalMove,
    InvalidRules,
    Move,
    NotationError,
    Rules,
    card_str,
    parse_card,
    parse_played,
    parse_seat,
    played_str,
)
from rummy500.engine.cards import JOKER, JOKER_AS, JOKER_RANK
from rummy500.engine.melds import (
    BIT_INDEX,
    analyze_meld,
    card_value,
    hand_value,
    has_meld,
    meldable,
    melds_in_hand,
    played_value,
)
from rummy500.engine.rules import MAX_TARGET
from rummy500.notation import format_record, read_record
from tests.engine.positions import OPTION_VALUES

RANKS = "A23456789TJQK"
SUITS = "CDHS"
VALUES = {  # docs/rules.md §2, by rank A, 2, …, K
    "standard": (15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
    "5-10-15": (15, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10),
}
LOW_ACE = {"standard": 1, "5-10-15": 5}


suits = st.integers(0, 3)
ranks = st.integers(0, 12)
naturals = st.integers(0, 51)
values_option = st.sampled_from(sorted(VALUES))


def code(rank: int, suit: int) -> int:
    return suit * 13 + rank


def at_position(suit: int, position: int) -> int:
    """The card at a run position (0: low ace, 1 … 12: 2 … K, 13: high ace)."""
    return code(position % 13, suit)


# --- generated melds -------------------------------------------------------------------------


@st.composite
def runs(draw: st.DrawFn, jokers: bool = True) -> tuple[int, ...]:
    """A valid run in position order: one suit, 3-13 consecutive positions (ace low or high),
    some cards replaced by jokers declared as the card, at least one natural left."""
    suit = draw(suits)
    length = draw(st.integers(3, 13))
    lo = draw(st.integers(0, 14 - length))
    cards = [at_position(suit, p) for p in range(lo, lo + length)]
    if jokers:
        replaced = draw(st.sets(st.integers(0, length - 1), max_size=length - 1))
        cards = [JOKER_AS + c if i in replaced else c for i, c in enumerate(cards)]
    return tuple(cards)


@st.composite
def groups(draw: st.DrawFn, jokers: bool = True) -> tuple[int, ...]:
    """A valid group in canonical order: 1-4 naturals of one rank and distinct suits (sorted),
    then jokers declared as the rank, 3 or 4 cards in all."""
    rank = draw(ranks)
    size = draw(st.integers(3, 4))
    n_naturals = draw(st.integers(1 if jokers else size, size))
    chosen = sorted(draw(st.lists(suits, min_size=n_naturals, max_size=n_naturals, unique=True)))
    return tuple(code(rank, s) for s in chosen) + (JOKER_RANK + rank,) * (size - n_naturals)


def identity(played: int) -> int:
    """The card a natural is, or a run joker stands for."""
    return played if played < 52 else played - JOKER_AS


def run_is_valid(cards: list[int]) -> bool:
    """docs/rules.md §3 for cards taken from a run: 3+ cards, a natural, consecutive positions with
    the ace (at most one) low or high."""
    if len(cards) < 3 or all(c >= 52 for c in cards):
        return False
    ranks_held = [identity(c) % 13 for c in cards]
    if ranks_held.count(0) > 1:
        return False
    for ace in (0, 13):
        positions = sorted(r if r else ace for r in ranks_held)
        if positions == list(range(positions[0], positions[0] + len(positions))):
            return True
    return False


def canonical_run(cards: tuple[int, ...], ace_first: bool = True) -> tuple[int, ...]:
    """A run's cards in position order (an ace low when that makes a run; a run of all 13
    ranks could have its ace at either end: low when the ace is written first)."""
    ranks_held = [identity(c) % 13 for c in cards]
    for ace in (0, 13) if ace_first else (13, 0):
        positions = [r if r else ace for r in ranks_held]
        ordered = sorted(zip(positions, cards, strict=True))
        if [p for p, _c in ordered] == list(range(ordered[0][0], ordered[0][0] + len(cards))):
            return tuple(c for _p, c in ordered)
    raise AssertionError("not a run")


def shuffled(cards: tuple[int, ...], seed: int) -> tuple[int, ...]:
    out = list(cards)
    random.Random(seed).shuffle(out)
    return tuple(out)


@given(runs(), st.integers())
def test_a_run_in_any_order_is_accepted_in_position_order(run: tuple[int, ...], seed: int) -> None:
    given = shuffled(run, seed)
    is_run, suit, lo, hi, cards = analyze_meld(given)
    assert is_run and suit == identity(run[0]) // 13
    assert cards == canonical_run(run, ace_first=identity(given[0]) % 13 == 0)
    assert hi - lo + 1 == len(run)
    if len(run) < 13:  # all 13 ranks: the ace goes where it is written
        assert cards == run


@given(groups(), st.integers())
def test_a_group_in_any_order_is_accepted_in_canonical_order(
    group: tuple[int, ...], seed: int
) -> None:
    is_run, rank, _lo, _hi, cards = analyze_meld(shuffled(group, seed))
    assert not is_run and rank == group[0] % 13
    assert cards == group


@given(groups(), st.data())
def test_a_joker_declared_as_a_card_in_a_group_is_written_as_the_rank(
    group: tuple[int, ...], data: st.DataObject
) -> None:
    rank = group[0] % 13
    n_jokers = sum(c >= JOKER_RANK for c in group)
    assume(n_jokers > 0 and len(group) - n_jokers >= 2)  # one natural + jokers may be a run
    exact = [c if c < 52 else JOKER_AS + code(rank, data.draw(suits, label="suit")) for c in group]
    assert analyze_meld(tuple(exact))[4] == group


@given(runs(), st.data())
def test_any_part_of_a_run_is_a_meld_exactly_when_the_rules_say(
    run: tuple[int, ...], data: st.DataObject
) -> None:
    keep = data.draw(st.lists(st.booleans(), min_size=len(run), max_size=len(run)), label="keep")
    part = [c for c, k in zip(run, keep, strict=True) if k]
    order = data.draw(st.permutations(part), label="order")
    if run_is_valid(part):
        is_run, _suit, _lo, _hi, cards = analyze_meld(tuple(order))
        assert is_run and sorted(cards) == sorted(part)
    else:
        with pytest.raises(IllegalMove) as refused:
            analyze_meld(tuple(order))
        assert str(refused.value)


@given(groups(), st.data())
def test_any_part_of_a_group_is_a_meld_exactly_when_the_rules_say(
    group: tuple[int, ...], data: st.DataObject
) -> None:
    keep = data.draw(st.lists(st.booleans(), min_size=len(group), max_size=len(group)))
    part = [c for c, k in zip(group, keep, strict=True) if k]
    order = tuple(data.draw(st.permutations(part)))
    if len(part) >= 3 and any(c < 52 for c in part):
        assert sorted(analyze_meld(order)[4]) == sorted(part)
    else:
        with pytest.raises(IllegalMove):
            analyze_meld(order)


# --- invalid melds ---------------------------------------------------------------------------


@st.composite
def wrapping_runs(draw: st.DrawFn) -> tuple[int, ...]:
    """K-A-2 and its longer kin: consecutive ranks through the king and past the ace."""
    suit = draw(suits)
    before = draw(st.integers(1, 5))  # ranks up to the king
    after = draw(st.integers(1, 5))  # 2, 3, … after the ace
    positions = [*range(13 - before, 13), 0, *range(1, after + 1)]
    cards = [code(p, suit) for p in positions]
    # jokers may stand for cards of it, but never for the king, the ace or the 2
    replaceable = [i for i, p in enumerate(positions) if p not in (12, 0, 1)]
    replaced = draw(st.sets(st.sampled_from(replaceable))) if replaceable else set()
    return tuple(JOKER_AS + c if i in replaced else c for i, c in enumerate(cards))


@given(wrapping_runs(), st.integers())
def test_a_run_never_wraps_from_king_to_ace_to_two(run: tuple[int, ...], seed: int) -> None:
    with pytest.raises(IllegalMove):
        analyze_meld(shuffled(run, seed))


@given(runs(), st.data())
def test_a_run_of_mixed_suits_is_refused(run: tuple[int, ...], data: st.DataObject) -> None:
    positions = [i for i, c in enumerate(run) if c < 52]
    i = data.draw(st.sampled_from(positions))
    suit = run[i] // 13
    other = data.draw(st.sampled_from([s for s in range(4) if s != suit]))
    cards = list(run)
    cards[i] = code(run[i] % 13, other)
    with pytest.raises(IllegalMove):
        analyze_meld(shuffled(tuple(cards), data.draw(st.integers())))


@given(ranks, st.lists(suits, min_size=2, max_size=4), st.integers(0, 2), st.integers())
def test_a_group_with_two_cards_of_a_suit_is_refused(
    rank: int, suit_list: list[int], jokers: int, seed: int
) -> None:
    suit_list = [*suit_list, suit_list[0]]  # a copy from the second deck
    cards = tuple(code(rank, s) for s in suit_list) + (JOKER_RANK + rank,) * jokers
    with pytest.raises(IllegalMove):
        analyze_meld(shuffled(cards, seed))


@given(ranks, st.integers(1, 4), st.integers(1, 4), st.integers())
def test_a_group_of_five_or_more_is_refused(
    rank: int, n_naturals: int, jokers: int, seed: int
) -> None:
    assume(n_naturals + jokers >= 5)
    cards = tuple(code(rank, s) for s in range(n_naturals)) + (JOKER_RANK + rank,) * jokers
    with pytest.raises(IllegalMove):
        analyze_meld(shuffled(cards, seed))


@given(st.one_of(runs(), groups()), st.integers())
def test_a_meld_of_jokers_only_is_refused(meld: tuple[int, ...], seed: int) -> None:
    only_jokers = tuple(
        c if c >= 52 else (JOKER_AS + c if meld_is_run(meld) else JOKER_RANK + c % 13) for c in meld
    )
    with pytest.raises(IllegalMove):
        analyze_meld(shuffled(only_jokers, seed))


def meld_is_run(meld: tuple[int, ...]) -> bool:
    return not any(c >= JOKER_RANK for c in meld) and len({identity(c) % 13 for c in meld}) > 1


@given(st.one_of(runs(), groups()), st.data())
def test_an_undeclared_joker_is_refused(meld: tuple[int, ...], data: st.DataObject) -> None:
    cards = list(meld)
    cards[data.draw(st.integers(0, len(cards) - 1))] = JOKER
    with pytest.raises(IllegalMove):
        analyze_meld(tuple(cards))


@given(st.one_of(runs(), groups()), st.integers(0, 2))
def test_fewer_than_three_cards_are_no_meld(meld: tuple[int, ...], keep: int) -> None:
    with pytest.raises(IllegalMove):
        analyze_meld(meld[:keep])


@given(runs(jokers=False), st.data())
def test_a_joker_declared_as_a_rank_does_not_belong_in_a_run(
    run: tuple[int, ...], data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(run) - 1))
    cards = list(run)
    cards[i] = JOKER_RANK + run[i] % 13
    with pytest.raises(IllegalMove):
        analyze_meld(tuple(cards))


# --- the melds a hand can make -----------------------------------------------------------------


def every_meld_from(held: set[int], jokers: int) -> set[tuple[int, ...]]:
    """Every new meld (canonical order) the rules allow from distinct naturals ``held`` and
    ``jokers`` jokers, enumerated meld shape by meld shape: groups of 3-4 of a rank with jokers
    declared as the rank; runs over positions lo..hi of one suit where any positions (the cards
    missing, and any others) are jokers declared as those cards, keeping one natural."""
    melds: set[tuple[int, ...]] = set()
    for rank in range(13):
        suits_held = [s for s in range(4) if code(rank, s) in held]
        for k in range(1, len(suits_held) + 1):
            for chosen in itertools.combinations(suits_held, k):
                for j in range(max(0, 3 - k), min(jokers, 4 - k) + 1):
                    melds.add(tuple(code(rank, s) for s in chosen) + (JOKER_RANK + rank,) * j)
    for suit in range(4):
        for lo in range(12):
            for hi in range(lo + 2, min(lo + 12, 13) + 1):
                positions = range(lo, hi + 1)
                for j in range(min(jokers, len(positions) - 1) + 1):
                    for as_jokers in itertools.combinations(positions, j):
                        if all(
                            at_position(suit, p) in held for p in positions if p not in as_jokers
                        ):
                            melds.add(
                                tuple(
                                    JOKER_AS + at_position(suit, p)
                                    if p in as_jokers
                                    else at_position(suit, p)
                                    for p in positions
                                )
                            )
    return melds


@settings(max_examples=300, deadline=None)
@given(
    st.sets(naturals, max_size=14),
    st.integers(0, 5),
    st.one_of(st.just(-1), st.just(JOKER), naturals),
)
def test_the_melds_a_hand_can_make_are_exactly_those_the_rules_allow(
    held: set[int], jokers: int, must: int
) -> None:
    """``melds_in_hand`` lists every meld once (with ``must``: those using that card), and
    ``meldable``/``has_meld`` agree with the list, for hands with up to five jokers."""
    assume(must in held or must < 0 or (must == JOKER and jokers))
    counts = [0] * 53
    for c in held:
        counts[c] += 1
    counts[JOKER] = jokers
    melds = every_meld_from(held, jokers)
    listed = melds_in_hand(counts, must)
    assert len(listed) == len(set(listed))
    if must == JOKER:
        melds = {m for m in melds if max(m) >= JOKER_AS}
    elif must >= 0:
        melds = {m for m in melds if must in m}
    assert set(listed) == melds
    present = sum(1 << c for c in held)
    everything = every_meld_from(held, jokers)
    assert has_meld(present, jokers) == bool(everything)
    for card in sorted(held) + ([JOKER] if jokers else []):
        uses = any((max(m) >= JOKER_AS) if card == JOKER else (card in m) for m in everything)
        assert meldable(card, present, jokers) == uses, card_str(card)


# --- card values -----------------------------------------------------------------------------


@given(st.lists(st.integers(0, 52), max_size=30), values_option)
def test_a_hand_is_worth_the_sum_of_its_cards(cards: list[int], values: str) -> None:
    counts = [0] * 53
    for c in cards:
        counts[c] += 1
    expected = sum(15 if c == JOKER else VALUES[values][c % 13] for c in cards)
    assert hand_value(counts, values) == expected
    assert sum(card_value(c, values) for c in cards) == expected


@given(naturals, values_option)
def test_a_card_on_the_table_is_worth_its_value_but_a_low_ace(card: int, values: str) -> None:
    rank = card % 13
    assert played_value(card, -1, values) == VALUES[values][rank]  # in a group
    assert played_value(card, 13 if rank == 0 else rank, values) == VALUES[values][rank]
    if rank == 0:
        assert played_value(card, 0, values) == LOW_ACE[values]
        assert played_value(card, 13, values) == 15


@given(naturals, st.integers(-1, 13), values_option)
def test_a_joker_is_worth_15_wherever_it_is(card: int, position: int, values: str) -> None:
    assert played_value(JOKER_AS + card, position, values) == 15
    assert played_value(JOKER_RANK + card % 13, position, values) == 15
    assert card_value(JOKER, values) == 15


# --- notation ---------------------------------------------------------------------------------


def test_every_card_code_round_trips() -> None:
    for c in range(53):
        text = card_str(c)
        assert text == text.upper() and parse_card(text) == c
        assert parse_card(text.lower()) == c
        assert parse_card(text.replace("T", "10")) == c
    assert card_str(JOKER) == "JK"


played_cards = st.one_of(
    naturals,
    st.integers(JOKER_AS, JOKER_AS + 51),
    st.integers(JOKER_RANK, JOKER_RANK + 12),
)


@given(played_cards)
def test_cards_as_played_round_trip(played: int) -> None:
    text = played_str(played)
    assert parse_played(text) == played
    assert parse_played(text.lower()) == played
    assert parse_played(text.replace("T", "10")) == played
    if played >= JOKER_RANK:
        assert text == "JK=" + RANKS[played - JOKER_RANK]
    elif played >= JOKER_AS:
        card = played - JOKER_AS
        assert text == "JK=" + RANKS[card % 13] + SUITS[card // 13]


seats = st.integers(0, 7)


moves = st.one_of(
    st.builds(lambda s, v: Move(s, v), seats, st.sampled_from(["draw", "end", "pass"])),
    st.builds(
        lambda s, v, n: Move(s, v, number=n),
        seats,
        st.sampled_from(["take", "rummy"]),
        st.integers(1, 108),
    ),
    st.builds(
        lambda s, cards: Move(s, "meld", tuple(cards)),
        seats,
        st.lists(st.one_of(played_cards, st.just(JOKER)), min_size=1, max_size=13),
    ),
    st.builds(
        lambda s, c, n, end: Move(s, "layoff", (c,), n, end),
        seats,
        played_cards,
        st.integers(0, 60),
        st.sampled_from(["", "low", "high"]),
    ),
    st.builds(lambda s, c: Move(s, "discard", (c,)), seats, st.integers(0, 52)),
)


@given(moves)
def test_every_move_round_trips_through_notation(move: Move) -> None:
    text = str(move)
    assert Move.parse(text) == move
    assert text.startswith(f"P{move.seat + 1} {move.verb}")
    assert Move.parse(text.lower()) == move
    assert Move.parse(text.replace("T", "10")) == move
    assert Move.parse("  " + text.replace(" ", "   ") + " ") == move


@given(st.integers(0, 200))
def test_seats_round_trip(seat: int) -> None:
    assert parse_seat(f"P{seat + 1}") == seat
    assert parse_seat(f"p{seat + 1}") == seat


rules = st.builds(
    Rules,
    **{name: st.sampled_from(choices) for name, choices in OPTION_VALUES.items()},
    target=st.integers(1, MAX_TARGET),  # Rules refuses more (tests/engine/test_rules_limits.py)
)


@given(rules)
def test_rules_round_trip_through_their_notation(r: Rules) -> None:
    assert Rules.parse(str(r)) == r
    words = str(r).split()
    random.Random(r.target).shuffle(words)
    assert Rules.parse(" ".join(words)) == r  # any order


def test_every_combination_of_options_round_trips() -> None:
    import itertools

    for options in itertools.product(*OPTION_VALUES.values()):
        r = Rules(**dict(zip(OPTION_VALUES, options, strict=True)))
        assert Rules.parse(str(r)) == r


# --- records ----------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 8), rules, st.integers(0, 2**32), st.integers(0, 120))
def test_a_played_game_reads_back_from_its_record(
    players: int, r: Rules, seed: int, n_moves: int
) -> None:
    rng = random.Random(seed)
    game = Game.new(players, r, seed=seed)
    for _ in range(n_moves):
        if game.is_game_over():
            break
        if game.is_hand_over():
            game.deal()
        game.play(rng.choice(game.legal_moves()))
    replayed = read_record(format_record(game, comment=f"seed {seed}"))
    got, want = replayed.to_json(), game.to_json()
    for key in ("seed", "max_moves_per_hand"):
        del got[key], want[key]
    assert got == want


# --- malformed notation -----------------------------------------------------------------------

TOKENS = [
    "P1", "p2", "P0", "P9", "P", "P-1", "P²", "P١", "draw", "take", "meld", "layoff", "discard",
    "rummy", "end", "pass", "0", "1", "3", "-2", "²", "١", "10", "AS", "10h", "TD", "1H", "JK",
    "JK=", "JK=9", "JK=10", "JK=9X", "JK=JK", "JK=AS", "=", "low", "high", "mid", "ZZ", "A",
    "K♠", "", "#", "\t", "ß", "ﬀ",
]  # fmt: skip

garbage = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(TOKENS), max_size=6).map(" ".join),
)


def refuses_cleanly(parse: object, text: str) -> None:
    """``parse(text)`` returns, or raises NotationError with a message; nothing else."""
    try:
        parse(text)  # type: ignore[operator]
    except NotationError as e:
        assert str(e), f"{parse!r}({text!r}): NotationError without a message"
    except Exception as e:  # pragma: no cover - the point of the test
        raise AssertionError(f"{parse!r}({text!r}) raised {type(e).__name__}: {e}") from e


@given(garbage)
def test_garbage_cards_raise_notation_errors(text: str) -> None:
    refuses_cleanly(parse_card, text)
    refuses_cleanly(parse_played, text)
    refuses_cleanly(parse_seat, text)


@given(garbage)
@example("P² draw")  # str.isdigit() holds for "²", which int() does not read
@example("P1 take ²")
@example("P1 layoff 8H ³")
def test_garbage_moves_raise_notation_errors(text: str) -> None:
    refuses_cleanly(Move.parse, text)


@given(st.lists(st.one_of(garbage, st.sampled_from(["players: 2", "hand 1", "dealer: P1"]))))
def test_garbage_records_raise_notation_errors(lines: list[str]) -> None:
    refuses_cleanly(read_record, "\n".join(lines))


@given(garbage)
def test_garbage_rules_raise_invalid_rules(text: str) -> None:
    try:
        Rules.parse(text)
    except InvalidRules as e:
        assert str(e)


@pytest.mark.parametrize(
    "text",
    ["", "P1", "P1 fly", "P0 draw", "P1 draw 2", "P1 take", "P1 take 0", "P1 take x", "P1 meld",
     "P1 meld 4H 5X", "P1 layoff 8H", "P1 layoff 8H one", "P1 layoff 8H 1 mid", "P1 discard",
     "P1 discard 2C 3C", "X1 draw", "P1 meld JK=", "P1 meld JK=9X"],
)  # fmt: skip
def test_malformed_moves_say_what_is_wrong(text: str) -> None:
    with pytest.raises(NotationError) as refused:
        Move.parse(text)
    assert str(refused.value)


def test_bit_index_finds_every_bit_of_a_mask() -> None:
    """The engine's table from a one-bit mask to its bit (``BIT_INDEX[mask % 67]``: a list
    instead of a dictionary, for the compiled build) names each of the 64 bits."""
    assert [BIT_INDEX[(1 << i) % 67] for i in range(64)] == list(range(64))
