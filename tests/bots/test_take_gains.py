"""The intermediate player's takes (the search's playouts make millions of these decisions): a
take whose deepest card can only be deadwood is dropped without reading the hand, and the gains
are exactly those of reading every take."""

from __future__ import annotations

import random

import pytest

from rummy500.bots.intermediate import IntermediatePolicy, _View
from rummy500.bots.reading import read_hand
from rummy500.engine import JOKER, Game, Move, Rules
from rummy500.notation import read_record

from .helpers import patches_a_module


def reference_gains(view: _View, takes: list[Move]) -> dict[Move, float]:
    """take_gains as it reads every take's hand (the definition)."""
    gains = {}
    pile = view.obs.discard_pile
    base = view.worth(view.hand)
    for m in takes:
        if m.number > view.p.max_take:
            continue
        taken = pile[-m.number :]
        cards = (*view.hand, *taken)
        r = read_hand(cards, view.table, view.values)
        if taken[0] in r.deadwood and taken[0] != JOKER:
            continue
        gains[m] = view.worth(cards) - base - view.p.deep_margin * (m.number - 1)
    return gains


def test_the_gains_are_those_of_reading_every_take() -> None:
    policy = IntermediatePolicy()
    rng = random.Random(3)
    checked = 0
    for seed in range(12):
        for players in (2, 3, 5):
            game = Game.new(players, Rules(), seed=seed, max_moves_per_hand=500)
            while not game.is_hand_over():
                seat = game.to_act
                assert seat is not None
                obs, legal = game.observation(seat), game.legal_moves()
                takes = [m for m in legal if m.verb in ("take", "rummy")]
                if takes:
                    view = _View(obs, policy)
                    assert view.take_gains(takes) == reference_gains(view, takes)
                    checked += 1
                move = policy.choose(obs, legal) if rng.random() < 0.7 else rng.choice(legal)
                game.play(move)
    assert checked > 300


@patches_a_module
def test_a_top_card_that_makes_no_meld_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # the pile: K♣ 9♠ 4♦ 2♥ K♠ (top); nothing in P1's hand melds with the K♠, which P1 may
    # still take (the top card is free to take): the take is dropped without a reading
    game = read_record(
        "players: 2\nhand 1\ndealer: P2\n"
        "P1: 3C 5C 7C 2D 6D TD QH 3S 5S JS AH 8H JD\n"
        "P2: 2C 4C 6C 8C TC QC 3D 5D 7D 9D JC KD KS\n"
        "discard: KC\nstock: 9S 4D 2H 4S 6S\n"
        "P1 draw\nP1 discard 9S\nP2 draw\nP2 discard 4D\nP1 draw\nP1 discard 2H\nP2 draw\n"
        "P2 discard KS\n"
    )
    obs = game.observation(0)
    takes = [m for m in game.legal_moves() if m.verb == "take"]
    assert takes == [Move.parse("P1 take 1")]
    view = _View(obs, IntermediatePolicy())
    read: list[tuple[int, ...]] = []
    real = _View.reading

    def counting(self: _View, cards: tuple[int, ...]):  # type: ignore[no-untyped-def]
        read.append(tuple(cards))
        return real(self, cards)

    monkeypatch.setattr(_View, "reading", counting)
    assert view.take_gains(takes) == {}
    assert read == []
    assert reference_gains(view, takes) == {}
