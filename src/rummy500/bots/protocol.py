"""The external bot protocol, version 1.1 (``docs/bot-protocol.md``): a bot in any language,
as a child process.

The controller writes one JSON object per line to the bot's standard input and reads one per
line from its standard output. :class:`ExternalBot` is a :class:`~rummy500.bots.Bot` like the
built-in ones: it is given its seat's observation and the legal moves, turns them into an
``act`` request, and turns the answer back into a legal move.

Every ``act`` carries an ``id`` (1, 2, 3, … for the life of the process). An answer that echoes
an ``id`` answers that request: an answer to a request already given up (a late answer) is
thrown away, never taken for the request waited on. An answer without ``id`` (a version 1 bot)
answers the oldest request still owed an answer, so a version 1 bot's late answer is thrown
away too.

A misbehaving bot never stops a match. A line that is not JSON, an answer that is not a legal
move, or no answer before the deadline is reported (:class:`Misbehaviour`: the seat, the
request and the answer) and the built-in beginner policy plays instead, for that move. A bot
that exits or crashes — or that misses ``max_timeouts`` deadlines in a row, as if it hung — is
replaced by the beginner policy for the rest of the match. Whatever the bot writes on standard
error is never read as an answer: it goes to a log file (``stderr_log``), to ``on_stderr`` and
to the ``rummy500.bots.protocol`` logger (level DEBUG).
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import queue
import random
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from rummy500.bots.base import Bot
from rummy500.bots.beginner import beginner_move
from rummy500.engine import (
    Game,
    IllegalMove,
    Move,
    NotationError,
    Observation,
    by_seat,
    card_str,
    seat_str,
)
from rummy500.i18n import _

__all__ = [
    "PROTOCOL_VERSION",
    "ExternalBot",
    "Misbehaviour",
    "act_message",
    "game_over_message",
    "hand_over_message",
    "hello_message",
    "resolve_move",
]

#: The version this controller speaks, as its ``hello`` says it (a JSON number).
PROTOCOL_VERSION = 1.1
DEFAULT_DEADLINE_MS = 1000

log = logging.getLogger(__name__)

_EOF = object()


# --- messages -----------------------------------------------------------------------------


def hello_message() -> dict[str, Any]:
    """The first message to a bot."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION}


#: What an ``act`` carries of the observation's JSON (:meth:`Observation.to_json`, the table
#: server's view too), in its order.
_ACT_FIELDS = (
    "hand_number",
    "dealer",
    "hand",
    "discard_pile",
    "stock_size",
    "melds",
    "hand_sizes",
    "known_cards",
    "totals",
    "history",
    "must_use",
)


def act_message(
    obs: Observation,
    legal: Sequence[Move],
    deadline_ms: int = DEFAULT_DEADLINE_MS,
    request_id: int | None = None,
) -> dict[str, Any]:
    """The ``act`` request for ``obs.seat``: everything its seat may know, and the legal moves.

    ``request_id`` is the request's ``id`` (left out when ``None``)."""
    view = obs.to_json()
    message: dict[str, Any] = {
        "type": "act",
        "seat": view["seat"],
        "players": obs.players,
        "rules": str(obs.rules),
        **{name: view[name] for name in _ACT_FIELDS},
        "phase": obs.protocol_phase,
        "legal": [str(m) for m in legal],
        "deadline_ms": deadline_ms,
    }
    if request_id is not None:
        message["id"] = request_id
    return message


def hand_over_message(obs: Observation, hands: Sequence[Sequence[int]]) -> dict[str, Any]:
    """The hand has ended: its scores, the totals and every hand's cards."""
    result = obs.hand_results[-1] if obs.hand_results else None
    return {
        "type": "hand_over",
        "scores": by_seat(result.scores if result else [0] * obs.players),
        "totals": by_seat(obs.totals),
        "hands": by_seat([[card_str(c) for c in cards] for cards in hands]),
    }


def game_over_message(obs: Observation) -> dict[str, Any]:
    """The game has ended (``winner`` is ``None`` for a game stopped without one)."""
    return {
        "type": "game_over",
        "totals": by_seat(obs.totals),
        "winner": None if obs.winner is None else seat_str(obs.winner),
    }


