"""``rummy500 serve`` (``rummy500 cluster`` and ``rummy500 bench server`` are
:mod:`rummy500.bench.commands`).

FastAPI, uvicorn and SQLAlchemy are imported inside the commands, so that the rest of the
command line starts without them.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import typer

from rummy500.i18n import N_, _

__all__ = ["register"]


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add the server's commands to the ``rummy500`` command line."""
    app.command("serve", help=SERVE_HELP)(serve)
    from rummy500.server.admin import register_admin

    register_admin(app)


SERVE_HELP = N_(
    "Run the online table server: lobby over HTTP, tables over WebSocket.\n\n"
    "OpenAPI docs at /docs; tables at /ws/tables/ID (docs/protocol.md). Every table is stored "
    "move by move and resumes after a restart."
)


def serve(
    host: Annotated[str, typer.Option(help=N_("Address to listen on."))] = "127.0.0.1",
    port: Annotated[int, typer.Option(help=N_("Port to listen on."))] = 8500,
    uds: Annotated[
        str | None,
        typer.Option(
            help=N_(
                "Listen on this unix socket instead of --host and --port (for a proxy on the "
                "same machine: only who may open the socket reaches the server)."
            )
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            help=N_(
                "Database URL: sqlite:///PATH or postgresql://USER@HOST/DB "
                "(default: SQLite in the user data directory)."
            )
        ),
    ] = None,
    call_seconds: Annotated[
        float, typer.Option(help=N_("How long a Rummy call window stays open."))
    ] = 5.0,
    turn_seconds: Annotated[
        float, typer.Option(help=N_("Turn timer of new tables in seconds (0: none)."))
    ] = 0.0,
    away_seconds: Annotated[
        float, typer.Option(help=N_("A disconnected player's seat is played by a bot after this."))
    ] = 30.0,
    hand_pause: Annotated[
        float, typer.Option(help=N_("Least seconds between the end of a hand and the next deal."))
    ] = 3.0,
    summary_wait: Annotated[
        float,
        typer.Option(
            help=N_("Most seconds the next deal waits for players to close the hand summary.")
        ),
    ] = 60.0,
    node: Annotated[
        str | None,
        typer.Option(help=N_("Name of this process among those sharing the database.")),
    ] = None,
    rate_limit: Annotated[
        float, typer.Option(help=N_("Messages a second one connection may send (bursts: twice)."))
    ] = 20.0,
    chat_rate: Annotated[
        float,
        typer.Option(min=0, help=N_("Chat lines a second one seat may send (0: no limit).")),
    ] = 1.0,
    chat_burst: Annotated[
        int, typer.Option(min=1, help=N_("Chat lines one seat may send at once above that rate."))
    ] = 5,
    chat_lines: Annotated[
        int,
        typer.Option(min=1, help=N_("Chat lines kept per table (the newest).")),
    ] = 50,
    finished_chat_seconds: Annotated[
        float,
        typer.Option(
            min=0, help=N_("A finished table's chat is deleted this many seconds after the game.")
        ),
    ] = 3600.0,
    bot_processes: Annotated[
        int | None,
        typer.Option(
            min=0,
            show_default=False,
            help=N_(
                "Worker processes for the hard and expert bots (default: one per core; 0: threads)."
            ),
        ),
    ] = None,
    bot_queue: Annotated[
        int,
        typer.Option(
            help=N_(
                "Hard and expert decisions that may wait for a worker; past that a medium "
                "bot decides at once."
            )
        ),
    ] = 32,
    bot_wait: Annotated[
        float,
        typer.Option(
            min=0.0,
            help=N_(
                "Most seconds a hard or expert decision waits for a worker, from the start of "
                "the bot's turn; past that a medium bot decides at once."
            ),
        ),
    ] = 0.5,
    hint_processes: Annotated[
        int,
        typer.Option(
            min=1,
            help=N_(
                "Worker processes for hints, at the lowest CPU priority (one hint at a time "
                "each; more are refused as busy)."
            ),
        ),
    ] = 1,
    hint_seconds: Annotated[
        float,
        typer.Option(
            min=0.01, help=N_("Most seconds a hint's search takes; it then says what it found.")
        ),
    ] = 0.5,
    # LEVEL:key=value,… (repeatable): a level played with other bot options (benchmarks)
    level_options: Annotated[list[str] | None, typer.Option(hidden=True)] = None,
    review_samples: Annotated[
        int,
        typer.Option(help=N_("Sampled deals per decision in a game review (more: slower, surer).")),
    ] = 24,
    review_refine: Annotated[
        int,
        typer.Option(help=N_("Fresh deals on which a review measures a costly move again.")),
    ] = 48,
    review_queue: Annotated[
        int,
        typer.Option(
            help=N_("Game reviews that may wait while one is computed; past that: busy (429).")
        ),
    ] = 2,
    review_decisions: Annotated[
        int,
        typer.Option(
            min=1,
            help=N_(
                "The most decisions a game review judges, the first of the game; the review "
                "says how many more it left out."
            ),
        ),
    ] = 200,
    handover_seconds: Annotated[
        float,
        typer.Option(
            help=N_(
                "PostgreSQL: how long to wait for another process to hand over a table a "
                "client came here for (0: tell the client to reconnect at once)."
            )
        ),
    ] = 3.0,
    handovers_per_minute: Annotated[
        int,
        typer.Option(
            min=0,
            max=60,
            help=N_(
                "PostgreSQL: how many times a minute one table may be handed over between "
                "processes (0: no limit)."
            ),
        ),
    ] = 3,
    allow_seeds: Annotated[
        bool, typer.Option(help=N_("Let a new table ask for its seed (tests, demonstrations)."))
    ] = False,
    log_level: Annotated[str, typer.Option(help=N_("debug, info, warning or error."))] = "info",
    # HTTP lobby and browser limits
    public_url: Annotated[
        str | None,
        typer.Option(
            help=N_(
                "Address players reach the server at (https://cards.example.org): invite "
                "links are built from it, and browsers' WebSockets must come from it."
            )
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            help=N_(
                "Reverse proxy addresses (comma-separated IPs or networks) whose "
                "X-Forwarded-For is believed (default: nobody's)."
            )
        ),
    ] = "",
    tables_per_minute: Annotated[
        int, typer.Option(help=N_("Tables one client address may create a minute (0: no limit)."))
    ] = 10,
    joins_per_minute: Annotated[
        int, typer.Option(help=N_("Seats one client address may take a minute (0: no limit)."))
    ] = 30,
    invites_per_minute: Annotated[
        int, typer.Option(help=N_("Invite codes one address may look up a minute (0: no limit)."))
    ] = 20,
    records_per_minute: Annotated[
        int, typer.Option(help=N_("Game records one address may fetch a minute (0: no limit)."))
    ] = 10,
    reviews_per_minute: Annotated[
        int, typer.Option(help=N_("Game reviews one address may ask for a minute (0: no limit)."))
    ] = 4,
    rematches_per_minute: Annotated[
        int, typer.Option(help=N_("Rematches one address may ask for a minute (0: no limit)."))
    ] = 10,
    api_per_minute: Annotated[
        int, typer.Option(help=N_("Other /api requests of one address a minute (0: no limit)."))
    ] = 1200,
    limit_addresses: Annotated[
        int, typer.Option(help=N_("Client addresses the lobby limits remember at most."))
    ] = 10_000,
    rematch_grace: Annotated[
        float,
        typer.Option(help=N_("Seconds a rematch's seats are kept for the players of the game.")),
    ] = 120.0,
    listed_per_address: Annotated[
        int,
        typer.Option(
            min=0, help=N_("Tables of one client address the open-table list shows (0: all).")
        ),
    ] = 3,
    unattended_seconds: Annotated[
        float,
        typer.Option(
            min=0,
            help=N_(
                "Tables no person has been at for this long are not listed; waiting ones are "
                "deleted (0: never)."
            ),
        ),
    ] = 900.0,
    docs: Annotated[
        bool,
        typer.Option(help=N_("Serve the API docs at /docs (they load swagger-ui from a CDN).")),
    ] = False,
    # Table and connection limits
    allow_bot_tables: Annotated[
        bool,
        typer.Option(
            help=N_(
                "Allow tables of computer players only (demonstrations): they play, paced, "
                "while someone watches."
            )
        ),
    ] = False,
    bot_table_pace: Annotated[
        float, typer.Option(help=N_("Seconds at least between two moves at such a table."))
    ] = 0.5,
    idle_seconds: Annotated[
        float, typer.Option(help=N_("A table nobody is connected to is released after this."))
    ] = 300.0,
    connections_per_address: Annotated[
        int, typer.Option(help=N_("WebSocket connections at once from one client address."))
    ] = 16,
    connections_per_table: Annotated[
        int, typer.Option(help=N_("WebSocket connections at once to one table (spectators too)."))
    ] = 64,
    spectators_per_table: Annotated[
        int,
        typer.Option(
            help=N_(
                "Spectators at once at one table; a seat's player is always let in (a "
                "spectator makes room)."
            )
        ),
    ] = 48,
    outbox_bytes: Annotated[
        int, typer.Option(help=N_("Bytes waiting for one client before it is disconnected."))
    ] = 256 * 1024,
    send_timeout: Annotated[
        float, typer.Option(help=N_("Seconds a message may wait for a client that does not read."))
    ] = 20.0,
    request_timeout: Annotated[
        float,
        typer.Option(help=N_("Seconds an HTTP request's headers and body may take to arrive.")),
    ] = 10.0,
    limit_concurrency: Annotated[
        int, typer.Option(help=N_("Connections and requests at once; more are answered 503."))
    ] = 1000,
    max_undos: Annotated[int, typer.Option(help=N_("Moves a player may take back in a turn."))] = 5,
    socket_send_buffer: Annotated[
        int, typer.Option(help=N_("Kernel send buffer of each connection in bytes (0: automatic)."))
    ] = 64 * 1024,
    session_days: Annotated[
        float, typer.Option(help=N_("Days a signed-in browser stays signed in."))
    ] = 30.0,
    sessions_per_account: Annotated[
        int,
        typer.Option(help=N_("Signed-in browsers one account keeps (a new one ends the oldest).")),
    ] = 10,
    passkeys_per_account: Annotated[
        int, typer.Option(help=N_("Passkeys one account may have."))
    ] = 10,
    max_challenges: Annotated[
        int, typer.Option(help=N_("Passkey requests waiting for an answer, on the whole server."))
    ] = 10_000,
    challenges_per_address: Annotated[
        int, typer.Option(help=N_("Passkey requests waiting for an answer from one address."))
    ] = 20,
    challenge_seconds: Annotated[
        float, typer.Option(help=N_("Seconds a passkey request waits for its answer."))
    ] = 300.0,
    signups_per_minute: Annotated[
        int, typer.Option(help=N_("Sign-ups a minute one client address may begin (0: no limit)."))
    ] = 5,
    signins_per_minute: Annotated[
        int, typer.Option(help=N_("Sign-ins a minute one client address may begin (0: no limit)."))
    ] = 20,
    list_per_account: Annotated[
        int, typer.Option(help=N_("Players one account may mute, and as many it may block."))
    ] = 500,
    reports_per_account: Annotated[
        int, typer.Option(help=N_("Reports one account may have waiting for the operators."))
    ] = 20,
    seeks_per_minute: Annotated[
        int, typer.Option(help=N_("Play now presses a minute one client address may make."))
    ] = 20,
    max_seekers: Annotated[
        int, typer.Option(help=N_("Players waiting to be paired at once, on the whole server."))
    ] = 5000,
    seekers_per_address: Annotated[
        int, typer.Option(help=N_("Players waiting to be paired at once from one address."))
    ] = 4,
    seek_seconds: Annotated[
        float, typer.Option(help=N_("Seconds a waiting player may go without asking (then out)."))
    ] = 20.0,
    connect_seconds: Annotated[
        float,
        typer.Option(
            help=N_(
                "Seconds a paired table's players have to come to it (connect); then it is "
                "cancelled, the no-shows get a strike and the others wait again."
            )
        ),
    ] = 45.0,
    pairing_seconds: Annotated[
        float,
        typer.Option(
            help=N_(
                "Seconds between two pairing rounds while anyone waits"
                " (an idle pairer looks every 30 s)."
            )
        ),
    ] = 1.0,
    rated_turn_seconds: Annotated[
        float, typer.Option(help=N_("The turn timer of rated tables, in seconds."))
    ] = 60.0,
) -> None:
    """The command; its help is SERVE_HELP."""
    import logging
    import os
    import sys

    import uvicorn

    from rummy500.server.app import create_app
    from rummy500.server.config import ServerConfig, default_bot_processes, default_db_url
    from rummy500.server.request_deadlines import AbortingWebSocketProtocol, http_protocol
    from rummy500.server.steady import STARTUP_FAILURE, SteadyServer

    config = ServerConfig(
        db_url=db or default_db_url(),
        session_days=session_days,
        sessions_per_account=sessions_per_account,
        passkeys_per_account=passkeys_per_account,
        max_challenges=max_challenges,
        challenges_per_address=challenges_per_address,
        challenge_seconds=challenge_seconds,
        signups_per_minute=signups_per_minute,
        signins_per_minute=signins_per_minute,
        list_per_account=list_per_account,
        reports_per_account=reports_per_account,
        seeks_per_minute=seeks_per_minute,
        max_seekers=max_seekers,
        seekers_per_address=seekers_per_address,
        seek_seconds=seek_seconds,
        connect_seconds=connect_seconds,
        pairing_seconds=pairing_seconds,
        rated_turn_seconds=rated_turn_seconds,
        call_seconds=call_seconds,
        turn_seconds=turn_seconds or None,
        away_seconds=away_seconds,
        hand_pause=hand_pause,
        summary_wait=summary_wait,
        bot_processes=default_bot_processes() if bot_processes is None else bot_processes,
        bot_queue=bot_queue,
        bot_wait=bot_wait,
        hint_processes=hint_processes,
        hint_seconds=hint_seconds,
        level_options=_level_options(level_options or []),
        review_samples=review_samples,
        review_refine=review_refine,
        review_queue=review_queue,
        review_decisions=review_decisions,
        handover_seconds=handover_seconds,
        handovers_per_minute=handovers_per_minute,
        rate_per_second=rate_limit,
        rate_burst=max(1, int(rate_limit * 2)),
        chat_per_second=chat_rate,
        chat_burst=chat_burst,
        chat_history=chat_lines,
        finished_chat_seconds=finished_chat_seconds,
        allow_seeds=allow_seeds,
        freeze_gc=True,
        public_url=public_url.rstrip("/") if public_url else None,
        forwarded_allow_ips=forwarded_allow_ips.strip(),
        tables_per_minute=tables_per_minute,
        joins_per_minute=joins_per_minute,
        invites_per_minute=invites_per_minute,
        records_per_minute=records_per_minute,
        reviews_per_minute=reviews_per_minute,
        rematches_per_minute=rematches_per_minute,
        api_per_minute=api_per_minute,
        limit_addresses=limit_addresses,
        rematch_grace_seconds=rematch_grace,
        listed_per_address=listed_per_address,
        unattended_seconds=unattended_seconds,
        docs=docs,
        allow_bot_tables=allow_bot_tables,
        bot_table_pace=bot_table_pace,
        idle_seconds=idle_seconds,
        max_connections_per_address=connections_per_address,
        max_connections_per_table=connections_per_table,
        max_spectators_per_table=spectators_per_table,
        max_outbox_bytes=outbox_bytes,
        send_timeout=send_timeout,
        request_seconds=request_timeout,
        limit_concurrency=limit_concurrency,
        max_undos_per_turn=max_undos,
        socket_send_buffer=socket_send_buffer,
    )
    if node:
        config.node = node
    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("uvicorn.access").addFilter(QuietHealthChecks())
    # Quick bots and lobby database calls run in threads: hand them the interpreter sooner than
    # the default 5 ms, or a busy event loop makes each of their short steps wait that long.
    sys.setswitchinterval(0.0005)
    where = config.public_url or address_to_open(host, port)
    if uds and not config.public_url:
        print(
            _("rummy500 server: listening on the unix socket {path}").format(path=uds), flush=True
        )
    else:
        print(_("rummy500 server: open {url}/ in your browser").format(url=where), flush=True)
    served = uvicorn.Config(
        create_app(config),
        host=host,
        port=port,
        uds=uds,
        log_level=log_level.lower(),
        # a request's headers and body within request_seconds (slowloris); connections that
        # do not read are aborted when closed; frames a little over the largest message
        http=http_protocol(config.request_seconds, config.socket_send_buffer),
        ws=AbortingWebSocketProtocol,
        limit_concurrency=config.limit_concurrency,
        timeout_keep_alive=5,
        h11_max_incomplete_event_size=16 * 1024,
        ws_max_size=config.ws_max_bytes,
        ws_max_queue=8,
        ws_per_message_deflate=False,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=5,
        # X-Forwarded-For only from the configured proxies (uvicorn's default trusts loopback).
        proxy_headers=bool(config.forwarded_allow_ips),
        forwarded_allow_ips=config.forwarded_allow_ips or None,
    )
    served.load_app()
    server = SteadyServer(served)  # uvicorn.run's, with its loop woken once a second
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if uds and os.path.exists(uds):
            os.remove(uds)
    if not server.started:
        sys.exit(STARTUP_FAILURE)


