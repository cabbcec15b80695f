"""``rummy500 cluster``, ``rummy500 bench server``, ``rummy500 bench failover``, ``rummy500 bench
pairing`` and ``rummy500 bench writer``: a site of several processes to try, the benchmarks that
load a real server from outside, and the cost of the database writer's batches.

Everything they need is imported inside the commands, so that the rest of the command line
starts without it.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from rummy500.i18n import N_, _

__all__ = ["register"]


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    """Add the site and the server benchmarks to the ``rummy500`` command line."""
    app.command("cluster", help=CLUSTER_HELP)(cluster)
    bench_app.command("server", help=BENCH_SERVER_HELP)(bench_server)
    bench_app.command("failover", help=BENCH_FAILOVER_HELP)(bench_failover)
    bench_app.command("pairing", help=BENCH_PAIRING_HELP)(bench_pairing)
    bench_app.command("writer", help=BENCH_WRITER_HELP)(bench_writer)


CLUSTER_HELP = N_(
    "Try a site of several processes on this machine: a throw-away PostgreSQL, PROCESSES server "
    "processes and HAProxy in front of them. Ctrl-C stops them all.\n\n"
    "Needs Debian's postgresql and haproxy packages and the postgres extra. docs/deploy.md shows "
    "the same on several machines."
)


def cluster(
    processes: Annotated[int, typer.Option(min=1, max=16, help=N_("Server processes."))] = 2,
    host: Annotated[str, typer.Option(help=N_("Address HAProxy listens on."))] = "127.0.0.1",
    port: Annotated[int, typer.Option(help=N_("Port HAProxy listens on."))] = 8500,
    public_url: Annotated[
        str | None,
        typer.Option(
            help=N_(
                "Address players reach the site at (https://cards.example.org, through a TLS "
                "proxy in front of HAProxy): given to every server process (passkeys, invite "
                "links) and printed as the address to open."
            )
        ),
    ] = None,
    bot_processes: Annotated[
        int, typer.Option(help=N_("Worker processes for the hard and expert bots, per process."))
    ] = 1,
    folder: Annotated[
        str | None,
        typer.Option(
            help=N_("Folder for the logs and HAProxy's configuration (default: temporary).")
        ),
    ] = None,
) -> None:
    """The command; its help is CLUSTER_HELP."""
    import signal
    import sys
    import threading
    from pathlib import Path

    from rummy500.bench.cluster import Cluster, ClusterError, addresses_to_open

    serve_args = ["--bot-processes", str(bot_processes), "--log-level", "warning"]
    if public_url:
        serve_args += ["--public-url", public_url.rstrip("/")]
    site = Cluster(
        processes=processes,
        host=host,
        port=port,
        folder=Path(folder) if folder else None,
        serve_args=serve_args,
    )
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_args: stop.set())
    try:
        site.start()
    except ClusterError as e:
        print(_("rummy500 cluster: {error}").format(error=e), file=sys.stderr)
        raise typer.Exit(1) from None
    try:
        names = ", ".join(f"{node.name} ({node.socket})" for node in site.nodes)
        print(_("PostgreSQL: {url}").format(url=site.db_url))
        print(_("server processes: {names}").format(names=names))
        print(_("logs: {folder}").format(folder=site.folder))
        where, *others = addresses_to_open(site.host, site.port, public_url)
        print(_("rummy500 cluster: open {url}/ in your browser (Ctrl-C stops it)").format(
            url=where
        ), flush=True)  # fmt: skip
        for url in others:
            print(
                _(
                    "from other devices on your network: {url}/ (passkeys need https there: "
                    "--public-url)"
                ).format(url=url),
                flush=True,
            )
        stop.wait()
    finally:
        site.stop()
    print(_("rummy500 cluster: stopped"), flush=True)


BENCH_SERVER_HELP = N_(
    "Load a real server with simulated players; report moves/s and latency.\n\n"
    "Starts a server process (or, with --processes, PostgreSQL, that many server processes and "
    "HAProxy), opens TABLES tables of two simulated players (WebSocket clients on loopback) and "
    "a bot each, plays for SECONDS, and reports moves per second and the p50/p99 time from "
    "sending a move to receiving its answer."
)


def bench_server(
    tables: Annotated[int, typer.Option(min=1, help=N_("Tables played at once."))] = 200,
    seconds: Annotated[float, typer.Option(min=1.0, help=N_("How long to measure."))] = 30.0,
    think_ms: Annotated[
        int, typer.Option(min=0, help=N_("Mean thinking time of a simulated player per move."))
    ] = 1000,
    level: Annotated[str, typer.Option(help=N_("Level of the bot at each table."))] = "easy",
    warmup: Annotated[
        float, typer.Option(min=0.0, help=N_("Seconds of play before measuring starts."))
    ] = 3.0,
    db: Annotated[
        str | None, typer.Option(help=N_("Database URL (default: SQLite in a temporary folder)."))
    ] = None,
    seed: Annotated[int, typer.Option(help=N_("Seed of the simulated players."))] = 0,
    processes: Annotated[
        int,
        typer.Option(
            min=0,
            max=16,
            help=N_(
                "Server processes behind HAProxy, on a PostgreSQL the benchmark starts "
                "(0: one process on --db, no balancer)."
            ),
        ),
    ] = 0,
    bot_processes: Annotated[
        int | None,
        typer.Option(
            min=0,
            max=64,
            show_default=False,
            help=N_(
                "Worker processes for the hard and expert bots, per process (default: as serve: "
                "one per core)."
            ),
        ),
    ] = None,
    hint_fraction: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help=N_("Fraction of the simulated players who ask for a hint at every decision."),
        ),
    ] = 0.0,
    batch_players: Annotated[
        bool,
        typer.Option(
            help=N_(
                "Run the simulated players as batch work (Linux SCHED_BATCH): woken, they wait "
                "for the servers they measure instead of preempting them."
            ),
        ),
    ] = False,
    batch_helpers: Annotated[
        bool,
        typer.Option(
            help=N_(
                "With --processes, run HAProxy and PostgreSQL as batch work (Linux SCHED_BATCH): "
                "woken, they wait for the server processes instead of preempting them."
            ),
        ),
    ] = False,
    pin_servers: Annotated[
        bool,
        typer.Option(
            help=N_(
                "With --processes, pin each server process (and the search workers and threads "
                "it starts) to a core of its own, in turn (Linux)."
            ),
        ),
    ] = False,
    alternate_with: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=16,
            show_default=False,
            help=N_(
                "With --processes, start a second site of this many processes too, and play "
                "the two in turns, --seconds measured each turn (their CPU a move compared "
                "under the same conditions)."
            ),
        ),
    ] = None,
    rounds: Annotated[
        int, typer.Option(min=1, max=100, help=N_("With --alternate-with: turns of each site."))
    ] = 10,
    json_out: Annotated[bool, typer.Option("--json", help=N_("Print one JSON object."))] = False,
) -> None:
    """The command; its help is BENCH_SERVER_HELP."""
    from rich.console import Console
    from rich.table import Table

    from rummy500.bench.load import HINT_KEYS, JSON_KEYS, run, run_alternating, run_benchmark

    if alternate_with is not None:
        if processes < 1:
            raise typer.BadParameter(
                _("--alternate-with needs --processes (a site of one or more processes)"),
                param_hint="--alternate-with",
            )
        turns = run(
            run_alternating(
                tables=tables,
                seconds=seconds,
                rounds=rounds,
                processes=(processes, alternate_with),
                think_ms=think_ms,
                level=level,
                seed=seed,
                warmup=warmup,
                pin_servers=pin_servers,
            )
        )
        if json_out:
            print(json.dumps(turns))
            return
        _print_turns(turns)
        return
    result = run(
        run_benchmark(
            tables=tables,
            seconds=seconds,
            think_ms=think_ms,
            level=level,
            db_url=db,
            seed=seed,
            warmup=warmup,
            processes=processes,
            bot_processes=bot_processes,
            hint_fraction=hint_fraction,
            batch_players=batch_players,
            batch_helpers=batch_helpers,
            pin_servers=pin_servers,
        )
    )
    if json_out:
        keys = (*JSON_KEYS, *HINT_KEYS) if hint_fraction > 0 else JSON_KEYS
        print(json.dumps({key: result[key] for key in keys}))
        return
    table = Table(title=_("Server benchmark ({n} tables)").format(n=tables))
    table.add_column(_("measure"))
    table.add_column(_("value"), justify="right")
    for key, value in result.items():
        table.add_row(key, str(value))
    Console().print(table)


def _print_turns(turns: dict[str, Any]) -> None:
    """The windows of ``bench server --alternate-with`` and the comparison, as tables."""
    from rich.console import Console
    from rich.table import Table

    first, second = turns["processes"]
    table = Table(
        title=_("Two sites in turns ({a} and {b} processes, {n} tables each)").format(
            a=first, b=second, n=turns["tables"]
        )
    )
    for heading in (
        _("round"),
        _("processes"),
        _("moves/s"),
        _("ms of CPU a move"),
        _("p50 ms"),
        _("p99 ms"),
        _("others %"),
    ):
        table.add_column(heading, justify="right")
    for w in turns["windows"]:
        table.add_row(
            str(w["round"] + 1),
            str(w["processes"]),
            str(w["moves_per_s"]),
            str(w["ms_a_move"]),
            str(w["p50_ms"]),
            str(w["p99_ms"]),
            str(w["cpu_percent"].get("others", "")),
        )
    console = Console()
    console.print(table)
    a, b = turns["ms_a_move"]
    console.print(
        _(
            "CPU a move: {a} ms with {first} processes, {b} ms with {second}: {ratio}x "
            "(median of the rounds: {median}x)"
        ).format(
            a=a,
            b=b,
            first=first,
            second=second,
            ratio=turns["ratio"],
            median=turns["median_ratio"],
        )
    )


BENCH_FAILOVER_HELP = N_(
    "Kill the process serving a game, again and again; report moves lost and resume times.\n\n"
    "Starts PostgreSQL, two server processes and HAProxy, and a game of two simulated players "
    "and a bot through the balancer; KILLS times, SIGKILLs the process that owns the table "
    "mid-hand and starts it again once the game goes on through the other."
)


def bench_failover(
    kills: Annotated[int, typer.Option(min=1, help=N_("How many times to kill a process."))] = 20,
    think_ms: Annotated[
        int, typer.Option(min=0, help=N_("Mean thinking time of a simulated player per move."))
    ] = 20,
    seed: Annotated[int, typer.Option(help=N_("Seed of the simulated players."))] = 0,
    json_out: Annotated[bool, typer.Option("--json", help=N_("Print one JSON object."))] = False,
) -> None:
    """The command; its help is BENCH_FAILOVER_HELP."""
    import asyncio

    from rich.console import Console
    from rich.table import Table

    from rummy500.bench.load import FAILOVER_KEYS, run_failover

    result = asyncio.run(run_failover(kills=kills, think_ms=think_ms, seed=seed))
    if json_out:
        print(json.dumps({key: result[key] for key in FAILOVER_KEYS}))
        return
    table = Table(title=_("Failover benchmark ({n} kills)").format(n=kills))
    table.add_column(_("measure"))
    table.add_column(_("value"), justify="right")
    for key, value in result.items():
        table.add_row(key, str(value))
    Console().print(table)


BENCH_PAIRING_HELP = N_(
    "Quick pairing on a real server: SEEKERS simulated players with ratings press Play now "
    "(rated, 2 players) at RATE a second and ask how it goes until paired; prints how many were "
    "paired, their waits and the rating gaps of their tables (docs/accounts.md)."
)


def bench_pairing(
    seekers: Annotated[int, typer.Option(min=2, help=N_("Simulated players."))] = 2000,
    rate: Annotated[
        float, typer.Option(min=0.01, help=N_("Players arriving a second (on average)."))
    ] = 5.0,
    spread: Annotated[
        float, typer.Option(min=0.0, help=N_("Standard deviation of their ratings, in points."))
    ] = 300.0,
    poll: Annotated[
        float, typer.Option(min=0.05, help=N_("Seconds between two questions of a player."))
    ] = 0.5,
    db: Annotated[
        str | None, typer.Option(help=N_("Database URL (default: SQLite in a temporary folder)."))
    ] = None,
    seed: Annotated[int, typer.Option(help=N_("Seed of the simulated players."))] = 0,
    json_out: Annotated[bool, typer.Option("--json", help=N_("Print one JSON object."))] = False,
) -> None:
    """The command; its help is BENCH_PAIRING_HELP."""
    import asyncio

    from rich.console import Console
    from rich.table import Table

    from rummy500.bench.pairing import JSON_KEYS, run_pairing

    result = asyncio.run(run_pairing(seekers, rate, spread=spread, poll=poll, db_url=db, seed=seed))
    if json_out:
        print(json.dumps({key: result[key] for key in JSON_KEYS} | result))
        return
    table = Table(title=_("Pairing benchmark ({n} players)").format(n=seekers))
    table.add_column(_("measure"))
    table.add_column(_("value"), justify="right")
    for key, value in result.items():
        table.add_row(key, str(value))
    Console().print(table)


BENCH_WRITER_HELP = N_(
    "Time the server's PostgreSQL writer: the CPU a batch of moves costs.\n\n"
    "Starts a throw-away PostgreSQL with TABLES tables and sends BATCHES batches of SIZE moves "
    "(each of another table) as a server process stores them, one after the other; reports "
    "per batch the microseconds of CPU of this process (the driver's side) and of PostgreSQL, "
    "and the wall time."
)


def bench_writer(
    size: Annotated[int, typer.Option(min=1, max=500, help=N_("Moves a batch."))] = 1,
    batches: Annotated[int, typer.Option(min=1, help=N_("Batches measured."))] = 3000,
    tables: Annotated[
        int, typer.Option(min=1, help=N_("Tables in the database (the batches go round them)."))
    ] = 600,
    json_out: Annotated[bool, typer.Option("--json", help=N_("Print one JSON object."))] = False,
) -> None:
    """The command; its help is BENCH_WRITER_HELP."""
    from rich.console import Console
    from rich.table import Table

    from rummy500.bench.writer import WRITER_KEYS, run_writer

    result = run_writer(size=size, batches=batches, tables=tables)
    if json_out:
        print(json.dumps({key: result[key] for key in WRITER_KEYS}))
        return
    table = Table(title=_("Writer benchmark ({n} moves a batch)").format(n=size))
    table.add_column(_("measure"))
    table.add_column(_("value"), justify="right")
    for key, value in result.items():
        table.add_row(key, str(value))
    Console().print(table)