def resolve_move(obs: Observation, legal: Sequence[Move], text: str) -> Move:
    """The legal move that ``text`` (notation) means for ``obs.seat``.

    Any legal way of writing a move is accepted (the cards of a meld in another order, a joker
    in a group written as ``JK=9H``…): the engine reads it in a game consistent with the
    observation (:meth:`Game.legal_form`), which gives the form :meth:`Game.legal_moves` lists.
    Raises :class:`NotationError` or :class:`IllegalMove` with the reason.
    """
    move = Move.parse(text)
    if move in legal:
        return move
    if move.seat != obs.seat:
        raise IllegalMove("not_your_turn", seat=obs.seat, other=move.seat)
    canonical = Game.from_observation(obs, random.Random(0)).legal_form(move)
    if canonical not in legal:
        raise IllegalMove("not_allowed")
    return canonical


# --- the controller -------------------------------------------------------------------------


def _is_hello_answer(line: str) -> bool:
    if '"move"' in line or '"name"' not in line:
        return False
    try:
        answer = json.loads(line)
    except ValueError:
        return False
    return isinstance(answer, dict) and "name" in answer and "move" not in answer


def _answer_id(line: str) -> object:
    """The ``id`` an answer line carries: an int, ``None`` (no id, or not a JSON object), or
    another JSON value (a wrong id)."""
    if '"id"' not in line:
        return None
    try:
        answer = json.loads(line)
    except ValueError:
        return None
    if not isinstance(answer, dict):
        return None
    value = answer.get("id")
    if isinstance(value, bool):
        return str(value)  # true/false are not request ids
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


@dataclass(frozen=True)
class Misbehaviour:
    """A report about an external bot: who, what went wrong, the request and the answer."""

    bot: str
    seat: str
    kind: str  # "not-json", "bad-answer", "illegal", "timeout", "crash", "hung"
    reason: str
    request: dict[str, Any] | None
    answer: str | None

    def __str__(self) -> str:
        request = "" if self.request is None else json.dumps(self.request)[:300]
        answer = "" if self.answer is None else self.answer[:300]
        return _("{bot} at {seat}: {kind}: {reason}; request: {request}; answer: {answer}").format(
            bot=self.bot,
            seat=self.seat,
            kind=self.kind,
            reason=self.reason,
            request=request,
            answer=answer,
        )

    def to_json(self) -> dict[str, Any]:
        """The report as the ``--json`` report of ``bot-match`` gives it (the whole request)."""
        return {
            "bot": self.bot,
            "seat": self.seat,
            "kind": self.kind,
            "reason": self.reason,
            "request_id": None if self.request is None else self.request.get("id"),
            "request": self.request,
            "answer": self.answer,
        }