class QuietHealthChecks(logging.Filter):
    """Leaves the answered health checks (``GET /api/health``, 200) out of uvicorn's access log:
    a balancer asks every process every few seconds (HAProxy: docs/deploy.md), a line each that
    buried the requests worth reading. A failed check is still logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args  # uvicorn's: (client, method, path and query, HTTP version, status)
        return not (
            isinstance(args, tuple)
            and len(args) == 5
            and args[2] == "/api/health"
            and args[4] == 200
        )


def address_to_open(host: str, port: int) -> str:
    """The address to open in a browser for a server listening on ``host``: ``localhost`` on
    this machine's own address (and on every address), since browsers refuse passkeys at an
    IP address (docs/accounts.md); else the address it listens on."""
    if host in ("0.0.0.0", "::", "127.0.0.1", "::1", "localhost"):
        return f"http://localhost:{port}"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _level_options(texts: list[str]) -> dict[str, dict[str, Any]]:
    """``serve --level-options``, read (``typer.BadParameter`` says what is wrong)."""
    from rummy500.server.bot_pool import level_options

    options: dict[str, dict[str, Any]] = {}
    for text in texts:
        try:
            level, given = level_options(text)
        except (ValueError, TypeError) as e:
            raise typer.BadParameter(str(e), param_hint="--level-options") from None
        options[level] = given
    return options
