"""The external bot protocol: the messages, a well-behaved bot, and bots that misbehave."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rummy500.bots import make_bot
from rummy500.bots.protocol import (
    ExternalBot,
    act_message,
    game_over_message,
    hand_over_message,
    resolve_move,
)
from rummy500.cli import app
from rummy500.engine import IllegalMove, Move, NotationError, Rules
from rummy500.sim import play_game

from .helpers import position

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bots" / "first_legal.py"
MISBEHAVING = Path(__file__).parent / "protocol_bots" / "misbehaving.py"
QUICK = Rules(target=150)


def command(script: Path, *args: str) -> list[str]:
    return [sys.executable, str(script), *args]


def test_act_message_carries_what_the_seat_may_know() -> None:
    game = position(
        ["7H 2C 9D KS QD 8C 3S", "4H 5H 6H 2S JD 9C TC", "AD 4C 6D 8S TS 3D KC"],
        "5C",
        stock="JC AC",
        moves="P2 take 1\nP2 meld 4H 5H 6H\nP2 discard 9C\nP3 draw\nP3 discard JC\n"
        "P1 draw\nP1 discard 7H",
    )
    assert game.phase == "call"
    obs = game.observation(1)
    msg = act_message(obs, game.legal_moves(), 750)
    assert msg["type"] == "act" and msg["seat"] == "P2" and msg["players"] == 3
    assert msg["rules"] == (
        "jokers=on values=standard pickup=top-free rummy=pile going-out=any win=highest target=500"
    )
    assert msg["hand_number"] == 1 and msg["dealer"] == "P1"
    assert sorted(msg["hand"]) == sorted(["2S", "JD", "TC", "5C"])
    assert msg["discard_pile"] == ["9C", "JC", "7H"]
    assert msg["stock_size"] == game.stock_size
    assert msg["melds"] == [
        {"number": 1, "run": True, "cards": ["4H", "5H", "6H"], "played_by": ["P2"] * 3}
    ]
    assert msg["hand_sizes"] == {"P1": 7, "P2": 4, "P3": 7}
    assert msg["known_cards"] == {"P1": [], "P2": ["5C"], "P3": []}
    assert msg["totals"] == {"P1": 0, "P2": 0, "P3": 0}
    assert msg["history"][0] == "P2 take 1" and "P3 draw" in msg["history"]
    assert all(h.split()[1:] == ["draw"] for h in msg["history"] if "draw" in h)
    assert msg["must_use"] is None
    assert msg["phase"] == "call"
    assert msg["legal"] == ["P2 pass", "P2 rummy 1"]
    assert msg["deadline_ms"] == 750
    assert "id" not in msg  # only ExternalBot numbers its requests
    assert act_message(obs, game.legal_moves(), 750, request_id=9)["id"] == 9
    json.dumps(msg)  # plain JSON


def test_hand_over_and_game_over_messages() -> None:
    game = position(
        ["2C 3C 4C 5C 6C 7C 8C", "4H 5H 6H 2S JD 9C TC", "AD 4D 6D 8S TS 3D KC"],
        "KD",
        moves="P2 draw",
    )
    obs = game.observation(0)
    hands = [game.hand(s) for s in range(3)]
    # before the hand is over there are no scores yet; the message still has every field
    msg = hand_over_message(obs, hands)
    assert set(msg) == {"type", "scores", "totals", "hands"}
    assert msg["hands"]["P1"] == ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    assert game_over_message(obs) == {
        "type": "game_over",
        "totals": {"P1": 0, "P2": 0, "P3": 0},
        "winner": None,
    }


def test_any_legal_way_of_writing_a_move_is_accepted() -> None:
    game = position(
        ["2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "4H 5H 6H 2S JD 9S TS 8D 3D JK KH KS AS"],
        "KD",
        moves="P2 draw",
    )
    obs = game.observation(1)
    legal = game.legal_moves()
    assert resolve_move(obs, legal, "p2 meld 6h 4H 5h") == Move.parse("P2 meld 4H 5H 6H")
    assert resolve_move(obs, legal, "P2 meld KS JK=KH KH") == Move.parse("P2 meld KH KS JK=K")
    with pytest.raises(IllegalMove):
        resolve_move(obs, legal, "P2 meld 2S 3D 4H")
    with pytest.raises(IllegalMove):
        resolve_move(obs, legal, "P1 draw")
    with pytest.raises(NotationError):
        resolve_move(obs, legal, "meld everything")


def test_a_well_behaved_bot_plays_a_match() -> None:
    bot = ExternalBot(command(EXAMPLE), deadline_ms=2000)
    try:
        assert bot.name == "first-legal"
        for seed in range(2):
            result = play_game([bot, make_bot("beginner", seed=seed)], QUICK, seed=seed)
            assert result.winner is not None
        assert bot.reports == []
    finally:
        bot.close()


def test_melds_written_in_another_order_are_played() -> None:
    bot = ExternalBot(command(MISBEHAVING, "reorder"), deadline_ms=2000)
    try:
        play_game([make_bot("beginner"), bot], QUICK, seed=3, max_hands=2)
        assert bot.reports == []
    finally:
        bot.close()


@pytest.mark.parametrize(
    ("mode", "kinds", "deadline_ms"),
    [
        ("crash", {"crash"}, 2000),
        ("garbage", {"not-json"}, 2000),
        ("illegal", {"illegal"}, 2000),
        # late answers: each one reported; a late answer can make the next one late too, and
        # three in a row count as a hung bot
        ("slow", {"timeout", "hung"}, 200),
        ("hang", {"timeout", "hung"}, 200),
        ("silent-hello", {"timeout"}, 2000),
    ],
)
def test_a_misbehaving_bot_never_stops_the_match(
    mode: str, kinds: set[str], deadline_ms: int
) -> None:
    bot = ExternalBot(command(MISBEHAVING, mode), deadline_ms=deadline_ms, hello_timeout=2.0)
    try:
        result = play_game([bot, make_bot("beginner")], QUICK, seed=1, max_hands=2)
        assert result.hand_scores
        seen = {r.kind for r in bot.reports}
        assert seen <= kinds and (seen & kinds)
        report = bot.reports[-1]
        assert report.seat == "P1" or mode == "silent-hello"
        if mode == "crash":
            assert not bot.alive  # replaced by the beginner policy for the rest of the match
            assert len(bot.reports) == 1 and "about to crash" in report.reason
        if mode == "hang":
            assert not bot.alive and report.kind == "hung"
        if mode == "garbage":
            assert report.answer == "this is not { json" and report.request is not None
            assert report.request["type"] == "act"
        if mode == "slow":
            assert "timeout" in seen
    finally:
        bot.close()


def test_a_bot_that_cannot_start_is_replaced() -> None:
    bot = ExternalBot([sys.executable, "-c", "import sys; sys.exit(1)"], deadline_ms=200)
    try:
        play_game([bot, make_bot("beginner")], QUICK, seed=2, max_hands=1)
        assert [r.kind for r in bot.reports] == ["crash"]
    finally:
        bot.close()
    missing = ExternalBot(["/nonexistent/bot"], deadline_ms=200)
    assert [r.kind for r in missing.reports] == ["crash"] and not missing.alive
    missing.close()


def test_bot_match_command_prints_the_sim_report(tmp_path: Path) -> None:
    runner = CliRunner()
    engine = f"{sys.executable} {EXAMPLE}"
    result = runner.invoke(
        app,
        [
            *("bot-match", "--engine", engine, "--vs", "beginner"),
            *("--games", "2", "--json", "--rules", "target=150", "--log-dir", str(tmp_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["games"] == 2 and set(data["bots"]) == {"first-legal", "beginner"}
    assert set(data) == {"games", "seconds", "bots", "bot_logs", "misbehaviour"}
    assert data["misbehaviour"] == []
