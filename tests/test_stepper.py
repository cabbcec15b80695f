"""``rummy500 replay --step``: a record stepped through in the terminal, a move or a hand at a
time (keys), or every position printed when there is no terminal."""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from rummy500.cli import app
from rummy500.notation import GameRecord
from rummy500.stepper import Cursor, position_view, print_positions, split_keys, step

RECORDS = Path(__file__).resolve().parent / "records"
TWO_HANDS = RECORDS / "tie_at_top.r500"  # hand 1: two moves; hand 2: four
RIGHT, LEFT, DOWN, UP, HOME, END = "\x1b[C", "\x1b[D", "\x1b[B", "\x1b[A", "\x1b[H", "\x1b[F"
runner = CliRunner()


def two_hands() -> GameRecord:
    return GameRecord.parse(TWO_HANDS.read_text(encoding="utf-8"))


def titles(text: str) -> list[str]:
    return re.findall(r"^(Hand \d+(?::|,) [^\n]*?) *$", text, re.MULTILINE)


def test_the_cursor_steps_a_move_or_a_hand_and_stays_at_the_ends() -> None:
    record = two_hands()
    cursor = Cursor(record)
    where = lambda: (cursor.hand.number, cursor.ply)  # noqa: E731
    cursor.go("previous")
    assert where() == (1, 0) and cursor.at_start()
    for expected in [(1, 1), (1, 2), (2, 0), (2, 1)]:  # the hand's end, then the next deal
        cursor.go("next")
        assert where() == expected
    for expected in [(2, 0), (1, 2), (1, 1)]:
        cursor.go("previous")
        assert where() == expected
    cursor.go("previous_hand")  # from the middle of a hand: its deal
    assert where() == (1, 0)
    cursor.go("next_hand")
    assert where() == (2, 0)
    cursor.go("next_hand")  # the last hand: to its end
    assert where() == (2, 4) and cursor.at_end()
    cursor.go("next")
    assert where() == (2, 4)
    cursor.go("previous_hand")
    cursor.go("previous_hand")
    assert where() == (1, 0)
    cursor.go("last")
    assert where() == (2, 4)
    cursor.go("first")
    assert where() == (1, 0)
    assert cursor.game() == record.game_at(1, 0)


def test_keys_that_come_together_are_read_one_by_one() -> None:
    assert split_keys(RIGHT + RIGHT + "q") == [RIGHT, RIGHT, "q"]
    assert split_keys("\x1b[5~\x1bOC \x1b") == ["\x1b[5~", "\x1bOC", " ", "\x1b"]


def test_a_position_shows_every_hand_the_moves_in_words_and_how_the_hand_ended() -> None:
    record = two_hands()
    names = ["Ann", "Ben", "Cy"]
    deal = position_view(record, 0, 0, names).plain
    assert "Hand 1: the deal" in deal
    assert "Next move: Ben draws from the stock.  P2 draw" in deal
    assert "Ann (7 cards): 2♥ 3♥ 4♥ 5♥ 6♥ 7♥ 8♥" in deal  # every hand face up
    assert "▶ Ben (7 cards)" in deal  # the seat to move
    assert "totals: Ann 580, Ben 480, Cy 0" in deal
    end = position_view(record, 0, 2, names).plain
    assert "Last move: Ben melds 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣." in end
    assert "hand 1: Ann -35, Ben +65, Cy -37 (Ben went out)" in end
    assert "1. 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣ (Ben)" in end
    assert "winner" not in end
    assert "winner: Ann" in position_view(record, 1, 4, names).plain
    stops = GameRecord.parse((RECORDS / "stops_mid_hand.r500").read_text(encoding="utf-8"))
    assert "The record stops here" in position_view(stops, 0, 2).plain


def test_keys_step_through_the_record_until_q() -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, height=40, color_system=None)
    keys = iter([RIGHT, RIGHT, RIGHT, LEFT, "x", DOWN, END, UP, HOME, "q", RIGHT])

    def read_key() -> str:
        out.write("\n")  # each screen drawn on its own lines
        return next(keys)

    step(two_hands(), ["Ann", "Ben", "Cy"], console=console, read_key=read_key)
    assert titles(out.getvalue()) == [
        "Hand 1: the deal",
        "Hand 1, after move 1 of 2",
        "Hand 1, after move 2 of 2",
        "Hand 2: the deal",
        "Hand 1, after move 2 of 2",  # ←
        "Hand 1, after move 2 of 2",  # an unknown key: the same position
        "Hand 2: the deal",  # ↓
        "Hand 2, after move 4 of 4",  # End
        "Hand 2: the deal",  # ↑
        "Hand 1: the deal",  # Home
    ]
    assert next(keys) == RIGHT  # q stopped it: the key after it was never read
    assert "q quit" in out.getvalue()