class ExternalBot(Bot):
    """A bot in a child process that speaks the bot protocol.

    ``command`` is a command line (``"python3 mybot.py"``) or an argument list. The process is
    started at once and greeted with ``hello``; it lives until :meth:`close` (``quit``), across
    games. ``deadline_ms`` is the time it has for each answer (``hello_timeout`` seconds for the
    first one, which includes starting up). Reports go to ``on_report`` (and are kept in
    :attr:`reports`). What the bot writes on standard error is appended to the file
    ``stderr_log`` (if given) line by line, and each line is passed to ``on_stderr``.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        seed: int | None = None,
        *,
        deadline_ms: int = DEFAULT_DEADLINE_MS,
        hello_timeout: float = 10.0,
        max_timeouts: int = 3,
        on_report: Callable[[Misbehaviour], None] | None = None,
        stderr_log: str | Path | None = None,
        on_stderr: Callable[[str], None] | None = None,
        cwd: str | None = None,
    ) -> None:
        super().__init__(seed)
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        self.deadline_ms = deadline_ms
        self.max_timeouts = max_timeouts
        self.on_report = on_report
        self.on_stderr = on_stderr
        self.stderr_log = None if stderr_log is None else Path(stderr_log)
        self.reports: list[Misbehaviour] = []
        self.name = " ".join(self.command)
        self.author = ""
        self.alive = False
        self.last_request_id = 0  # the id of the last act sent
        # requests given up (no answer before the deadline) whose answer may still come, oldest
        # first: an answer with one of these ids, or an answer without id while any is owed,
        # is a late answer and is thrown away
        self._owed: collections.deque[int] = collections.deque()
        self._timeouts = 0
        self._seat = "?"
        self._answers: queue.Queue[object] = queue.Queue()
        self._outgoing: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._stderr_file: IO[str] | None = None
        self._threads: list[threading.Thread] = []
        if self.stderr_log is not None:
            self.stderr_log.parent.mkdir(parents=True, exist_ok=True)
            self._stderr_file = self.stderr_log.open("a", encoding="utf-8")
        try:
            self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
            )
        except OSError as e:
            self._process = None
            self._report(
                "crash",
                _("cannot start {command}: {error}").format(
                    command=" ".join(self.command), error=e
                ),
                None,
                None,
            )
            self._close_stderr_log()
            return
        self.alive = True
        assert self._process.stdout and self._process.stderr and self._process.stdin
        self._threads = [
            threading.Thread(target=target, args=(stream,), daemon=True)
            for target, stream in (
                (self._read_answers, self._process.stdout),
                (self._read_stderr, self._process.stderr),
                (self._write_requests, self._process.stdin),
            )
        ]
        for thread in self._threads:
            thread.start()
        self._greet(hello_timeout)

    # --- threads ------------------------------------------------------------------------

    def _read_answers(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._answers.put(line.decode("utf-8", errors="replace").rstrip("\r\n"))
        self._answers.put(_EOF)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for raw in stream:
            line = raw.decode("utf-8", errors="replace").rstrip()
            self._stderr.append(line)
            log.debug("%s (stderr): %s", self.name, line)
            if self._stderr_file is not None:
                with contextlib.suppress(OSError, ValueError):
                    self._stderr_file.write(line + "\n")
                    self._stderr_file.flush()
            if self.on_stderr is not None:
                self.on_stderr(line)

    def _write_requests(self, stream: IO[bytes]) -> None:
        while True:
            data = self._outgoing.get()
            if data is None:
                break
            try:
                stream.write(data)
                stream.flush()
            except (OSError, ValueError):
                break
        with contextlib.suppress(OSError, ValueError):
            stream.close()

    # --- talking ------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        if self.alive:
            self._outgoing.put((json.dumps(message) + "\n").encode("utf-8"))

    def _receive(
        self, timeout: float, request: dict[str, Any] | None = None
    ) -> str | object | None:
        """The answer line to ``request`` (``None``: to hello); ``None`` on timeout, ``_EOF``
        when the bot has gone. Late answers to requests given up are thrown away here."""
        wanted = None if request is None else request.get("id")
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                line = self._answers.get(timeout=remaining)
            except queue.Empty:
                return None
            if not isinstance(line, str):
                return _EOF
            if request is not None and _is_hello_answer(line):
                continue  # a late answer to hello
            if request is None:
                return line
            answer_id = _answer_id(line)
            if answer_id is None:
                if self._owed:
                    # a version 1 answer: it answers the oldest request still owed one
                    log.debug("%s: late answer to request %s dropped", self.name, self._owed[0])
                    self._owed.popleft()
                    continue
                return line
            if answer_id == wanted:
                return line
            if answer_id in self._owed:
                log.debug("%s: late answer to request %s dropped", self.name, answer_id)
                self._owed.remove(answer_id)  # type: ignore[arg-type]
                continue
            self._report(
                "bad-answer",
                _("the answer's id {id} is not that of a request waiting for an answer").format(
                    id=json.dumps(answer_id)
                ),
                request,
                line,
            )

    def _greet(self, timeout: float) -> None:
        request = hello_message()
        self._send(request)
        line = self._receive(timeout)
        if line is _EOF:
            self._crashed(request, None)
            return
        if line is None:
            self._report("timeout", _("no answer to hello"), request, None)
            return
        assert isinstance(line, str)
        try:
            answer = json.loads(line)
            if not isinstance(answer, dict):
                raise ValueError
        except ValueError:
            self._report("not-json", _("the answer to hello is not a JSON object"), request, line)
            return
        if isinstance(answer.get("name"), str) and answer["name"].strip():
            self.name = answer["name"].strip()
        if isinstance(answer.get("author"), str):
            self.author = answer["author"]

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        self._seat = seat_str(observation.seat)
        if not self.alive:
            return beginner_move(observation, legal_moves)
        self.last_request_id += 1
        request = act_message(observation, legal_moves, self.deadline_ms, self.last_request_id)
        self._send(request)
        line = self._receive(self.deadline_ms / 1000, request)
        if line is _EOF:
            self._crashed(request, None)
            return beginner_move(observation, legal_moves)
        if line is None:
            self._owed.append(self.last_request_id)
            self._timeouts += 1
            self._report(
                "timeout",
                _("no answer within {ms} ms").format(ms=self.deadline_ms),
                request,
                None,
            )
            if self._timeouts >= self.max_timeouts:
                self._report(
                    "hung",
                    _("{n} deadlines missed in a row: replaced for the rest of the match").format(
                        n=self._timeouts
                    ),
                    request,
                    None,
                )
                self._stop()
            return beginner_move(observation, legal_moves)
        self._timeouts = 0
        assert isinstance(line, str)
        try:
            answer = json.loads(line)
        except ValueError:
            self._report("not-json", _("the answer is not JSON"), request, line)
            return beginner_move(observation, legal_moves)
        text = answer.get("move") if isinstance(answer, dict) else None
        if not isinstance(text, str):
            self._report("bad-answer", _('the answer has no "move" string'), request, line)
            return beginner_move(observation, legal_moves)
        try:
            return resolve_move(observation, legal_moves, text)
        except (NotationError, IllegalMove) as e:
            self._report("illegal", str(e), request, line)
            return beginner_move(observation, legal_moves)

    def hand_over(self, observation: Observation, hands: Sequence[Sequence[int]]) -> None:
        self._send(hand_over_message(observation, hands))

    def game_over(self, observation: Observation) -> None:
        self._send(game_over_message(observation))

    # --- ending ---------------------------------------------------------------------------

    def _crashed(self, request: dict[str, Any] | None, answer: str | None) -> None:
        code = self._process.poll() if self._process else None
        if self._process is not None and code is None:
            try:
                code = self._process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = None
        if len(self._threads) > 1:
            self._threads[1].join(timeout=1.0)  # what it said on stderr before it went
        reason = _("the bot exited (status {code}); replaced for the rest of the match").format(
            code=code
        )
        if self._stderr:
            reason += " — " + " | ".join(list(self._stderr)[-3:])
        self._report("crash", reason, request, answer)
        self._stop()

    def _stop(self) -> None:
        self.alive = False
        self._outgoing.put(None)
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5.0)

    def _close_stderr_log(self) -> None:
        if self._stderr_file is not None:
            with contextlib.suppress(OSError):
                self._stderr_file.close()
            self._stderr_file = None

    def close(self) -> None:
        """Send ``quit`` and wait a moment for the bot to exit; kill it if it does not."""
        if self._process is None:
            self._close_stderr_log()
            return
        if self.alive:
            self._send({"type": "quit"})
            self._outgoing.put(None)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=2.0)
        self.alive = False
        self._stop()
        for thread in self._threads:
            thread.join(timeout=2.0)
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._process = None
        self._close_stderr_log()

    def _report(
        self, kind: str, reason: str, request: dict[str, Any] | None, answer: str | None
    ) -> None:
        report = Misbehaviour(self.name, self._seat, kind, reason, request, answer)
        self.reports.append(report)
        # INFO, not WARNING: the caller shows reports (on_report); Python's last-resort handler
        # would print every one a second time
        log.info("%s", report)
        if self.on_report is not None:
            self.on_report(report)
