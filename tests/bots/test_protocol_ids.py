"""Bot protocol 1.1: request ids and matching, version 1 bots, the bots' standard error, and
what ``rummy500 bot-match`` reports (once on standard error, and in ``--json``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rummy500.bots import make_bot
from rummy500.bots.protocol import PROTOCOL_VERSION, ExternalBot, hello_message
from rummy500.engine import Rules
from rummy500.sim import play_game

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).parent / "protocol_bots"
QUICK = Rules(target=150)


def command(script: str, *args: str) -> list[str]:
    return [sys.executable, str(BOTS / script), *args]


def bot_match(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``rummy500 bot-match ARGS`` as a user runs it (its real standard error)."""
    return subprocess.run(
        [sys.executable, "-m", "rummy500", "bot-match", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def test_hello_says_version_1_1() -> None:
    assert PROTOCOL_VERSION == 1.1
    assert json.dumps(hello_message()) == '{"type": "hello", "protocol": 1.1}'


def test_requests_carry_increasing_ids(tmp_path: Path) -> None:
    traffic = tmp_path / "traffic.jsonl"
    bot = ExternalBot(command("recorder.py", str(traffic)), deadline_ms=2000)
    try:
        play_game([bot, make_bot("beginner")], QUICK, seed=4, max_hands=1)
        assert bot.reports == []
    finally:
        bot.close()
    lines = [json.loads(line) for line in traffic.read_text().splitlines()]
    ids = [e["message"]["id"] for e in lines if e["message"].get("type") == "act"]
    assert ids == list(range(1, len(ids) + 1)) and len(ids) > 5
    assert ids[-1] == bot.last_request_id


def test_an_answer_to_a_later_request_before_a_late_one_is_not_taken_for_it() -> None:
    """The bot answers request N+1 before its late answer to request N (issue 17): matched by
    id, the late answer is thrown away and nothing is reported illegal."""
    bot = ExternalBot(command("out_of_order.py", "3"), deadline_ms=300)
    try:
        play_game([bot, make_bot("beginner")], QUICK, seed=1, max_hands=2)
        kinds = [r.kind for r in bot.reports]
        assert kinds == ["timeout"], [str(r) for r in bot.reports]
        assert bot.alive
    finally:
        bot.close()


def test_a_version_1_bot_still_plays_and_its_late_answer_is_thrown_away() -> None:
    """No ids: an answer answers the oldest request still owed one, so the late answer is not
    taken for the request after it."""
    bot = ExternalBot(command("misbehaving.py", "late-once", "3"), deadline_ms=300)
    try:
        result = play_game([bot, make_bot("beginner")], QUICK, seed=1, max_hands=2)
        assert result.hand_scores
        assert [r.kind for r in bot.reports] == ["timeout"], [str(r) for r in bot.reports]
        assert bot.alive
    finally:
        bot.close()


def test_an_answer_with_an_unknown_id_is_reported_and_not_played(tmp_path: Path) -> None:
    script = tmp_path / "wrong_id.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        "        print(json.dumps({'name': 'wrong-id'}), flush=True)\n"
        "    elif m['type'] == 'act':\n"
        "        print(json.dumps({'move': m['legal'][0], 'id': m['id'] + 1000}), flush=True)\n"
        "    elif m['type'] == 'quit':\n"
        "        break\n"
    )
    bot = ExternalBot([sys.executable, str(script)], deadline_ms=200, max_timeouts=1)
    try:
        play_game([bot, make_bot("beginner")], QUICK, seed=1, max_hands=1)
        kinds = [r.kind for r in bot.reports]
        assert kinds[:3] == ["bad-answer", "timeout", "hung"]
        assert "1001" in bot.reports[0].reason
    finally:
        bot.close()


def test_the_bots_standard_error_lands_in_its_log_file(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "bot.log"
    bot = ExternalBot(command("misbehaving.py", "crash"), deadline_ms=2000, stderr_log=log)
    try:
        play_game([bot, make_bot("beginner")], QUICK, seed=1, max_hands=1)
    finally:
        bot.close()
    assert log.read_text() == "about to crash\n"


def test_bot_match_keeps_each_bots_stderr_in_a_log_named_in_the_report(tmp_path: Path) -> None:
    traffic = tmp_path / "traffic.jsonl"
    engine = " ".join(command("recorder.py", str(traffic)))
    done = bot_match(
        *("--engine", engine, "--vs", "beginner", "--games", "1", "--rules", "target=100"),
        *("--log-dir", str(tmp_path / "logs"), "--verbose"),
    )
    assert done.returncode == 0, done.stderr
    log = tmp_path / "logs" / "engine-1.log"
    assert f"recorder: standard error in {log}" in done.stdout
    lines = log.read_text().splitlines()
    assert lines[0] == "answering request 1" and len(lines) > 5
    # --verbose: each line on the console as well
    assert "recorder (stderr): answering request 1" in done.stderr.replace("\n", " ")


def test_bot_match_json_report_has_every_misbehaviour_printed_once_on_stderr(
    tmp_path: Path,
) -> None:
    engine = " ".join(command("misbehaving.py", "illegal"))
    done = bot_match(
        *("--engine", engine, "--vs", "beginner", "--games", "1", "--rules", "target=100"),
        *("--deadline-ms", "2000", "--json", "--log-dir", str(tmp_path)),
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout.strip().splitlines()[-1])
    events = data["misbehaviour"]
    assert events and {e["kind"] for e in events} == {"illegal"}
    first = events[0]
    assert first["bot"] == "misbehaving-illegal" and first["seat"] in ("P1", "P2")
    assert first["request"]["type"] == "act" and first["request_id"] == first["request"]["id"]
    assert first["answer"] and json.loads(first["answer"])["move"]
    assert data["bot_logs"] == {"misbehaving-illegal": str(tmp_path / "engine-1.log")}
    # one line per event on standard error, not two
    report_lines = [
        line for line in done.stderr.splitlines() if line.startswith("misbehaving-illegal at ")
    ]
    assert len(report_lines) == len(events)