def test_every_position_is_printed_one_after_another() -> None:
    out = io.StringIO()
    print_positions(two_hands(), console=Console(file=out, width=100, color_system=None))
    assert titles(out.getvalue()) == [
        "Hand 1: the deal",
        "Hand 1, after move 1 of 2",
        "Hand 1, after move 2 of 2",
        "Hand 2: the deal",
        "Hand 2, after move 1 of 4",
        "Hand 2, after move 2 of 4",
        "Hand 2, after move 3 of 4",
        "Hand 2, after move 4 of 4",
    ]


def test_replay_step_without_a_terminal_prints_every_position(tmp_path: Path) -> None:
    named = tmp_path / "named.r500"
    named.write_text('# names: ["Ann", "Ben", "Cy"]\n' + TWO_HANDS.read_text(encoding="utf-8"))
    result = runner.invoke(app, ["replay", "--step", str(named)])
    assert result.exit_code == 0, result.output
    assert len(titles(result.output)) == 8
    assert "Next move: Ben draws from the stock." in result.output  # the header's names
    assert "winner: Ann" in result.output


def test_replay_step_goes_as_far_as_a_bad_record_and_says_what_is_wrong() -> None:
    bad = RECORDS / "dealer_rotation_error.r500"
    result = runner.invoke(app, ["replay", "--step", str(bad)], terminal_width=200)
    assert result.exit_code == 2
    assert titles(result.output) == [
        "Hand 1: the deal",
        "Hand 1, after move 1 of 2",
        "Hand 1, after move 2 of 2",
    ]
    assert f"{bad}:15: the deal passes to the left" in result.output
    nothing = RECORDS / "players_9_error.r500"
    result = runner.invoke(app, ["replay", "--step", str(nothing)])
    assert result.exit_code == 2 and f"{nothing}:" in result.output


def test_replay_step_and_json_do_not_go_together() -> None:
    result = runner.invoke(app, ["replay", "--step", "--json", str(TWO_HANDS)])
    assert result.exit_code == 2
    assert "--step and --json" in result.output


@pytest.mark.parametrize(
    ("language", "words"), [("hu", ["Következő lépés", "P1 (7 lap): "]), ("lo", ["P1 (7 ໃບ): "])]
)
def test_replay_step_in_another_language(language: str, words: list[str]) -> None:
    result = runner.invoke(app, ["--lang", language, "replay", "--step", str(TWO_HANDS)])
    assert result.exit_code == 0
    assert "Hand 1" not in result.output and "cards)" not in result.output
    for word in words:
        assert word in result.output


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_replay_step_in_a_real_terminal() -> None:
    """The command in a pseudo-terminal: keys step, keys sent together are each read, q
    quits with status 0 and the terminal's own screen comes back."""
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "LINES": "40", "TERM": "xterm"}
    process = subprocess.Popen(
        [sys.executable, "-m", "rummy500", "replay", "--step", str(TWO_HANDS)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    seen = b""

    def wait_for(pattern: bytes) -> None:
        nonlocal seen
        deadline = time.monotonic() + 60
        while not re.search(pattern, seen):
            left = deadline - time.monotonic()
            assert left > 0, seen[-3000:]
            ready, _w, _x = select.select([master], [], [], left)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:  # the command ended
                    break

    try:
        wait_for(rb"Hand 1: the deal")
        os.write(master, RIGHT.encode())
        wait_for(rb"Hand 1, after move 1 of 2")
        os.write(master, (RIGHT + RIGHT + RIGHT).encode())  # three keys in one read
        wait_for(rb"Hand 2, after move 1 of 4")
        assert b"^[" not in seen  # no key echoed
        os.write(master, b"q")
        assert process.wait(timeout=60) == 0
        wait_for(rb"\x1b\[\?1049l")  # the alternate screen left
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
