"""The engine's one JSON encoding of what a seat may know (``Observation.to_json``) and of a move
(``Move.to_json``): the table server's views and the bot protocol's ``act`` are made from it."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from rummy500.engine import (
    Game,
    HandResult,
    Move,
    Rules,
    by_seat,
    card_str,
    own_json,
    parse_card,
    parse_played,
    parse_seat,
)
from tests.engine.positions import OPTION_VALUES

PUBLIC = [
    "hand_number",
    "dealer",
    "phase",
    "to_act",
    "turn",
    "window",
    "discard_pile",
    "stock_size",
    "melds",
    "hand_sizes",
    "known_cards",
    "points",
    "totals",
    "must_use",
    "winner",
]


def positions(players: int, seed: int) -> Iterator[Game]:
    """Every position of a few random hands under random rules, with the game in it."""
    rng = random.Random(seed)
    options = {k.replace("_", "-"): rng.choice(v) for k, v in OPTION_VALUES.items()}
    game = Game.new(players, Rules.from_spec(options={**options, "target": 120}), seed=seed)
    for _ in range(400):
        if game.is_game_over():
            return
        if game.is_hand_over():
            game.deal()
        yield game
        game.play(rng.choice(game.legal_moves()))


@pytest.mark.parametrize("players", [2, 3, 6])
def test_an_observation_as_json_is_what_the_seat_may_know(players: int) -> None:
    for game in positions(players, seed=players):
        obs = [game.observation(s) for s in range(players)]
        views = [o.to_json() for o in obs]
        for seat, (o, view) in enumerate(zip(obs, views, strict=True)):
            assert json.loads(json.dumps(view)) == view  # plain JSON values
            assert list(view) == [*PUBLIC, "history", "hand_results", "seat", "hand", "floating"]
            assert parse_seat(view["seat"]) == seat
            assert [parse_card(c) for c in view["hand"]] == list(o.hand)
            assert view["floating"] == o.floating
            assert [Move.parse(m) for m in view["history"]] == list(o.history)
            assert [parse_card(c) for c in view["discard_pile"]] == list(o.discard_pile)
            assert view["phase"] == o.phase and type(view["phase"]) is str
            for meld, m in zip(view["melds"], o.melds, strict=True):
                assert [parse_played(c) for c in meld["cards"]] == list(m.cards)
                assert [parse_seat(s) for s in meld["played_by"]] == list(m.played_by)
                assert meld["run"] == m.is_run and meld["number"] == m.number
            assert view["must_use"] == (card_str(o.must_use) if o.must_use >= 0 else None)
        # what everyone may see is the same whoever looks: no card of a hand is in it
        public = [o.to_json(own=False) for o in obs]
        assert all(p == public[0] for p in public)
        assert "hand" not in public[0] and "seat" not in public[0]
        assert all({k: v[k] for k in public[0]} == public[0] for v in views)
        assert list(obs[0].to_json(own=False, history=False)) == PUBLIC


def test_the_seats_own_part_alone() -> None:
    game = Game.new(3, seed=4)
    obs = game.observation(1)
    assert own_json(1, game.hand(1), game.phase) == {
        k: obs.to_json()[k] for k in ("seat", "hand", "floating")
    }
    assert own_json(2, (), "play") == {"seat": "P3", "hand": [], "floating": True}
    assert own_json(2, (), "hand_over")["floating"] is False


def test_a_hand_result_and_values_by_seat() -> None:
    result = HandResult((95, -12), "out", 0, melded=(95, 0), left=(0, 12))
    assert result.to_json() == {
        "scores": {"P1": 95, "P2": -12},
        "melded": {"P1": 95, "P2": 0},
        "left": {"P1": 0, "P2": 12},
        "ended_by": "out",
        "out": "P1",
        "capped": False,
    }
    assert by_seat(["a", "b", "c"]) == {"P1": "a", "P2": "b", "P3": "c"}


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("P1 draw", {"verb": "draw", "cards": [], "number": None, "end": None}),
        ("P2 take 3", {"verb": "take", "cards": [], "number": 3, "end": None}),
        ("P3 meld 4H JK=5H 6H", {"verb": "meld", "cards": ["4H", "JK=5H", "6H"], "number": None}),
        ("P1 meld 9S 9D JK=9", {"verb": "meld", "cards": ["9S", "9D", "JK=9"], "number": None}),
        (
            "P2 layoff JK=8H 1 low",
            {"verb": "layoff", "cards": ["JK=8H"], "number": 1, "end": "low"},
        ),
        ("P2 layoff AS 2", {"verb": "layoff", "cards": ["AS"], "number": 2, "end": None}),
        ("P4 discard TD", {"verb": "discard", "cards": ["TD"], "number": None, "end": None}),
        ("P8 discard JK", {"verb": "discard", "cards": ["JK"]}),
        ("P1 rummy 2", {"verb": "rummy", "number": 2}),
        ("P1 end", {"verb": "end", "cards": []}),
        ("P3 pass", {"verb": "pass", "number": None}),
    ],
)
def test_a_move_as_json_is_its_notation_and_its_parts(text: str, parts: dict[str, object]) -> None:
    data = Move.parse(text).to_json()
    assert data["move"] == text and data["seat"] == text.split()[0]
    assert list(data) == ["move", "seat", "verb", "cards", "number", "end"]
    assert {k: data[k] for k in parts} == parts


def test_every_legal_move_as_json_reads_back_as_itself() -> None:
    seen = set()
    for players in (2, 4):
        for game in positions(players, seed=10 + players):
            for move in game.legal_moves():
                data = move.to_json()
                assert Move.parse(data["move"]) == move
                assert data["verb"] == move.verb and parse_seat(data["seat"]) == move.seat
                assert tuple(parse_played(c) for c in data["cards"]) == move.cards
                assert (data["number"] or 0) == move.number and (data["end"] or "") == move.end
                seen.add(move.verb)
    assert seen >= {"draw", "take", "meld", "layoff", "discard"}
