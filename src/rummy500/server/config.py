"""The settings of one server process, and where its database lives by default."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rummy500.bots import LEVELS

__all__ = ["BOT_LEVELS", "LEVEL_HELP", "ServerConfig", "default_bot_processes", "default_db_url"]

#: The bot levels a seat can be given: :data:`rummy500.bots.LEVELS`, weakest first.
BOT_LEVELS = tuple(LEVELS)

#: What each level plays like, for players choosing one (translated when shown).
LEVEL_HELP = {name: level.help for name, level in LEVELS.items()}


def default_db_url() -> str:
    """SQLite in the user data directory (``platformdirs``): ``…/rummy500/server.sqlite3``."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir("rummy500", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'server.sqlite3'}"


def _web_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "web"


def default_bot_processes() -> int:
    """One search worker per core this process may run on (``taskset`` and containers'
    CPU sets count), at least one."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class ServerConfig:
    """Everything a server process may be told. Times are in seconds.

    The table settings (``call_seconds``, ``turn_seconds``, ``away_seconds``, ``hand_pause``)
    are the defaults of new tables; a table created with its own values keeps them.
    """

    db_url: str
    #: Name of this process among the processes sharing the database. A table is owned by one
    #: process at a time; a process restarted under the same name takes its tables back at once.
    node: str = field(default_factory=socket.gethostname)
    #: How long a Rummy call window stays open for the players who may call.
    call_seconds: float = 5.0
    #: The turn timer (``None``: no timer): a player who has not finished the turn by then has
    #: it finished by a computer player.
    turn_seconds: float | None = None
    #: A disconnected player's seat is played by a computer player after this long.
    away_seconds: float = 30.0
    #: The least pause between the end of a hand and the next deal.
    hand_pause: float = 3.0
    #: The most the next deal waits for the people whose hand summary is still open (they
    #: close it: ``ready``); then the hand is dealt anyway. At least ``hand_pause``.
    summary_wait: float = 60.0
    #: The computer player that stands in for an away player.
    takeover_level: str = "easy"
    #: A hand is scored as if the stock ran out after this many moves (RULES.md §7).
    max_moves_per_hand: int = 1000
    #: Largest message a client may send, in bytes of UTF-8.
    max_message_bytes: int = 4096
    #: Per connection: messages per second, and the burst allowed above that rate.
    rate_per_second: float = 20.0
    rate_burst: int = 40
    #: Longest chat message, in characters; chat lines kept per table (in the database and in
    #: memory: the newest) and sent on a resync.
    chat_max_chars: int = 300
    chat_history: int = 50
    #: Per seat (whatever its connections): chat lines a second, and the burst allowed above
    #: that rate (0: no limit).
    chat_per_second: float = 1.0
    chat_burst: int = 5
    #: A finished table's chat is removed from the database this long after its game's end.
    finished_chat_seconds: float = 3600.0
    #: Seconds a new connection has to say who it is.
    auth_seconds: float = 10.0
    #: Ownership lease of a table in the database, renewed while the process holds it.
    lease_seconds: float = 30.0
    #: PostgreSQL: a process a client reached for a table another process holds asks that one
    #: to hand it over and waits this long for it (0: never asks; the client is told to
    #: reconnect, ``4409``).
    handover_seconds: float = 3.0
    #: PostgreSQL: a table is handed over at most this many times in any minute (0: no
    #: limit); past that its holder keeps it and the player's connection is told to reconnect
    #: (``4409``). A hand-over closes every connection of the table, so no client can swing a
    #: table between processes. Only a seated player's connection ever asks for one.
    handovers_per_minute: int = 3
    #: A table nobody is connected to is released after this long.
    idle_seconds: float = 300.0
    #: Worker processes for the slow computer players (hard, expert); 0 runs them in threads.
    #: One per core this process may run on by default: their searches, not the server,
    #: use the CPU of a site hosting computer players (docs/server.md, "Capacity").
    bot_processes: int = field(default_factory=default_bot_processes)
    #: Searching decisions that may wait for a worker; past that a quick level decides.
    bot_queue: int = 32
    #: The most seconds a searching decision waits for a worker, counted from the start of
    #: the computer player's turn (or of the call window it answers); past that a quick level
    #: decides at once. A decision that is handed a worker searches in full.
    bot_wait: float = 0.5
    #: Worker processes for hints, apart from the computer players' and at the lowest CPU
    #: priority (``nice`` 19): one hint at a time each, another is refused (``busy``). When the
    #: searching levels run in threads (``bot_processes`` 0), hints run in this many threads.
    hint_processes: int = 1
    #: The most seconds of wall clock a hint's search takes; it then chooses on the sampled
    #: deals it has played out (at least one).
    hint_seconds: float = 0.5
    #: The bot options of levels this server plays otherwise than :data:`rummy500.bots.LEVELS`
    #: says (level -> options over the level's own: ``{"expert": {"samples": 8}}``; ``serve
    #: --level-options expert:samples=8``, for benchmarks of other settings). Tables still
    #: name the level.
    level_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Game review (``GET /api/tables/ID/review``): sampled deals per decision, fresh deals
    #: for a costly move measured again, and the reviews that may wait while one is computed
    #: (one is computed at a time; past that the server answers ``429``).
    review_samples: int = 24
    review_refine: int = 48
    review_queue: int = 2
    #: The most decisions a review judges, the first of the game (a game to 500 has 80 to 170
    #: a seat): the review says how many more it left out. Bounds a review's CPU, whatever the
    #: game (a hand may last 1000 moves).
    review_decisions: int = 200
    #: Move everything alive once the server has started out of the garbage collector's sight
    #: (``gc.freeze``): a full collection then visits only what tables create, not the hundreds
    #: of thousands of objects of the libraries, and stops pausing play for a tenth of a second.
    freeze_gc: bool = False
    #: With ``freeze_gc``, a full collection is considered only after this many collections
    #: of the middle generation (Python's default: 10). The connections, tables and their
    #: tasks are a few hundred thousand objects at 600 tables, and a full collection of them
    #: held the event loop for 175-390 ms, every 10 s or so (the rematches' new connections
    #: grow the old generation by the quarter that triggers one). At 1000, one comes every
    #: quarter of an hour or so at that load; the cycles it frees wait until then (the young
    #: collections free most: some tens of objects a second are left for it).
    full_gc_after: int = 1000
    #: Whether a new table may ask for its seed (tests and demonstrations: a known deal).
    allow_seeds: bool = False
    #: Static files of the browser game, served at ``/`` when the folder exists.
    web_dir: Path = field(default_factory=_web_dir)

    # HTTP lobby and browser limits
    #: The address players reach the server at (``https://cards.example.org``), without a
    #: trailing slash. Links (invites) are built from it, never from the request's ``Host``;
    #: without it links are relative. When set, WebSocket ``Origin`` must match it.
    public_url: str | None = None
    #: Addresses (comma-separated IPs or networks, ``*`` for any) whose ``X-Forwarded-For`` and
    #: ``X-Forwarded-Proto`` are believed: the reverse proxy. Empty: trust nobody.
    forwarded_allow_ips: str = ""
    #: Lobby requests a minute one client address may make, by kind (0: no limit); an IPv6
    #: address counts by its /64. Over the limit: ``429`` with ``Retry-After``.
    tables_per_minute: int = 10
    joins_per_minute: int = 30
    invites_per_minute: int = 20
    records_per_minute: int = 10
    reviews_per_minute: int = 4
    rematches_per_minute: int = 10
    #: Every other request under ``/api``.
    api_per_minute: int = 1200
    #: Client addresses the lobby limits remember (the least recently seen forgotten first).
    limit_addresses: int = 10_000
    #: A rematch's seats are kept for the players of the finished game this long; the table is
    #: not listed and strangers cannot join it meanwhile.
    rematch_grace_seconds: float = 120.0
    #: The open-table list shows at most this many tables of one creator's address (its
    #: newest; the others still play by invite link or code; 0: any number).
    listed_per_address: int = 3
    #: A table no person has been connected to (nor taken a seat at) for this long is not
    #: listed; one still waiting for its players is deleted (0: never). Each process looks
    #: every quarter of it (every minute at most, every half second at least): give it a few
    #: seconds at least.
    unattended_seconds: float = 900.0
    #: Serve the interactive API docs at ``/docs`` (FastAPI's page, which loads swagger-ui from
    #: a CDN). ``/openapi.json`` is always served.
    docs: bool = False
    # Table and connection limits
    #: Whether a table may have computer players only (``serve --allow-bot-tables``: for
    #: demonstrations). Such a table plays only while someone watches it, and its computer
    #: players' moves are at least ``bot_table_pace`` seconds apart.
    allow_bot_tables: bool = False
    bot_table_pace: float = 0.5
    #: WebSocket connections at once from one client address (an IPv6 address by its /64), and
    #: to one table (players and spectators, once they said who they are). Over either: closed
    #: with 4429 / 4430. A seat's token is never refused at a full table: a spectator's
    #: connection (else the oldest of the seat with the most) is closed to make room (4431).
    max_connections_per_address: int = 16
    max_connections_per_table: int = 64
    #: Spectators at once at one table (within ``max_connections_per_table``); more: 4430.
    max_spectators_per_table: int = 48
    #: A client is disconnected (4408) when more than this many bytes wait to be sent to it, or
    #: when a message has waited this long to be written: it does not read. It may reconnect.
    max_outbox_bytes: int = 256 * 1024
    send_timeout: float = 20.0
    #: Largest WebSocket frame or message read at all (bigger: closed with 1009). Messages over
    #: ``max_message_bytes`` but within this are refused and count as strikes.
    ws_max_bytes: int = 8 * 1024
    #: HTTP: a request's headers and body must have arrived within this many seconds of the
    #: connection (or of the previous answer on it); connections and tasks at once, at most
    #: (HTTP requests over it: 503; table WebSockets over it: closed with 1013).
    request_seconds: float = 10.0
    limit_concurrency: int = 1000
    #: The kernel's send buffer of each connection, in bytes (0: the system's automatic one,
    #: which grows to megabytes for a peer that does not read).
    socket_send_buffer: int = 64 * 1024
    #: Moves one player may take back in one turn.
    max_undos_per_turn: int = 5
    # Accounts (docs/accounts.md)
    #: A signed-in browser stays signed in this long (its session then ends).
    session_days: float = 30.0
    #: Sessions an account keeps at once (signed-in browsers): a new one ends the oldest.
    sessions_per_account: int = 10
    #: Passkeys one account may have.
    passkeys_per_account: int = 10
    #: WebAuthn challenges handed out and not yet answered: at most this many at once on the
    #: whole server, and this many of one client address; each is good for
    #: ``challenge_seconds``.
    max_challenges: int = 10_000
    challenges_per_address: int = 20
    challenge_seconds: float = 300.0
    #: Sign-ups and sign-ins a minute one client address may begin (0: no limit).
    signups_per_minute: int = 5
    signins_per_minute: int = 20
    #: Accounts one account may mute, and as many it may block.
    list_per_account: int = 500
    #: Reports one account may have open at once (an operator closes them).
    reports_per_account: int = 20
    # Quick pairing (docs/accounts.md "Pairing")
    #: "Play now" presses a minute one client address may make (0: no limit).
    seeks_per_minute: int = 20
    #: Players waiting to be paired at once: on the whole server, and from one address.
    max_seekers: int = 5000
    seekers_per_address: int = 4
    #: A waiting player who has not asked how it goes for this long left (a closed tab).
    seek_seconds: float = 20.0
    #: A paired table whose people are not all at it (connected: it deals then) within this
    #: long of their pairing is cancelled: the no-shows get a strike, nobody's rating moves,
    #: the others wait again, first in line (docs/accounts.md "Pairing").
    connect_seconds: float = 45.0
    #: How often each process's pairer looks at the queue when nobody wakes it.
    pairing_seconds: float = 1.0
    #: The turn timer of rated tables (a computer player finishes a turn not finished by then).
    rated_turn_seconds: float = 60.0
