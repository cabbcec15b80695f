"""``rummy500 bench server``: a real server process, many tables, simulated players.

Each table has two simulated players — real WebSocket clients on loopback, in this process —
and one bot played by the server. A simulated player thinks for a while (``think_ms`` on
average, uniformly between half and one and a half times that), then sends one of its legal
moves. The latency of a move is the time from sending it to receiving the server's answer to it
(the ``update`` that carries it, or ``queued`` for an answer to a Rummy call window or a draw
sent during one). When a game ends the players ask for a rematch and play on at the new table.

The computer player's turns are timed from the same updates (:class:`_BotTurns`, by one
simulated player per table): a turn lasts from the update that makes it the computer seat's
turn (its draw) to the update where the turn passes on (its discard opens a call window or
gives the next player the draw) or the hand ends, so it holds every decision of the turn (the
draw, the melds, the discard), the wait for a free worker of the searching levels, and the
server's own work. ``bot_turns`` counts the turns ended while measuring, and those still under
way when it ends, timed until then (``bot_turns_cut``); ``bot_turn_p50_ms`` and
``bot_turn_p99_ms`` are their median and 99th percentile. The server paces computer moves
only at tables of computer players only (``--bot-table-pace``, for watching; the browser paces
its own display), so at the benchmark's tables these are thinking times with no pause added.
When the line for the searching levels' workers is full (``--bot-queue``), or a decision
waited in it past ``--bot-wait`` from its turn's start, the server lets the quick level decide
at once; ``bot_fallbacks`` is the most such decisions its log reported over the whole run (it
reports the 1st, 10th, 100th and every 1000th, and the count in all when it stops; added up
over the processes). ``--level`` may give the level bot options (``expert:samples=8``):
the server is then started with ``--level-options`` (:func:`check_level`).

``errors`` counts error replies other than ``stale`` ones (a move that raced a change of the
table: another player's Rummy call closing a window), closed connections and failed requests.

With ``hint_fraction`` (``--hint-fraction 0.1``) that fraction of the simulated players (spread
over the tables: every tenth) asks for a hint at every decision, as soon as it has it, and
then thinks and moves as the others do. ``hints`` counts the hints answered while measuring,
``hint_p50_ms`` and ``hint_p99_ms`` the time from asking to the answer, ``hints_busy`` the asks
refused because the hint workers were busy, and ``hints_refused`` the others refused (the
decision was over: another player's Rummy call closed the window).

With ``processes`` (``--processes P``) the benchmark starts a whole site instead
(:class:`~rummy500.bench.cluster.Cluster`: PostgreSQL, P server processes and HAProxy) and
plays through the balancer. ``rummy500 bench failover`` (:func:`run_failover`) kills the
process that serves a game, again and again, and reports the moves lost and the time until the
game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rummy500.bench.client_socket import BenchSocket, SocketClosed
from rummy500.bench.cluster import descendants, free_port

__all__ = [
    "CpuShares",
    "FAILOVER_KEYS",
    "HINT_KEYS",
    "JSON_KEYS",
    "asks_hints",
    "check_level",
    "players_yield",
    "run",
    "run_alternating",
    "run_benchmark",
    "run_failover",
]

T = TypeVar("T")

#: The keys of ``rummy500 bench server --json``.
JSON_KEYS = (
    "tables",
    "moves",
    "moves_per_s",
    "p50_ms",
    "p99_ms",
    "errors",
    "processes",
    "bot_turns",
    "bot_turn_p50_ms",
    "bot_turn_p99_ms",
    "cpu_percent",
)
#: The keys ``rummy500 bench server --json`` adds when simulated players ask for hints.
HINT_KEYS = ("hints", "hints_busy", "hint_p50_ms", "hint_p99_ms")
#: The keys of ``rummy500 bench failover --json``.
FAILOVER_KEYS = ("moves_lost", "seconds_to_resume", "kills", "median_seconds", "moves")

#: Error codes that are not the server's fault: a move that raced another player's.
RACE_CODES = frozenset({"stale", "draw_cancelled"})


@dataclass
class _Stats:
    latencies: list[float] = field(default_factory=list)
    #: the computer players' turns ended while measuring, in seconds (:class:`_BotTurns`)
    bot_turns: list[float] = field(default_factory=list)
    #: of those, the turns still under way when measuring ended (timed until then)
    bot_turns_cut: int = 0
    #: the moves of each computer turn ended while measuring (draw, melds, lay-offs, discard)
    bot_turn_moves: list[int] = field(default_factory=list)
    #: searching decisions the server's log says it gave to the quick level (a lower bound)
    bot_fallbacks: int = 0
    errors: int = 0
    #: moves sent, measuring or not
    sent: int = 0
    races: int = 0
    resyncs: int = 0
    games: int = 0
    measuring: bool = False
    #: the simulated players that have had their first ``state`` (are seated and playing)
    seated: int = 0
    error_samples: list[str] = field(default_factory=list)
    #: each part's CPU time while measuring, in percent of one core (:class:`CpuShares`)
    cpu: dict[str, float] = field(default_factory=dict)
    #: hints answered while measuring: the time from asking to the answer, in seconds
    hint_latencies: list[float] = field(default_factory=list)
    #: asks refused while measuring: the hint workers were busy; for another reason
    hints_busy: int = 0
    hints_refused: int = 0

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what)


class _BotTurns:
    """The computer seats' turns at one table as a simulated player sees them.

    A turn starts at the update whose view gives a computer seat the draw or the play
    (``to_act`` in ``draw`` or ``play``) and ends at the first update where it no longer does
    (a call window, the next player, the end of the hand). A ``state`` (a new connection, a
    resync) or a missed update drops the turn under way: its start was not seen.
    """

    def __init__(self, stats: _Stats) -> None:
        self.stats = stats
        self.computer_seats: frozenset[str] = frozenset()
        self.version = -1
        #: the computer seat whose turn it is, and when its turn started (``None``: unseen)
        self.seat: str | None = None
        self.since: float | None = None
        #: the moves it has made in this turn
        self.moves = 0

    def see(self, m: dict[str, Any], now: float) -> None:
        kind = m.get("type")
        if kind in ("state", "seats"):
            self.computer_seats = frozenset(
                row["seat"] for row in m.get("seats") or () if row.get("kind") == "bot"
            )
        if kind == "state":
            # a turn under way began unseen
            self.version, self.seat, self.since = m["version"], self._to_act(m.get("view")), None
        elif kind == "update":
            actor = self._to_act(m["view"])
            if m["version"] != self.version + 1:
                self.seat, self.since = actor, None  # a turn under way began unseen
            else:
                event = m.get("event") or {}
                if self.seat is not None and event.get("seat") == self.seat:
                    self.moves += event.get("kind") == "move"
                if actor != self.seat:
                    if self.seat is not None and self.since is not None and self.stats.measuring:
                        self.stats.bot_turns.append(now - self.since)
                        self.stats.bot_turn_moves.append(self.moves)
                    self.seat, self.since, self.moves = actor, now, 0
            self.version = m["version"]
        elif kind == "game_over":
            self.seat, self.since = None, None

    def cut(self, now: float) -> None:
        """Measuring ends: a turn under way counts with its time so far (it lasts longer)."""
        if self.seat is not None and self.since is not None and self.stats.measuring:
            self.stats.bot_turns.append(now - self.since)
            self.stats.bot_turns_cut += 1
            self.since = None

    def _to_act(self, view: dict[str, Any] | None) -> str | None:
        """The computer seat that has the draw or the play in ``view``, if one has."""
        if view is None or view["phase"] not in ("draw", "play"):
            return None
        seat = view["to_act"]
        return seat if seat in self.computer_seats else None


def check_level(level: str) -> tuple[str, list[str]]:
    """``--level`` read: the level the tables name (one of :data:`rummy500.bots.LEVELS`) and
    the ``serve`` arguments that give it the bot options written after it
    (``expert:samples=8``: the server's expert plays with 8 samples). A wrong level or option
    raises :class:`ValueError` (or the bot's :class:`TypeError`) before anything starts."""
    from rummy500.server.bot_pool import level_options

    name, options = level_options(level)
    return name, ["--level-options", level.strip()] if options else []


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run a benchmark to its end on uvloop when it is installed (uvicorn's standard extra
    brings it, and the servers run on it too): the simulated players' sockets are then
    uvloop's, in C, and the instrument takes less of the cores it shares with what it
    measures. Elsewhere, on asyncio's own loop. ``SIGTERM`` (``timeout``, ``kill``) stops it
    as Ctrl-C does: what it started (the servers, PostgreSQL, HAProxy) is stopped too."""
    try:
        import uvloop
    except ImportError:
        factory = None
    else:
        factory = uvloop.new_event_loop
    with _terminate_as_interrupt(), asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """``SIGTERM`` raises :class:`KeyboardInterrupt` meanwhile (its default ends the process at
    once, leaving the processes it started behind), where it is this process's to handle."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


#: Processes by part of the benchmark (``servers``, ``postgres``, ``haproxy``).
Parts = Callable[[], dict[str, list[int]]]


class CpuShares:
    """The CPU time (user and system) each part of the benchmark takes while it measures, in
    percent of one core, from ``/proc``: the server processes, their search workers, PostgreSQL
    and HAProxy (as ``parts`` lists them), the benchmark's own process (``bench``: the simulated
    players), and the whole machine (``machine``, every core: 200 on two; ``others`` is what
    none of these took). Empty where there is no ``/proc``."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self._start: tuple[float, float, dict[int, float]] | None = None

    def _groups(self) -> dict[str, list[int]]:
        return {**self.parts(), "bench": [os.getpid()]}

    @staticmethod
    def _seconds(pid: int) -> float | None:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _machine() -> float:
        with open("/proc/stat", encoding="ascii") as f:
            ticks = [int(n) for n in f.readline().split()[1:]]
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
        return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    def start(self) -> None:
        if not os.path.exists("/proc/stat"):
            return
        pids = [pid for group in self._groups().values() for pid in group]
        seconds = {pid: t for pid in pids if (t := self._seconds(pid)) is not None}
        self._start = (time.monotonic(), self._machine(), seconds)

    def shares(self) -> dict[str, float]:
        if self._start is None:
            return {}
        began, machine, before = self._start
        elapsed = time.monotonic() - began
        shares: dict[str, float] = {}
        for name, pids in self._groups().items():
            used = 0.0
            for pid in pids:
                now = self._seconds(pid)
                if now is not None:  # a process started meanwhile counts from zero
                    used += now - before.get(pid, 0.0)
            shares[name] = round(100 * used / elapsed, 1)
        shares["machine"] = round(100 * (self._machine() - machine) / elapsed, 1)
        shares["others"] = round(
            shares["machine"] - sum(shares[n] for n in shares if n != "machine"), 1
        )
        return shares


def _choose(legal: list[str], rng: random.Random) -> str:
    """A plausible quick player: meld when it can, mostly draw from the stock, rarely call."""
    plays = [m for m in legal if m.split()[1] in ("meld", "layoff")]
    if plays:
        return rng.choice(plays)
    verbs = {m.split()[1]: m for m in legal}
    if "draw" in verbs and rng.random() < 0.9:
        return verbs["draw"]
    if "rummy" in verbs and rng.random() < 0.2:
        return rng.choice([m for m in legal if m.split()[1] == "rummy"])
    for verb in ("pass", "draw", "end"):
        if verb in verbs:
            return verbs[verb]
    discards = [m for m in legal if m.split()[1] == "discard"]
    return rng.choice(discards or legal)


class _Player:
    """One simulated player: plays its seat, and on to the rematch when a game ends."""

    def __init__(
        self,
        base: str,
        table_id: str,
        token: str,
        think: float,
        rng: random.Random,
        stats: _Stats,
    ) -> None:
        self.base = base
        self.table_id = table_id
        self.token = token
        self.think = think
        self.rng = rng
        self.stats = stats
        self.version = -1
        self.legal: list[str] = []
        self.pending: dict[int, float] = {}
        self.next_id = 0
        self.decided_at = -1
        self.over = False
        #: this game's connection, its end, and the move being thought about
        self.ws = BenchSocket(self._received)
        self.game_over: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.thinking: asyncio.TimerHandle | None = None
        self.seated = False
        #: times the computer player's turns (one simulated player per table does)
        self.bot_turns: _BotTurns | None = None
        #: whether it asks for a hint at every decision, and when each ask was sent (by id)
        self.asks_hints = False
        self.hints_asked: dict[str, float] = {}
        #: its site's gate (:func:`run_alternating`): while it is shut, no move is sent
        self.gate: _Gate | None = None

    async def run(self, http: Any, stop: asyncio.Event) -> None:
        ws_base = self.base.replace("http://", "ws://")
        stopped = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                self.over = False
                error = await self._play(f"{ws_base}/ws/tables/{self.table_id}", stopped)
                if stop.is_set():
                    return
                if error is not None:
                    self.stats.error(f"connection: {error}")
                    await asyncio.sleep(1)
                    continue
                await self._rematch(http)
        finally:
            stopped.cancel()

    async def _play(self, url: str, stopped: asyncio.Future[Any]) -> str | None:
        """One connection, until the game is over (``None``) or the connection ends (how).
        Everything else happens in callbacks: each message as it arrives (:meth:`_received`),
        each move when its thinking time is up (:meth:`_move`)."""
        self.game_over = asyncio.get_running_loop().create_future()
        ws = self.ws = BenchSocket(self._received)
        try:
            try:
                await ws.open(url)
            except (OSError, TimeoutError, SocketClosed) as e:
                return repr(e)
            ws.send(json.dumps({"type": "auth", "token": self.token}))
            assert ws.ended is not None
            await asyncio.wait(
                {self.game_over, ws.ended, stopped}, return_when=asyncio.FIRST_COMPLETED
            )
            if self.game_over.done() or stopped.done():
                return None
            return ws.ended.result()
        finally:
            if self.thinking is not None:
                self.thinking.cancel()
                self.thinking = None
            await ws.close()

    def _received(self, data: bytes) -> None:
        self._receive(json.loads(data))
        if self.legal and self.decided_at != self.version:
            self.decided_at = self.version
            if self.asks_hints:
                self._ask_hint()
            if self.thinking is not None:
                self.thinking.cancel()
            delay = self.think * self.rng.uniform(0.5, 1.5)
            self.thinking = asyncio.get_running_loop().call_later(delay, self._move)

    def _receive(self, m: dict[str, Any]) -> None:
        now = time.perf_counter()
        if self.bot_turns is not None:
            self.bot_turns.see(m, now)
        ref = m.get("ref")
        if isinstance(ref, str) and ref in self.hints_asked:
            self._hint_answered(m, now - self.hints_asked.pop(ref))
            return
        if ref is not None and ref in self.pending:
            sent = self.pending.pop(ref)
            if self.stats.measuring:
                self.stats.latencies.append(now - sent)
        kind = m["type"]
        if kind == "state":
            if not self.seated:
                self.seated = True
                self.stats.seated += 1
            self.version = m["version"]
            self.legal = m["legal"]
        elif kind == "update":
            if m["version"] != self.version + 1:
                self.stats.resyncs += 1
                self.ws.send(json.dumps({"type": "resync"}))
            self.version = m["version"]
            self.legal = m["legal"]
        elif kind == "error":
            if m["code"] in RACE_CODES:
                self.stats.races += 1
            elif self.stats.measuring:
                self.stats.error(f"{m['code']}: {m['message']}")
        elif kind == "game_over":
            self.stats.games += 1
            self.over = True
            if not self.game_over.done():
                self.game_over.set_result(None)

    def _ask_hint(self) -> None:
        self.next_id += 1
        ref = f"h{self.next_id}"
        self.hints_asked[ref] = time.perf_counter()
        self.ws.send(json.dumps({"type": "hint", "id": ref}))

    def _hint_answered(self, m: dict[str, Any], seconds: float) -> None:
        if not self.stats.measuring:
            return
        if m["type"] == "hint":
            self.stats.hint_latencies.append(seconds)
        elif m["type"] == "error" and m["code"] == "busy":
            self.stats.hints_busy += 1
        elif m["type"] == "error" and m["code"] in ("not_your_turn", *RACE_CODES):
            self.stats.hints_refused += 1
        else:
            self.stats.error(f"hint: {m['type']} {m.get('code')}: {m.get('message')}")

    def _move(self) -> None:
        self.thinking = None
        if not self.legal or not self.ws.is_open:
            return
        if self.gate is not None and not self.gate.is_open:
            self.gate.waiting.append(self)  # moved when the gate opens
            return
        self.next_id += 1
        move = _choose(self.legal, self.rng)
        self.pending[self.next_id] = time.perf_counter()
        self.stats.sent += 1
        self.ws.send(
            json.dumps({"type": "move", "move": move, "id": self.next_id, "version": self.version})
        )

    def resume(self, delay: float) -> None:
        """Think ``delay`` seconds, then move (a move its gate held back)."""
        if self.thinking is None:
            self.thinking = asyncio.get_running_loop().call_later(delay, self._move)

    async def _rematch(self, http: Any) -> None:
        await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        if self.gate is not None:
            await self.gate.opened.wait()
        r = await http.post(
            f"/api/tables/{self.table_id}/rematch",
            headers={"Authorization": f"Bearer {self.token}"},
        )
        if r.status_code != 200:
            self.stats.error(f"rematch: {r.status_code} {r.text}")
            await asyncio.sleep(1)
            return
        reply = r.json()
        self.table_id = reply["table"]["table_id"]
        self.token = reply["token"]
        self.version = -1
        self.legal = []
        self.pending.clear()
        self.hints_asked.clear()


@contextlib.contextmanager
def served(command: list[str], log_path: str) -> Iterator[subprocess.Popen[bytes]]:
    """A ``rummy500 serve`` process started with ``command``, its output in ``log_path``;
    stopped on leaving (terminated, killed after 15 s). A :class:`RuntimeError` raised inside
    carries the tail of the server's log."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            command,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield proc
        except RuntimeError as e:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                raise RuntimeError(f"{e}:\n{f.read()[-3000:]}") from None
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def wait_ready(http: Any, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Wait until the server answers its health check (a :class:`RuntimeError` if it exits or
    does not answer within ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        with contextlib.suppress(Exception):
            r = await http.get("/api/health")
            if r.status_code == 200:
                return
        await asyncio.sleep(0.1)
    raise RuntimeError("the server did not start")


async def run_benchmark(
    tables: int,
    seconds: float,
    think_ms: int = 1000,
    level: str = "easy",
    db_url: str | None = None,
    seed: int = 0,
    warmup: float = 3.0,
    processes: int = 0,
    bot_processes: int | None = None,
    hint_fraction: float = 0.0,
    batch_players: bool = False,
    batch_helpers: bool = False,
    pin_servers: bool = False,
) -> dict[str, Any]:
    """Start a server, play ``tables`` tables for ``warmup`` + ``seconds`` seconds, measure the
    last ``seconds``. Returns the figures (the first keys are the ``--json`` output). With
    ``processes``, a site of that many processes behind HAProxy, on PostgreSQL. Each server
    process runs the searching computer players on ``bot_processes`` worker processes (``None``:
    as ``serve`` does by default, one per core). ``hint_fraction`` of the simulated players ask
    for a hint at every decision. ``batch_players``: the simulated players play as
    ``SCHED_BATCH`` (:func:`players_yield`); ``batch_helpers``: the site's HAProxy and
    PostgreSQL run so (:func:`~rummy500.bench.cluster.run_as_batch`); ``pin_servers``: each
    server process on a core of its own (:attr:`~rummy500.bench.cluster.Cluster.pin_servers`)."""
    level, level_args = check_level(level)
    if not 0.0 <= hint_fraction <= 1.0:
        raise ValueError(f"the hint fraction is from 0 to 1, not {hint_fraction}")
    if bot_processes is not None:
        level_args = [*level_args, "--bot-processes", str(bot_processes)]
    if processes > 0:
        return await _run_on_cluster(
            tables, seconds, think_ms, level, seed, warmup, processes, level_args, hint_fraction,
            batch_players, batch_helpers, pin_servers,
        )  # fmt: skip

    rng = random.Random(seed)
    stats = _Stats()
    with tempfile.TemporaryDirectory(prefix="rummy500-bench-") as tmp:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        command = [
            sys.executable,
            "-m",
            "rummy500",
            "serve",
            "--port",
            str(port),
            "--db",
            db_url or f"sqlite:///{tmp}/bench.sqlite3",
            "--node",
            f"bench-{port}",
            *_serve_args(tables),
            *level_args,
        ]
        log_path = os.environ.get("RUMMY500_BENCH_LOG") or os.path.join(tmp, "server.log")
        with served(command, log_path) as proc:
            async with _client(base) as http:
                await wait_ready(http, proc)
                elapsed = await _play(
                    http, tables, level, think_ms, rng, stats, warmup, seconds,
                    lambda: {"servers": [proc.pid], "searches": descendants(proc.pid)},
                    hint_fraction, batch_players,
                )  # fmt: skip
        stats.bot_fallbacks = _fallbacks_logged([log_path])
    return _figures(stats, tables, elapsed, think_ms, seconds, 1)


def _client(base: str) -> Any:
    import httpx

    return httpx.AsyncClient(base_url=base, timeout=60, limits=httpx.Limits(max_connections=50))


def _serve_args(tables: int) -> list[str]:
    """The settings of every benchmarked server process."""
    return [
            "--hand-pause",
            "1",
            "--call-seconds",
            "5",
            "--log-level",
            "warning",
            # every simulated player comes from loopback: no per-address lobby limit
            *("--tables-per-minute", "0", "--joins-per-minute", "0"),
            *("--rematches-per-minute", "0", "--api-per-minute", "0"),
            # nor a per-address cap on WebSocket connections (every table has a person's seat:
            # the simulated players are people, so the tables play)
            *("--connections-per-address", str(2 * tables + 10)),
            *("--limit-concurrency", str(max(1000, 2 * tables + 100))),
    ]  # fmt: skip


@contextlib.contextmanager
def players_yield(enabled: bool = True) -> Iterator[None]:
    """The calling thread — the simulated players' event loop — as ``SCHED_BATCH`` while
    inside (Linux; elsewhere, or when not allowed, as it is), then back as it was. Woken by a
    message, a player then waits for the server that wrote it to finish its time slice or
    sleep instead of taking its core at once: on a machine of few cores the instrument
    preempted what it measures (docs/server.md, "CPU per move, one process against two").
    Processes started from the thread inside would inherit it: start none there."""
    policy = getattr(os, "SCHED_BATCH", None)
    before: tuple[int, Any] | None = None
    if enabled and policy is not None:
        try:
            before = (os.sched_getscheduler(0), os.sched_getparam(0))
            os.sched_setscheduler(0, policy, os.sched_param(0))
        except OSError:
            before = None
    try:
        yield
    finally:
        if before is not None:
            with contextlib.suppress(OSError):
                os.sched_setscheduler(0, *before)


async def _play(
    http: Any,
    tables: int,
    level: str,
    think_ms: int,
    rng: random.Random,
    stats: _Stats,
    warmup: float,
    seconds: float,
    parts: Parts,
    hint_fraction: float = 0.0,
    batch_players: bool = False,
) -> float:
    """Open the tables, play, measure the last ``seconds`` (and the CPU shares of ``parts``
    meanwhile); the seconds measured. ``hint_fraction`` of the players ask for hints; with
    ``batch_players`` they play as ``SCHED_BATCH`` (the servers are started by then: they do
    not inherit it)."""
    with players_yield(batch_players):
        players = await _open_tables(http, tables, level, think_ms / 1000, rng, stats)
        for n, player in enumerate(players):
            player.asks_hints = asks_hints(n, hint_fraction)
        gc.collect()
        gc.freeze()  # the simulated players' own pauses must not count as the server's
        stop = asyncio.Event()
        runs = [asyncio.ensure_future(p.run(http, stop)) for p in players]
        # the warm-up starts once every player is seated: hundreds of connections arriving at
        # once (each loading its table and claiming it) are the start, not the play measured
        seated_by = time.monotonic() + 120
        while stats.seated < len(players) and time.monotonic() < seated_by:
            await asyncio.sleep(0.05)
        await asyncio.sleep(warmup)
        cpu = CpuShares(parts)
        cpu.start()
        stats.measuring = True
        start = time.perf_counter()
        await asyncio.sleep(seconds)
        _cut_bot_turns(players)
        stats.measuring = False
        elapsed = time.perf_counter() - start
        stats.cpu = cpu.shares()
        stop.set()
        await asyncio.wait(runs, timeout=30)
        return elapsed


async def _run_on_cluster(
    tables: int,
    seconds: float,
    think_ms: int,
    level: str,
    seed: int,
    warmup: float,
    P: int,
    level_args: list[str],
    hint_fraction: float = 0.0,
    batch_players: bool = False,
    batch_helpers: bool = False,
    pin_servers: bool = False,
) -> dict[str, Any]:
    from rummy500.bench.cluster import Cluster

    rng = random.Random(seed)
    stats = _Stats()
    site = Cluster(
        processes=P,
        serve_args=[*_serve_args(tables), *level_args],
        batch_helpers=batch_helpers,
        pin_servers=pin_servers,
    )
    loop = asyncio.get_running_loop()
    starting = loop.run_in_executor(None, site.start)
    try:
        # (shielded: stopped while it starts, the site is stopped once it has started)
        await asyncio.shield(starting)
        async with _client(site.url) as http:
            elapsed = await _play(
                http, tables, level, think_ms, rng, stats, warmup, seconds, site.process_ids,
                hint_fraction, batch_players,
            )  # fmt: skip
        stats.bot_fallbacks = _fallbacks_logged(node.log_path for node in site.nodes)
    finally:
        await asyncio.wait([starting])
        await loop.run_in_executor(None, site.stop)
    return _figures(stats, tables, elapsed, think_ms, seconds, P)


def _ms_at(ordered: list[float], p: float, digits: int = 2) -> float:
    """The ``p`` quantile of ``ordered`` (seconds, ascending) in ms (0 for none)."""
    if not ordered:
        return 0.0
    return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, digits)


def _site_cpu(shares: dict[str, float]) -> float:
    """What a site's servers and PostgreSQL took of the CPU in ``shares`` (% of a core)."""
    return shares.get("servers", 0.0) + shares.get("postgres", 0.0)


def _figures(
    stats: _Stats, tables: int, elapsed: float, think_ms: int, seconds: float, processes: int
) -> dict[str, Any]:
    lat = sorted(stats.latencies)

    def pct(p: float) -> float:
        return _ms_at(lat, p)

    return {
        "tables": tables,
        "moves": len(lat),
        "moves_per_s": round(len(lat) / elapsed, 1),
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "errors": stats.errors,
        "processes": processes,
        "max_ms": round(lat[-1] * 1000, 2) if lat else 0.0,
        "think_ms": think_ms,
        "seconds": seconds,
        "games_finished": stats.games,
        "stale_moves": stats.races,
        "resyncs": stats.resyncs,
        "error_samples": stats.error_samples,
        **_bot_turn_figures(stats),
        **_hint_figures(stats, elapsed),
        "cpu_percent": stats.cpu,
        "players_seated": stats.seated,
    }


def _cut_bot_turns(players: list[_Player]) -> None:
    """The computer turns under way as measuring ends count with their time so far: a turn
    longer than the run is not left out of its percentiles."""
    now = time.perf_counter()
    for player in players:
        if player.bot_turns is not None:
            player.bot_turns.cut(now)


def _bot_turn_figures(stats: _Stats) -> dict[str, Any]:
    """The computer players' turns: how many ended while measuring, their p50 and p99."""
    turns = sorted(stats.bot_turns)
    moves = stats.bot_turn_moves

    def pct(p: float) -> float:
        return _ms_at(turns, p, 1)

    return {
        "bot_turns": len(turns),
        "bot_turn_p50_ms": pct(0.50),
        "bot_turn_p99_ms": pct(0.99),
        "bot_turn_max_ms": round(turns[-1] * 1000, 1) if turns else 0.0,
        "bot_turns_cut": stats.bot_turns_cut,
        "bot_moves_per_turn": round(sum(moves) / len(moves), 2) if moves else 0.0,
        "bot_fallbacks": stats.bot_fallbacks,
    }


def asks_hints(n: int, fraction: float) -> bool:
    """Whether the ``n``-th simulated player (from 0) asks for hints, so that ``fraction`` of
    them do, spread over the tables (0.1: the 10th, the 20th, …)."""
    return int((n + 1) * fraction + 1e-9) > int(n * fraction + 1e-9)


def _hint_figures(stats: _Stats, elapsed: float) -> dict[str, Any]:
    """The hints answered while measuring, their p50 and p99 (ask to answer), and the asks
    refused (busy; the decision was over)."""
    hints = sorted(stats.hint_latencies)

    def pct(p: float) -> float:
        return _ms_at(hints, p, 1)

    return {
        "hints": len(hints),
        "hints_per_s": round(len(hints) / elapsed, 1) if elapsed > 0 else 0.0,
        "hints_busy": stats.hints_busy,
        "hints_refused": stats.hints_refused,
        "hint_p50_ms": pct(0.50),
        "hint_p99_ms": pct(0.99),
    }


#: The server's warning when the searching computer players' decisions go to the quick level.
_FALLBACK_LINE = re.compile(r"searching computer players .*: (\d+) decisions given to the")


def _fallbacks_logged(paths: Iterable[str | os.PathLike[str]]) -> int:
    """The most searching decisions given to the quick level that each server log reports,
    added up over the logs (the server logs the 1st, 10th, 100th and every 1000th)."""
    total = 0
    for path in paths:
        with contextlib.suppress(OSError), open(path, encoding="utf-8", errors="replace") as f:
            counts = [int(m.group(1)) for m in _FALLBACK_LINE.finditer(f.read())]
            total += max(counts, default=0)
    return total


async def _open_tables(
    http: Any, tables: int, level: str, think: float, rng: random.Random, stats: _Stats
) -> list[_Player]:
    """Create the tables and seat two simulated players at each."""
    players: list[_Player] = []
    gate = asyncio.Semaphore(20)

    async def one(i: int) -> None:
        async with gate:
            r = await http.post(
                "/api/tables",
                json={
                    "seats": [
                        {"kind": "human"},
                        {"kind": "human"},
                        {"kind": "bot", "level": level},
                    ],
                    "name": f"sim{i}a",
                },
            )
            r.raise_for_status()
            made = r.json()
            table_id = made["table"]["table_id"]
            r = await http.post(f"/api/tables/{table_id}/join", json={"name": f"sim{i}b"})
            r.raise_for_status()
            base = str(http.base_url).rstrip("/")
            for token in (made["token"], r.json()["token"]):
                players.append(_Player(base, table_id, token, think, rng, stats))
            players[-2].bot_turns = _BotTurns(stats)  # the first player times the bot

    await asyncio.gather(*(one(i) for i in range(tables)))
    return players


# --- two sites measured in turns ------------------------------------------------------------


@dataclass
class _Gate:
    """Whether a site's simulated players may move (:func:`run_alternating`). While it is shut,
    a player whose thinking time is up waits; when it opens, each waiting player thinks again
    for a time drawn from 0 to the mean thinking time, so that the site does not begin with
    every table's move at once."""

    rng: random.Random
    think: float
    waiting: list[_Player] = field(default_factory=list)
    opened: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def is_open(self) -> bool:
        return self.opened.is_set()

    def open(self) -> None:
        self.opened.set()
        for player in self.waiting:
            player.resume(self.think * self.rng.random())
        self.waiting.clear()

    def shut(self) -> None:
        self.opened.clear()


async def run_alternating(
    tables: int,
    seconds: float,
    rounds: int,
    processes: tuple[int, int] = (1, 2),
    think_ms: int = 1000,
    level: str = "easy",
    seed: int = 0,
    warmup: float = 3.0,
    settle: float = 2.0,
    pin_servers: bool = False,
) -> dict[str, Any]:
    """Two sites at once (PostgreSQL, ``processes[i]`` server processes and HAProxy each, all
    started here), ``tables`` tables each, played in turns: in each of ``rounds`` rounds each
    site plays alone — its players move, the other site's wait — for ``settle`` seconds, then
    ``seconds`` measured (its CPU shares and its moves), the order of the two sites swapped
    every round (ABBA). Runs of one setting on a shared or virtual machine differ by a third
    from run to run; windows a few seconds apart, in the same processes, compare the settings
    under the same conditions. Returns each window's figures, each site's CPU a move over all
    its windows (servers and PostgreSQL, ms), the ratio of the second to the first, and the
    median of the rounds' ratios. ``pin_servers``: each site's server processes on cores of
    their own (:attr:`~rummy500.bench.cluster.Cluster.pin_servers`)."""
    from rummy500.bench.cluster import Cluster

    level, level_args = check_level(level)
    think = think_ms / 1000
    sites = [
        Cluster(
            processes=p,
            serve_args=[*_serve_args(tables), *level_args],
            pin_servers=pin_servers,
        )
        for p in processes
    ]
    loop = asyncio.get_running_loop()
    starting: list[asyncio.Future[Any]] = []
    try:
        for site in sites:
            starting.append(loop.run_in_executor(None, site.start))
            await asyncio.shield(starting[-1])  # (stopped while it starts: stopped once started)
        async with contextlib.AsyncExitStack() as stack:
            https = [await stack.enter_async_context(_client(site.url)) for site in sites]
            stats = [_Stats() for _ in sites]
            gates = [_Gate(random.Random(seed + 100 + i), think) for i in range(len(sites))]
            players: list[list[_Player]] = []
            for i, http in enumerate(https):
                opened = await _open_tables(
                    http, tables, level, think, random.Random(seed + i), stats[i]
                )
                for player in opened:
                    player.gate = gates[i]
                players.append(opened)
            gc.collect()
            gc.freeze()
            stop = asyncio.Event()
            runs = [
                asyncio.ensure_future(player.run(https[i], stop))
                for i, site_players in enumerate(players)
                for player in site_players
            ]
            seated_by = time.monotonic() + 120
            while (
                any(s.seated < len(p) for s, p in zip(stats, players, strict=True))
                and time.monotonic() < seated_by
            ):
                await asyncio.sleep(0.05)
            for gate in gates:  # each site warms up on its own
                gate.open()
                await asyncio.sleep(warmup)
                gate.shut()
            windows: list[dict[str, Any]] = []
            for n in range(rounds):
                for i in (0, 1) if n % 2 == 0 else (1, 0):
                    other = 1 - i
                    gates[i].open()
                    await asyncio.sleep(settle)
                    cpu, idle = CpuShares(sites[i].process_ids), CpuShares(sites[other].process_ids)
                    cpu.start()
                    idle.start()
                    before, other_sent = len(stats[i].latencies), stats[other].sent
                    stats[i].measuring = True
                    start = time.perf_counter()
                    await asyncio.sleep(seconds)
                    stats[i].measuring = False
                    elapsed = time.perf_counter() - start
                    shares, idle_shares = cpu.shares(), idle.shares()
                    gates[i].shut()
                    lat = sorted(stats[i].latencies[before:])
                    window = _window(n, i, processes[i], lat, elapsed, shares)
                    # the other site, waiting meanwhile: its moves sent (none) and its CPU
                    window["other_site_moves"] = stats[other].sent - other_sent
                    window["other_site_percent"] = round(_site_cpu(idle_shares), 1)
                    windows.append(window)
            stop.set()
            for gate in gates:
                gate.open()  # (a waiting rematch goes on, and sees the stop)
            await asyncio.wait(runs, timeout=30)
    finally:
        if starting:
            await asyncio.wait(starting)
        for site in sites:
            await loop.run_in_executor(None, site.stop)
    return _alternating_figures(windows, processes, tables, seconds, rounds, stats)


def _window(
    n: int, site: int, processes: int, lat: list[float], elapsed: float, shares: dict[str, float]
) -> dict[str, Any]:
    """One measured window of :func:`run_alternating`: round ``n``, ``site`` (0 or 1) playing,
    ``lat`` its moves' answer times (ascending), over ``elapsed`` seconds."""
    moves_per_s = len(lat) / elapsed
    return {
        "round": n,
        "site": site,
        "processes": processes,
        "seconds": round(elapsed, 3),
        "moves": len(lat),
        "moves_per_s": round(moves_per_s, 1),
        "ms_a_move": round(_site_cpu(shares) * 10 / moves_per_s, 3) if lat else None,
        "p50_ms": _ms_at(lat, 0.50),
        "p99_ms": _ms_at(lat, 0.99),
        "cpu_percent": shares,
    }


def _alternating_figures(
    windows: list[dict[str, Any]],
    processes: tuple[int, int],
    tables: int,
    seconds: float,
    rounds: int,
    stats: list[_Stats],
) -> dict[str, Any]:
    """What :func:`run_alternating` returns: each site's CPU a move over all its windows (the
    CPU it took in them over the moves answered in them), their ratio, and each round's."""

    def pooled(site: int) -> float | None:
        mine = [w for w in windows if w["site"] == site]
        moves = sum(w["moves"] for w in mine)
        used = sum(_site_cpu(w["cpu_percent"]) * w["seconds"] for w in mine)  # % of a core × s
        return round(used * 10 / moves, 3) if moves else None

    first, second = pooled(0), pooled(1)
    ratios = []
    for n in range(rounds):
        pair = {w["site"]: w["ms_a_move"] for w in windows if w["round"] == n}
        a, b = pair.get(0), pair.get(1)
        if a and b:
            ratios.append(round(b / a, 3))
    return {
        "processes": list(processes),
        "tables": tables,
        "seconds": seconds,
        "rounds": rounds,
        "ms_a_move": [first, second],
        "ratio": round(second / first, 3) if first and second else None,
        "round_ratios": ratios,
        "median_ratio": statistics.median(ratios) if ratios else None,
        "errors": sum(s.errors for s in stats),
        "windows": windows,
    }


# --- failover: the process serving a game killed again and again ------------------------------


class _Steady:
    """A simulated player who reconnects (and resyncs) by itself whenever its connection
    drops, as the browser does, and keeps what each update showed it."""

    def __init__(self, ws_base: str, table_id: str, token: str, think: float, seed: int) -> None:
        self.url = f"{ws_base}/ws/tables/{table_id}"
        self.token = token
        self.think = think
        self.rng = random.Random(seed)
        self.seen: dict[int, str] = {}  # version -> the event the update showed
        self.version = -1
        self.legal: list[str] = []
        self.session = 0
        #: (session, when) of every update received
        self.updates: list[tuple[int, float]] = []

    async def run(self, stop: asyncio.Event) -> None:
        from websockets.asyncio.client import connect

        while not stop.is_set():
            try:
                async with connect(self.url, open_timeout=10) as ws:
                    self.session += 1
                    await ws.send(json.dumps({"type": "auth", "token": self.token}))
                    await self._session(ws, stop)
            except Exception:
                await asyncio.sleep(0.05)

    async def _session(self, ws: Any, stop: asyncio.Event) -> None:
        sent_for = -1
        stopper = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                receiver = asyncio.ensure_future(ws.recv())
                done, _pending = await asyncio.wait(
                    {receiver, stopper}, return_when=asyncio.FIRST_COMPLETED
                )
                if receiver not in done:
                    receiver.cancel()
                    return
                m = json.loads(receiver.result())
                if m["type"] == "state":
                    self.version, self.legal, sent_for = m["version"], m["legal"], -1
                elif m["type"] == "update":
                    event = m["event"]
                    self.seen[m["version"]] = event["move"] if event["kind"] == "move" else "deal"
                    self.updates.append((self.session, time.monotonic()))
                    if m["version"] != self.version + 1:
                        await ws.send(json.dumps({"type": "resync"}))
                    self.version, self.legal = m["version"], m["legal"]
                if self.legal and sent_for != self.version:
                    sent_for = self.version
                    await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
                    move = _choose(self.legal, self.rng)
                    await ws.send(json.dumps({"type": "move", "move": move, "version": sent_for}))
        finally:
            stopper.cancel()


async def run_failover(kills: int = 20, think_ms: int = 20, seed: int = 0) -> dict[str, Any]:
    """Two processes behind HAProxy on PostgreSQL, one game of two simulated players and a
    bot; ``kills`` times, the process serving the game is killed (SIGKILL) mid-hand, and
    started again once the game goes on. Returns the moves lost (shown to a player but not
    stored at their version) and the seconds from each kill to the next move shown."""
    import psycopg

    from rummy500.bench.cluster import Cluster
    from rummy500.server.storage import Storage

    args = [*_serve_args(2), "--hand-pause", "0", "--call-seconds", "0.3"]
    site = Cluster(processes=2, serve_args=args)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, site.start)
    stop = asyncio.Event()
    resumes: list[float] = []
    runs: list[asyncio.Future[None]] = []

    def owner(table_id: str) -> str:
        with psycopg.connect(site.db_url) as conn:
            row = conn.execute("SELECT owner FROM tables WHERE id = %s", (table_id,)).fetchone()
        return str(row[0] if row else "").split("#")[0]

    try:
        async with _client(site.url) as http:
            made = await http.post(
                "/api/tables",
                json={
                    "seats": [
                        {"kind": "human"},
                        {"kind": "human"},
                        {"kind": "bot", "level": "easy"},
                    ],
                    "name": "Ann",
                    "target": 100_000,
                },
            )
            made.raise_for_status()
            table_id = made.json()["table"]["table_id"]
            joined = await http.post(f"/api/tables/{table_id}/join", json={"name": "Bob"})
            joined.raise_for_status()
        tokens = [made.json()["token"], joined.json()["token"]]
        players = [
            _Steady(site.ws_url, table_id, token, think_ms / 1000, seed + n)
            for n, token in enumerate(tokens)
        ]
        runs = [asyncio.ensure_future(p.run(stop)) for p in players]
        for _kill in range(kills):
            start = max(p.version for p in players)
            while max(p.version for p in players) < start + 6:  # a few moves, mid-hand
                await asyncio.sleep(0.02)
            name = await loop.run_in_executor(None, owner, table_id)
            index = [node.name for node in site.nodes].index(name)
            sessions = [p.session for p in players]
            killed_at = time.monotonic()
            await loop.run_in_executor(None, site.kill, index)
            while True:  # the first move shown on a connection made after the kill
                later = [
                    at
                    for p, before in zip(players, sessions, strict=True)
                    for session, at in p.updates
                    if session > before and at > killed_at
                ]
                if later:
                    resumes.append(min(later) - killed_at)
                    break
                if time.monotonic() - killed_at > 60:
                    raise RuntimeError("the game did not go on within 60 s of a kill")
                await asyncio.sleep(0.01)
            await loop.run_in_executor(None, site.restart, index)
            await loop.run_in_executor(None, site.wait_all_up)
        stop.set()
        await asyncio.wait(runs, timeout=30)
        storage = Storage(site.db_url)
        try:
            events = await loop.run_in_executor(None, storage.events, table_id)
        finally:
            storage.close()
    finally:
        stop.set()
        for run in runs:
            run.cancel()
        await loop.run_in_executor(None, site.stop)
    lost = sum(
        1
        for p in players
        for version, text in p.seen.items()
        if version > len(events) or events[version - 1] != text
    )
    ordered = sorted(resumes)
    return {
        "moves_lost": lost,
        "seconds_to_resume": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 3),
        "kills": kills,
        "median_seconds": round(ordered[len(ordered) // 2], 3),
        "moves": len(events),
        "max_seconds": round(ordered[-1], 3),
    }
