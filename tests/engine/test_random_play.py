"""The generic random-simulation test (in the spirit of OpenSpiel's): random play under every
combination of the rule options, checking the invariants of the game after every move.

Each of the 288 rule combinations plays 7 hands (2,016 in all) with moves chosen uniformly from
``legal_moves()`` by a seeded generator; player counts cycle through 2 … 8. After every move:
cards are conserved, table melds are valid, hand sizes and table points add up, every listed move
plays, a sample of unlisted moves is refused cleanly; every few moves the expensive checks run:
observations hide what they must, ``Game.from_observation`` agrees with the observation, ``clone``
and ``to_json``/``from_json`` reproduce the game. At the end of each hand the scores are recomputed
and the record is replayed.

Beside these invariants, each move's effect and each list of legal moves are checked against
the rules where that is cheap: what a draw, take, call, meld or discard does to the hands, the
pile and the turn; the lay-offs, discards, simple melds, takes and Rummy calls that must be
listed. The oracles (deck, card values, meld validity, lay-off spots, what can be melded) are
written from docs/rules.md, not taken from the engine, so that they check it rather than repeat it.
A failure names the rules, the player count, the game seed and the move, so that it can be
replayed alone.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from dataclasses import replace
from operator import le
from typing import Any

import pytest

from rummy500.engine import (
    CALL,
    DRAW,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    Game,
    IllegalMove,
    Move,
    Rules,
    decks_for,
)
from rummy500.engine.cards import JOKER, JOKER_AS, JOKER_RANK, deck
from rummy500.engine.fields import cards_of
from rummy500.engine.melds import analyze_meld, layoff_index
from rummy500.notation import format_record, read_record, replay_json
from tests.engine.positions import OPTION_VALUES

COMBINATIONS = [
    Rules(**dict(zip(OPTION_VALUES, values, strict=True)))
    for values in itertools.product(*OPTION_VALUES.values())
]
assert len(COMBINATIONS) == 288

HANDS_PER_COMBINATION = 7  # 288 * 7 = 2,016 hands
HANDS_PER_GAME = 4  # then a new game with another player count
MOVE_CAP = 250  # random play ends about 90% of hands before this many moves
LOW_TARGET = 60  # the target of every other game, so that some games end
MUTATIONS_PER_POSITION = 3
# The expensive checks run at random positions, at these rates.
OBSERVATION_CHECK_RATE = 1 / 12  # observations, the hidden-card swap, notation
COPY_CHECK_RATE = 1 / 40  # clone, to_json/from_json (cost grows with the record)

NATURAL_VALUES = {  # docs/rules.md §2, by rank A, 2, …, K
    "standard": (15, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
    "5-10-15": (15, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10),
}
LOW_ACE = {"standard": 1, "5-10-15": 5}
JOKER_VALUE = 15


# --- oracles written from docs/rules.md ----------------------------------------------------------


def full_deck(players: int, jokers: bool) -> list[int]:
    """Copies of each card code (jokers last) in the deck of docs/rules.md §1: one 52-card deck
    (+2 jokers) for 2-4 players, two such decks for 5-8."""
    decks = 1 if players <= 4 else 2
    return [decks] * 52 + [2 * decks if jokers else 0]


def card_value(card: int, values: str) -> int:
    return JOKER_VALUE if card == JOKER else NATURAL_VALUES[values][card % 13]


def hand_value(counts: list[int], values: str) -> int:
    return sum(card_value(c, values) * k for c, k in enumerate(counts) if k)


def physical(played: int) -> int:
    return played if played < JOKER_AS else JOKER


def run_position(played: int, index: int) -> int:
    """Position of a card in a run (0 low ace, 1 … 12 for 2 … K, 13 high ace)."""
    card = played if played < 52 else played - JOKER_AS
    rank = card % 13
    if rank:
        return rank
    return 0 if index == 0 else 13


def meld_points(meld: Any, values: str) -> list[tuple[int, int]]:
    """``(seat, value)`` of each card of a table meld (low ace 1 or 5, joker 15)."""
    out = []
    for i, (played, owner) in enumerate(zip(meld.cards, meld.owners, strict=True)):
        if played >= JOKER_AS:
            value = JOKER_VALUE
        elif meld.is_run and run_position(played, i) == 0:
            value = LOW_ACE[values]
        else:
            value = NATURAL_VALUES[values][played % 13]
        out.append((owner, value))
    return out


def check_table_meld(meld: Any) -> None:
    """docs/rules.md §3, checked from the cards of a meld on the table."""
    cards = list(meld.cards)
    name = f"meld {meld.number} {meld!r}"
    assert len(cards) == len(meld.owners) >= 3, name
    assert JOKER not in cards, f"{name}: a joker on the table must stand for something"
    naturals = [c for c in cards if c < 52]
    assert naturals, f"{name}: a meld holds at least one natural card"
    if meld.is_run:
        assert all(c < JOKER_RANK for c in cards), f"{name}: a run joker stands for a card"
        suits = {(c if c < 52 else c - JOKER_AS) // 13 for c in cards}
        assert suits == {meld.key}, f"{name}: a run is of one suit"
        positions = [run_position(c, i) for i, c in enumerate(cards)]
        assert positions == list(range(positions[0], positions[0] + len(cards))), (
            f"{name}: a run is consecutive and never wraps"
        )
        assert positions[-1] <= 13 and len(cards) <= 13, name
        assert (meld.lo, meld.hi) == (positions[0], positions[-1]), name
        canonical = analyze_meld(tuple(cards))[4]
        if len(cards) < 13:  # 13 cards from 2 to the ace also read as a run from the low ace
            assert list(canonical) == cards, f"{name}: analyze_meld gives {canonical}"
        assert sorted(canonical) == sorted(cards), f"{name}: analyze_meld gives {canonical}"
    else:
        rank = meld.key
        assert all(c % 13 == rank for c in naturals), f"{name}: a group is of one rank"
        assert all(c == JOKER_RANK + rank for c in cards if c >= 52), (
            f"{name}: a group joker stands for the group's rank"
        )
        suits = [c // 13 for c in naturals]
        assert len(set(suits)) == len(suits), f"{name}: a group has distinct suits"
        assert len(cards) <= 4, f"{name}: a group has at most 4 cards"
        assert meld.suits == sum(1 << s for s in suits), name
        canonical = analyze_meld(tuple(cards))[4]
        assert sorted(canonical) == sorted(cards), f"{name}: analyze_meld gives {canonical}"


def layoff_spots(meld: Any, card: int) -> list[tuple[int, str]]:
    """``(played, end)`` for each way ``card`` (a natural or JOKER) can be laid off on ``meld``;
    ``end`` is "low"/"high" where the same card could go at both ends of a run."""
    if meld.is_run:
        if len(meld.cards) >= 13:
            return []
        spots = []
        for position in (meld.lo - 1, meld.hi + 1):
            if 0 <= position <= 13:
                want = meld.key * 13 + position % 13
                if card == JOKER:
                    spots.append(JOKER_AS + want)
                elif card == want:
                    spots.append(card)
        if len(spots) == 2 and spots[0] == spots[1]:
            return [(spots[0], "low"), (spots[1], "high")]
        return [(p, "") for p in spots]
    if len(meld.cards) >= 4:
        return []
    if card == JOKER:
        return [(JOKER_RANK + meld.key, "")]
    taken = {c // 13 for c in meld.cards if c < 52}
    if card % 13 == meld.key and card // 13 not in taken:
        return [(card, "")]
    return []


def layable(game: Game, card: int) -> bool:
    return any(layoff_spots(m, card) for m in game.melds)


def can_meld(card: int, counts: list[int]) -> bool:
    """Whether ``card`` (one of the cards ``counts`` holds) can go into a new meld made only of
    those cards. Any meld holding the card holds one of 3 cards holding it (jokers are declared
    freely), so it is enough to look for a third and a second card."""
    jokers = counts[JOKER] - (card == JOKER)
    if card == JOKER:
        naturals = [c for c in range(52) if counts[c]]
        if not naturals:
            return False
        if jokers:
            return True  # a natural and two jokers: a group
        for a, b in itertools.combinations(naturals, 2):
            if a % 13 == b % 13 or (a // 13 == b // 13 and run_gap(a, b) <= 2):
                return True
        return False
    rank, suit = card % 13, card // 13
    suits = sum(1 for s in range(4) if s != suit and counts[rank + 13 * s])
    if suits + jokers >= 2:
        return True
    have = {p for p in range(14) if counts[suit * 13 + p % 13] and p % 13 != rank}
    for p in (0, 13) if rank == 0 else (rank,):
        for lo in (p - 2, p - 1, p):
            if lo >= 0 and lo + 2 <= 13:
                missing = sum(1 for q in range(lo, lo + 3) if q != p and q not in have)
                if missing <= jokers:
                    return True
    return False


def run_gap(a: int, b: int) -> int:
    """The distance between two natural cards of a suit in a run (an ace low or high)."""
    ra, rb = a % 13, b % 13
    if ra == rb:
        return 99
    if 0 in (ra, rb):
        other = ra or rb
        return min(other, 13 - other)
    return abs(ra - rb)


def claimable_depths(game: Game) -> list[int]:
    """docs/rules.md §5, §9.4: the depths of the discard pile (1 = top) a Rummy call could claim."""
    pile = game.discard
    if game.rules.rummy == "off" or not pile:
        return []
    if game.rules.rummy == "last-discard":
        return [1] if layable(game, pile[-1]) else []
    depths = []
    counts = [0] * 53
    for depth in range(1, len(pile) + 1):
        card = pile[-depth]
        counts[card] += 1
        if layable(game, card) or can_meld(card, counts):
            depths.append(depth)
    return depths


def take_obligation(rules: Rules, n: int) -> str:
    """What taking ``n`` discards obliges (docs/rules.md §4, §9.3): "new", "meld" or ""."""
    if rules.pickup == "new-meld":
        return "new"
    return "meld" if n > 1 or rules.pickup == "must-meld" else ""


# --- invariants after every move -------------------------------------------------------------


def check_invariants(game: Game, deck_counts: list[int], meld_cache: dict[Any, Any]) -> None:
    """(a)-(d) after every move. ``meld_cache`` remembers the melds already checked (a meld
    that has not changed, down to its ends and owners, is still valid and scores the same)."""
    # (a) cards are conserved: hands + stock + discard pile + table = the deck
    assert min(min(h) for h in game._hands) >= 0, "a hand holds a negative count"
    counts = [sum(column) for column in zip(*game._hands, strict=True)]
    for card in game.stock:
        counts[card] += 1
    for card in game.discard:
        counts[card] += 1
    points = [0] * game.players
    for meld in game.melds:
        key = (meld.number, meld.is_run, meld.key, meld.lo, meld.hi, meld.suits)
        key += (tuple(meld.cards), tuple(meld.owners))
        scored = meld_cache.get(key)
        if scored is None:
            # (b) every meld on the table is valid
            check_table_meld(meld)
            scored = meld_cache[key] = meld_points(meld, game.rules.values)
        for card in meld.cards:
            counts[physical(card)] += 1
        # (d) points on the table: each card scores for the seat that played it
        for seat, value in scored:
            points[seat] += value
    if counts != deck_counts:
        diff = {c: counts[c] - deck_counts[c] for c in range(53) if counts[c] != deck_counts[c]}
        raise AssertionError(f"cards not conserved (card: extra copies): {diff}")
    assert [m.number for m in game.melds] == list(range(1, len(game.melds) + 1)), "meld numbers"
    assert list(game.points) == points, f"table points {game.points} != {points}"
    # (c) hand sizes match the hands; known cards are in the hand
    assert game.hand_sizes == [sum(h) for h in game._hands], "hand sizes do not match the hands"
    for seat in range(game.players):
        assert all(map(le, game._known[seat], game._hands[seat])), (
            f"P{seat + 1} is 'known' to hold cards it does not hold"
        )
    check_derived_state(game)


def check_derived_state(game: Game) -> None:
    """What the engine keeps up to date move by move instead of recomputing (the lay-off index,
    the discard pile's running sums) equals a computation from scratch."""
    if game._spot_index is not None:
        fresh = [m.copy() for m in game.melds]
        for m in fresh:
            m.spot_list = None  # computed again, not reused
        assert game._spot_index == layoff_index(fresh), "the lay-off index is out of date"
        mask = sum(1 << c for c in game._spot_index if c != JOKER)
        assert game._spot_mask == mask, "the mask of cards that can be laid off is out of date"
        layable = sum(1 << c for c in game._spot_index)  # the joker's bit too
        assert game._layable() == layable, "the bits of the cards that can be laid off"
    for n in range(game.players):  # each hand read from its mask, as counted
        assert game.hand(n) == list(cards_of(game._hands[n], game.hand_sizes[n])), "hand mask"
    twin = game.clone()
    twin._reset_caches()
    assert twin._pile_sums == game._pile_sums, "the discard pile's running sums are out of date"
    # the fast path of the usual play phase lists what the general one does, in the same order
    seat = game.turn
    if (
        game.phase == PLAY
        and game.must_use < 0
        and game.hand_sizes[seat] >= 3
        and game.rules.going_out != "discard"
    ):
        general = game._play_moves(
            seat,
            game._hands[seat],
            game._masks[seat],
            game.hand_sizes[seat],
            game.must_use,
            game.must_mode,
            game.no_discard,
            game.resume >= 0,
        )
        assert game._free_play_moves(seat, game.no_discard) == general, "fast path differs"


def check_legal_list(game: Game, legal: list[Move], notation: bool) -> None:
    """The listed moves: right seat, no duplicates, nothing obvious missing (docs/rules.md §4), and
    with ``notation``, each one written and read back."""
    over = game.phase in (HAND_OVER, GAME_OVER)
    assert bool(legal) != over, f"phase {game.phase} with legal moves {legal}"
    if over:
        return
    seat = game.to_act
    assert all(m.seat == seat for m in legal), f"moves of another seat than P{seat + 1}: {legal}"
    assert len(set(legal)) == len(legal), f"duplicate legal moves: {legal}"
    if notation:
        for m in legal:
            assert Move.parse(str(m)) == m, f"{m} does not round-trip through notation"
    verbs = Counter(m.verb for m in legal)
    size = game.hand_sizes[seat]
    if game.phase == CALL:
        assert set(verbs) <= {"pass", "rummy"} and verbs["pass"] == 1, legal
        depths = claimable_depths(game)
        assert depths, "a call window is open on a pile with nothing to claim"
        listed = [m.number for m in legal if m.verb == "rummy"]
        assert set(listed) <= set(depths), f"Rummy on {listed}, claimable {depths}"
        if size >= 2:  # whatever the caller melds, cards are left to discard
            assert sorted(listed) == depths, f"Rummy on {listed}, claimable {depths}"
        return
    if game.phase == DRAW:
        assert set(verbs) <= {"draw", "take", "end"}, legal
        assert (Move(seat, "draw") in legal) == bool(game.stock), legal
        assert (Move(seat, "end") in legal) == (not game.stock), legal
        listed = {m.number for m in legal if m.verb == "take"}
        counts = game._hands[seat][:]
        for n in range(1, len(game.discard) + 1):
            card = game.discard[-n]
            counts[card] += 1
            must = take_obligation(game.rules, n)
            meld = must and can_meld(card, counts)
            lay = must == "meld" and layable(game, card)
            if n in listed:  # the card taken can be melded as the rules require
                assert not must or meld or lay, f"take {n}: the {card} cannot be melded"
            # (no copy of a top card taken alone may be discarded: another card must be held)
            free = not must and size > counts[card] - 1
            if free or (meld and size + n >= 5) or (lay and size + n >= 3):
                assert n in listed, f"take {n} is not listed"
        return
    assert game.phase == PLAY
    assert set(verbs) <= {"meld", "layoff", "discard"}, legal
    counts = game._hands[seat]
    if game.rules.going_out == "discard" and game.resume < 0:
        for m in legal:
            assert m.verb == "discard" or len(m.cards) < size, f"{m}: you must keep a card"
    if game.must_use >= 0:
        must = game.must_use
        assert counts[must] > 0, "the card to meld is not in the hand"
        assert not verbs["discard"], f"must meld {must} first, yet {legal}"
        for m in legal:
            assert must in [physical(c) for c in m.cards], f"{m} does not use card {must}"
        return
    # discards: every card but the one just taken (and, unplayable, a playable last card)
    expected = set()
    for card in range(len(counts)):
        if not counts[card] or card == game.no_discard:
            continue
        if size == 1 and game.rules.going_out == "unplayable" and layable(game, card):
            continue
        expected.add(Move(seat, "discard", (card,)))
    assert {m for m in legal if m.verb == "discard"} == expected, "wrong discards listed"
    # copies of the card just taken may not be discarded: a move that leaves nothing else must
    # let them all be laid off (a stuck hand fails the "no legal moves" check above)
    stuck = counts[game.no_discard] if game.no_discard >= 0 else 0
    if size >= 3 and size - 1 > stuck:  # a lay-off leaves a card to discard
        expected = set()
        for card in range(len(counts)):
            if counts[card]:
                for meld in game.melds:
                    for played, end in layoff_spots(meld, card):
                        expected.add(Move(seat, "layoff", (played,), meld.number, end))
        listed = {m for m in legal if m.verb == "layoff"}
        assert listed == expected, f"lay-offs listed {sorted(map(str, listed))}, " + (
            f"expected {sorted(map(str, expected))}"
        )
    if size >= 5 and size - 3 > stuck:  # a meld of 3 natural cards leaves a card to discard
        listed = {m for m in legal if m.verb == "meld"}
        for meld_cards in natural_three_card_melds(counts):
            move = Move(seat, "meld", meld_cards)
            assert move in listed, f"{move} is not listed"


THREE_NATURAL_MELDS = [  # canonical order: groups by suit, runs from low to high
    *(
        cards
        for rank in range(13)
        for cards in itertools.combinations([rank + 13 * s for s in range(4)], 3)
    ),
    *(
        tuple(suit * 13 + p % 13 for p in range(lo, lo + 3))
        for suit in range(4)
        for lo in range(12)
    ),
]


def natural_three_card_melds(counts: list[int]) -> list[tuple[int, ...]]:
    """Groups and runs of three natural cards the hand holds, in canonical order."""
    return [cards for cards in THREE_NATURAL_MELDS if all(counts[c] for c in cards)]


def fingerprint(game: Game) -> tuple[Any, ...]:
    """Everything a move could change (cheaper than ``to_json`` for every refused move)."""
    return (
        game.phase,
        game.turn,
        tuple(game.window),
        game.must_use,
        game.must_mode,
        game.no_discard,
        game.resume,
        tuple(map(tuple, game._hands)),
        tuple(game.hand_sizes),
        tuple(map(tuple, game._known)),
        tuple(game.stock),
        tuple(game.discard),
        tuple(
            (m.number, m.is_run, m.key, m.lo, m.hi, m.suits, tuple(m.cards), tuple(m.owners))
            for m in game.melds
        ),
        tuple(game.points),
        tuple(game.moves),
        tuple(game.totals),
        tuple(game.hand_results),
        tuple((h.number, h.dealer, h.deal, tuple(h.moves)) for h in game.record),
        game.hand_number,
        game.dealer,
        game.winner,
        tuple(game.legal_moves()),
    )


def check_move_effect(prior: Game, move: Move, game: Game, call: dict[str, int]) -> None:
    """What the move did, by the rules (docs/rules.md §4-§6, §9.3-§9.5). ``prior`` is the game
    before it; ``call`` remembers, after a last-discard Rummy call, whose turn it was."""
    seat, verb, n = move.seat, move.verb, game.players
    rules = game.rules
    change = [a - b for a, b in zip(game._hands[seat], prior._hands[seat], strict=True)]
    gained = Counter({c: k for c, k in enumerate(change) if k > 0})
    lost = Counter({c: -k for c, k in enumerate(change) if k < 0})
    over = game.phase in (HAND_OVER, GAME_OVER)
    if over and game.hand_results[-1].capped:  # the move cap ended the hand: no turn to check
        assert len(game.moves) == MOVE_CAP
        return
    if verb == "draw":
        drawn = Counter(prior.stock)
        drawn.subtract(game.stock)
        assert len(game.stock) == len(prior.stock) - 1 and gained == +drawn and not lost
        assert game.phase == PLAY and game.must_use < 0 and game.no_discard < 0
    elif verb in ("take", "rummy"):
        k = move.number
        taken = prior.discard[-k:]
        assert game.discard == prior.discard[:-k], "the pile lost other cards"
        assert gained == Counter(taken) and not lost, "the hand got other cards"
        for card in taken:
            assert game._known[seat][card] > 0, "cards taken from the pile are known"
        if not over:
            assert game.phase == PLAY and game.to_act == seat
            if verb == "rummy":
                must = "layoff" if rules.rummy == "last-discard" else "meld"
                if rules.rummy == "last-discard":
                    call["resume"] = prior.turn
            else:
                must = take_obligation(rules, k)
            assert (game.must_use >= 0) == bool(must), f"{move}: obligation {must!r}"
            if must:
                assert game.must_use == taken[0], "the deepest card taken must be melded"
            if k == 1:
                assert game.no_discard == taken[0], "the top discard taken may not be discarded"
            else:
                assert game.no_discard < 0, "after taking several cards, any may be discarded"
    elif verb in ("meld", "layoff"):
        assert lost == Counter(physical(c) for c in move.cards) and not gained
        if verb == "meld":
            assert len(game.melds) == len(prior.melds) + 1
            assert Counter(game.melds[-1].cards) == Counter(move.cards)
        else:
            before = next(m for m in prior.melds if m.number == move.number)
            after = next(m for m in game.melds if m.number == move.number)
            assert len(after.cards) == len(before.cards) + 1
        left = game.hand_sizes[seat]
        resume = call.pop("resume", None)  # the lay-off right after a last-discard call
        if resume is not None:  # a last-discard call: the turn goes back
            assert game.phase == DRAW and game.to_act == resume, "the turn goes back after a call"
        elif left == 0:
            assert rules.going_out != "discard", "melded every card, yet must keep one to discard"
            if rules.floating:
                assert not over and game.to_act == (seat + 1) % n, "a floater waits a turn"
            else:
                assert over and game.hand_results[-1].out == seat, "melding all goes out"
        else:
            assert game.phase == PLAY and game.to_act == seat
    elif verb == "discard":
        assert lost == Counter(move.cards) and not gained
        assert game.discard == [*prior.discard, move.cards[0]]
        if game.hand_sizes[seat] == 0:
            assert over and game.hand_results[-1].ended_by == "out"
            assert game.hand_results[-1].out == seat
        elif not over:
            depths = claimable_depths(game)
            if depths:
                window = tuple((seat + k) % n for k in range(1, n))
                assert game.phase == CALL and game.window == window, "a call window opens"
            else:
                assert game.phase == DRAW and game.to_act == (seat + 1) % n
    elif verb == "pass":
        assert game.window == prior.window[1:] or over
        if not game.window and not over:
            assert game.phase == DRAW and game.to_act == prior.turn
    elif verb == "end":
        assert not prior.stock and over and game.hand_results[-1].ended_by == "stock"


# --- unlisted moves --------------------------------------------------------------------------


def mutated_moves(game: Game, legal: list[Move], rng: random.Random) -> list[Move]:
    """Moves near the listed ones that are most likely illegal (some may turn out legal)."""
    seat = game.to_act
    assert seat is not None
    n = game.players
    counts = game._hands[seat]
    held = [c for c in range(len(counts)) if counts[c]]
    not_held = [c for c in range(53) if not counts[c]]
    base = rng.choice(legal)

    def other_seat() -> int:
        return rng.choice([s for s in range(n + 1) if s != seat])  # n: no such seat

    def random_played() -> int:
        kind = rng.random()
        if kind < 0.7:
            return rng.randrange(53)  # a natural card or an undeclared joker
        if kind < 0.85:
            return JOKER_AS + rng.randrange(52)
        return JOKER_RANK + rng.randrange(13)

    def meld_number() -> int:
        return rng.choice([0, len(game.melds) + 1, *range(1, len(game.melds) + 1)])

    candidates = [
        lambda: base._replace(seat=other_seat()),
        lambda: Move(seat, "take", number=len(game.discard) + rng.randint(1, 3)),
        lambda: Move(seat, "rummy", number=len(game.discard) + rng.randint(1, 2)),
        lambda: Move(seat, rng.choice(("draw", "end", "pass"))),
        lambda: Move(seat, rng.choice(("take", "rummy")), number=rng.randint(1, 3)),
        lambda: Move(seat, "discard", (rng.choice(not_held),)),
        lambda: Move(seat, "discard", (rng.choice(held),)) if held else None,
        lambda: Move(seat, "layoff", (random_played(),), meld_number(), rng.choice(("", "low"))),
        lambda: Move(seat, "meld", tuple(random_played() for _ in range(rng.randint(2, 5)))),
    ]
    if base.verb == "layoff":
        candidates.append(lambda: base._replace(number=meld_number()))
        candidates.append(lambda: base._replace(cards=(random_played(),)))
        candidates.append(lambda: base._replace(end={"": "high", "low": "high"}.get(base.end, "")))
    if base.verb == "meld":

        def swapped() -> Move:
            cards = list(base.cards)
            cards[rng.randrange(len(cards))] = random_played()
            return base._replace(cards=tuple(cards))

        candidates += [swapped, swapped, lambda: base._replace(cards=base.cards[:2])]
    if base.verb == "discard":
        candidates.append(lambda: base._replace(cards=(rng.choice(not_held),)))
    if base.verb in ("take", "rummy"):
        candidates.append(lambda: base._replace(number=len(game.discard) + 1))
    if not game.stock:
        candidates += [lambda: Move(seat, "draw"), lambda: Move(seat, "draw")]
    out = []
    for make in rng.sample(candidates, k=min(MUTATIONS_PER_POSITION, len(candidates))):
        move = make()
        if move is not None and move not in legal:
            out.append(move)
    return out


def check_unlisted_moves(
    game: Game, legal: list[Move], rng: random.Random, before: tuple[Any, ...], deep: bool
) -> None:
    """(e) unlisted moves are refused with IllegalMove and change nothing: the game's
    ``fingerprint`` stays ``before``; with ``deep``, so does ``to_json()`` for the first one."""
    before_json = game.to_json() if deep else None
    for move in mutated_moves(game, legal, rng):
        assert Move.parse(str(move)) == move
        trial = game.clone()
        try:
            trial.play(move)
        except IllegalMove as e:
            assert str(e), f"{move}: IllegalMove without a reason"
            assert fingerprint(trial) == before, f"refused {move} changed the game"
            if before_json is not None:
                assert trial.to_json() == before_json, f"refused {move} changed to_json()"
                before_json = None
        except Exception as e:
            raise AssertionError(f"{move}: {type(e).__name__}: {e}, not IllegalMove") from e
        else:
            check_accepted_unlisted(game, legal, move, trial)


def check_accepted_unlisted(game: Game, legal: list[Move], move: Move, after: Game) -> None:
    """An unlisted move that plays must be a listed one in other words (meld cards in another
    order, a joker written as a card on a group), or a move in a call window that implies the
    passes before it (a later seat's call, the next player's draw)."""
    if game.phase == CALL and (move.seat != game.to_act or move.verb in ("draw", "take", "end")):
        implied = game.clone()
        implied.max_moves_per_hand = None  # the implied passes must not reach the cap
        while implied.phase == CALL and (move.verb != "rummy" or implied.to_act != move.seat):
            implied.play(Move(implied.to_act, "pass"))  # type: ignore[arg-type]
        canonical = after.moves[-1]
        assert canonical in implied.legal_moves(), f"{move} played, but is not legal after passes"
        return
    assert after.moves[-1] in legal, f"unlisted {move} was accepted as {after.moves[-1]}"


# --- the expensive checks, every few moves ---------------------------------------------------


def check_observations(game: Game, rng: random.Random) -> None:
    """(f) each seat sees its hand, others' sizes and known cards, and nothing hidden."""
    n = game.players
    hands = [Counter(game.hand(s)) for s in range(n)]
    for seat in range(n):
        obs = game.observation(seat)
        assert Counter(obs.hand) == hands[seat] and list(obs.hand) == sorted(obs.hand)
        assert list(obs.hand_sizes) == game.hand_sizes
        assert obs.stock_size == len(game.stock)
        assert list(obs.discard_pile) == game.discard
        for other in range(n):
            known = Counter(obs.known[other])
            assert not known - hands[other], f"P{other + 1}'s known cards are not all held"
            assert all(game._known[other][c] == k for c, k in known.items())
            assert sum(known.values()) == sum(game._known[other])
    if game.phase in (HAND_OVER, GAME_OVER):
        return  # the hands are shown when a hand is scored
    seat = rng.randrange(n)
    obs = game.observation(seat)
    twin = game.clone()
    hidden = {s: [c for c in range(53) if twin._hands[s][c] > twin._known[s][c]] for s in range(n)}
    opponents = [s for s in range(n) if s != seat and hidden[s]]
    if opponents and twin.stock:  # swap a hidden card of an opponent with a stock card
        other = rng.choice(opponents)
        card = rng.choice(hidden[other])
        i = rng.randrange(len(twin.stock))
        twin._hands[other][card] -= 1
        twin._hands[other][twin.stock[i]] += 1
        twin.stock[i] = card
    if len(opponents) >= 2:  # and two hidden cards between two opponents
        a, b = rng.sample(opponents, 2)
        ca, cb = rng.choice(hidden[a]), rng.choice(hidden[b])
        if twin._hands[a][ca] > twin._known[a][ca] and twin._hands[b][cb] > twin._known[b][cb]:
            twin._hands[a][ca] -= 1
            twin._hands[a][cb] += 1
            twin._hands[b][cb] -= 1
            twin._hands[b][ca] += 1
    rng.shuffle(twin.stock)
    assert twin.observation(seat) == obs, f"P{seat + 1}'s observation reveals hidden cards"


def check_from_observation(game: Game, rng: random.Random, deck_counts: list[int]) -> None:
    """``Game.from_observation`` deals a full game that the seat cannot tell from the real one."""
    if game.phase in (HAND_OVER, GAME_OVER):
        return
    to_act = game.to_act
    seat = to_act if rng.random() < 0.6 else rng.randrange(game.players)
    assert seat is not None
    obs = game.observation(seat)
    sampled = Game.from_observation(obs, random.Random(rng.getrandbits(32)))
    assert sampled.observation(seat) == obs, "from_observation disagrees with the observation"
    check_invariants(sampled, deck_counts, {})
    if seat == to_act:
        assert sampled.legal_moves() == game.legal_moves(), "sampled state has other moves"


def check_copies(game: Game, rng: random.Random) -> None:
    """(g) clone equals and is independent; to_json / from_json reproduce the game."""
    data = game.to_json()
    before = fingerprint(game)
    twin = game.clone()
    assert twin.to_json() == data, "the clone differs from the game"
    if twin.legal_moves():
        twin.play(rng.choice(twin.legal_moves()))
        assert fingerprint(game) == before, "playing on a clone changed the original"
    restored = Game.from_json(json.loads(json.dumps(data)))
    assert restored.to_json() == data, "from_json(to_json()) differs from the game"
    assert restored.legal_moves() == game.legal_moves(), "from_json gives other legal moves"


# --- end of a hand ---------------------------------------------------------------------------


def check_hand_end(game: Game, totals_before: list[int]) -> None:
    values = game.rules.values
    result = game.hand_results[-1]
    left = tuple(hand_value(game._hands[s], values) for s in range(game.players))
    melded = [0] * game.players
    for meld in game.melds:
        for seat, value in meld_points(meld, values):
            melded[seat] += value
    assert result.left == left, f"hand values {result.left} != {left}"
    assert list(result.melded) == melded, f"melded points {result.melded} != {melded}"
    scores = [m - v for m, v in zip(melded, left, strict=True)]
    assert list(result.scores) == scores, f"hand scores {result.scores} != {scores}"
    assert game.totals == [t + s for t, s in zip(totals_before, scores, strict=True)]
    if result.ended_by == "out":
        assert result.out is not None and game.hand_sizes[result.out] == 0
        assert not result.capped
    else:
        assert result.ended_by == "stock" and result.out is None
        if result.capped:
            assert len(game.moves) == MOVE_CAP
        else:
            assert game.moves[-1].verb == "end" and not game.stock
    # the winner (docs/rules.md §8, §9.6)
    target = game.rules.target
    if game.rules.win == "must-go-out":
        out = result.out
        winner = out if out is not None and game.totals[out] >= target else None
    else:
        best = max(game.totals)
        winner = (
            game.totals.index(best) if best >= target and game.totals.count(best) == 1 else None
        )
    assert game.winner == winner
    assert game.phase == (GAME_OVER if winner is not None else HAND_OVER)


def check_record(game: Game) -> None:
    """The written record reads back to the same game (a capped last hand reads back as still
    in progress: the record does not know the cap)."""
    replayed = read_record(format_record(game))
    got, want = replayed.to_json(), game.to_json()
    for key in ("seed", "max_moves_per_hand"):
        got.pop(key)
        want.pop(key)
    if not game.hand_results[-1].capped:
        assert got == want, "the record replays to another game"
        summary = replay_json(replayed)
        assert [list(h["scores"].values()) for h in summary["hands"]] == [
            list(r.scores) for r in game.hand_results
        ]
        return
    for key in ("hands", "known", "stock", "discard", "melds", "points", "moves", "record"):
        assert got[key] == want[key], f"the record replays to another {key}"
    assert got["hand_results"] == want["hand_results"][:-1]
    capped_scores = game.hand_results[-1].scores
    assert [t + s for t, s in zip(got["totals"], capped_scores, strict=True)] == want["totals"]


# --- the test --------------------------------------------------------------------------------


def play_hand(game: Game, rng: random.Random, where: str) -> None:
    deck_counts = full_deck(game.players, game.rules.with_jokers)
    assert Counter(deck(decks_for(game.players), game.rules.with_jokers)) == Counter(
        {c: k for c, k in enumerate(deck_counts) if k}
    )
    # docs/rules.md §1: 13 cards each with 2 players, 7 with more; the left of the dealer starts
    size = 13 if game.players == 2 else 7
    assert game.hand_sizes == [size] * game.players and len(game.discard) == 1
    assert game.phase == DRAW and game.to_act == (game.dealer + 1) % game.players
    meld_cache: dict[Any, Any] = {}
    call: dict[str, int] = {}
    totals_before = list(game.totals)
    step = 0
    while True:
        try:
            check_invariants(game, deck_counts, meld_cache)
            luck = rng.random()
            deep = luck < OBSERVATION_CHECK_RATE
            legal = game.legal_moves()
            check_legal_list(game, legal, notation=deep)
            if not legal:
                check_hand_end(game, totals_before)
                check_record(game)
                return
            before = fingerprint(game)
            for move in legal:  # (e) every listed move plays
                trial = game.clone()
                trial.play(move)
                assert trial.moves[-1] == move
            check_unlisted_moves(game, legal, rng, before, deep)
            assert fingerprint(game) == before, "playing on clones changed the original"
            if deep:
                check_observations(game, rng)
                check_from_observation(game, rng, deck_counts)
            if luck < COPY_CHECK_RATE:
                check_copies(game, rng)
            move = rng.choice(legal)
            if move.verb == "meld":
                assert any(c < 52 for c in move.cards), f"{move}: a meld without a natural card"
            prior = game.clone()
            game.play(move)
            check_move_effect(prior, move, game, call)
        except Exception as e:
            last = " | ".join(str(m) for m in game.moves[-6:])
            position = f"{where} hand={game.hand_number} move={step}"
            raise AssertionError(f"{position} (last moves: {last}): {e}") from e
        step += 1


@pytest.mark.parametrize(
    "index",
    range(len(COMBINATIONS)),
    ids=["-".join(str(v) for v in list(r.as_dict().values())[:6]) for r in COMBINATIONS],
)
def test_random_play_keeps_every_invariant(index: int) -> None:
    rules = COMBINATIONS[index]
    rng = random.Random(f"random-play:{index}")
    hands = 0
    game_number = 0
    while hands < HANDS_PER_COMBINATION:
        players = 2 + (index + 3 * game_number) % 7
        # every other game to a low target, so that games end (docs/rules.md §8, §9.6)
        rules = replace(rules, target=LOW_TARGET if game_number % 2 else 500)
        seed = rng.getrandbits(32)
        where = f"rules=[{rules}] players={players} seed={seed}"
        game = Game.new(players, rules, seed=seed, max_moves_per_hand=MOVE_CAP)
        game_number += 1
        for hand in range(HANDS_PER_GAME):
            if hand:
                dealer = game.dealer
                game.deal()
                assert game.dealer == (dealer + 1) % players, "the deal passes to the left"
            else:
                assert game.dealer == 0, "P1 deals the first hand"
            play_hand(game, rng, where)
            hands += 1
            if game.is_game_over():
                with pytest.raises(IllegalMove):
                    game.deal()
                with pytest.raises(IllegalMove):
                    game.play(Move(game.dealer, "draw"))
                break
            # A capped hand cannot be written in a record (its end is not a move): a new game.
            if hands == HANDS_PER_COMBINATION:
                break
            if game.hand_results[-1].capped:
                break


# --- records may leave passes out -------------------------------------------------------------


@pytest.mark.parametrize("rummy", ["pile", "last-discard"])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_record_without_pass_lines_replays(rummy: str, players: int) -> None:
    """docs/notation.md: players who let a Rummy call window pass need not be written in a record;
    the next player's move closes the window."""
    rules = Rules(rummy=rummy)
    rng = random.Random(f"no-passes:{rummy}:{players}")
    for _game in range(3):
        game = Game.new(players, rules, seed=rng.getrandbits(32), max_moves_per_hand=MOVE_CAP)
        while not game.is_hand_over():
            game.play(rng.choice(game.legal_moves()))
        if game.hand_results[-1].capped:
            continue
        text = format_record(game)
        lines = [line for line in text.splitlines() if not line.endswith(" pass")]
        replayed = read_record("\n".join(lines) + "\n")
        assert replayed.hand_results == game.hand_results
        assert replayed.to_json()["melds"] == game.to_json()["melds"]
        assert replayed.totals == game.totals
