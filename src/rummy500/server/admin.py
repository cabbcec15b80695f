"""``rummy500 admin``: an operator's commands on the server's database (docs/accounts.md):
the reports players filed, banning an account, wiping chat."""

from __future__ import annotations

import datetime
from typing import Annotated

import typer

from rummy500.i18n import N_, _

__all__ = ["register_admin"]

admin_app = typer.Typer(
    help=N_("Moderation: reports, bans, chat (on the server's database)."),
    no_args_is_help=True,
)

Db = Annotated[
    str | None,
    typer.Option(help=N_("Database URL (the server's default: SQLite in the user data folder).")),
]


def register_admin(app: typer.Typer) -> None:
    app.add_typer(admin_app, name="admin")


def _storage(db: str | None):  # type: ignore[no-untyped-def]
    from rummy500.server.config import default_db_url
    from rummy500.server.storage import Storage

    storage = Storage(db or default_db_url())
    storage.migrate()
    return storage


def _account(storage, name: str):  # type: ignore[no-untyped-def]
    account = storage.account_by_name(name)
    if account is None:
        typer.echo(_("there is no player called {name}").format(name=name), err=True)
        raise typer.Exit(1)
    return account


def _when(at: float) -> str:
    return datetime.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")


@admin_app.command("reports", help=N_("List the open reports (with --all, the closed too)."))
def reports(
    db: Db = None,
    all_: Annotated[bool, typer.Option("--all", help=N_("Closed reports too."))] = False,
    show: Annotated[
        int | None, typer.Option(help=N_("Print this report with the table's record."))
    ] = None,
    close: Annotated[int | None, typer.Option(help=N_("Close this report (it was read)."))] = None,
) -> None:
    storage = _storage(db)
    try:
        if close is not None:
            if not storage.resolve_report(close):
                typer.echo(_("there is no open report {n}").format(n=close), err=True)
                raise typer.Exit(1)
            typer.echo(_("report {n} closed").format(n=close))
            return
        found = storage.reports(open_only=not all_ and show is None, limit=1000)
        if show is not None:
            found = [r for r in found if r.id == show]
            if not found:
                typer.echo(_("there is no report {n}").format(n=show), err=True)
                raise typer.Exit(1)
        if not found:
            typer.echo(_("no open reports"))
        for r in found:
            state = _("closed") if r.resolved_at is not None else _("open")
            typer.echo(
                f"#{r.id} {_when(r.created_at)} [{state}] "
                + _("{reporter} reports {reported}").format(
                    reporter=r.reporter, reported=r.reported
                )
                + (f" ({r.table_id})" if r.table_id else "")
                + f": {r.reason}"
            )
            if show is not None and r.record:
                typer.echo(r.record)
    finally:
        storage.close()


@admin_app.command("ban", help=N_("Ban an account: its sessions end and it cannot sign in."))
def ban(
    name: Annotated[str, typer.Argument(help=N_("The account's username."))],
    db: Db = None,
    lift: Annotated[bool, typer.Option(help=N_("Lift the ban instead."))] = False,
) -> None:
    storage = _storage(db)
    try:
        account = _account(storage, name)
        ended = storage.ban(account.id, not lift)
        if lift:
            typer.echo(_("{name} may sign in again").format(name=account.username))
        else:
            typer.echo(
                _("{name} is banned (sessions ended: {n})").format(name=account.username, n=ended)
            )
    finally:
        storage.close()


@admin_app.command(
    "wipe-chat",
    help=N_(
        "Delete the chat of a table, or every line a player wrote (a table in play shows it "
        "gone within seconds)."
    ),
)
def wipe_chat(
    db: Db = None,
    table: Annotated[str | None, typer.Option(help=N_("The table's id."))] = None,
    player: Annotated[str | None, typer.Option(help=N_("An account's username."))] = None,
) -> None:
    if (table is None) == (player is None):
        typer.echo(_("give --table or --player"), err=True)
        raise typer.Exit(2)
    from rummy500.server.ownership import Notice, notify_processes

    storage = _storage(db)
    try:
        if table is not None:
            n, touched = storage.wipe_chat_tables(table_id=table)
        else:
            assert player is not None
            n, touched = storage.wipe_chat_tables(account_id=_account(storage, player).id)
        # the process that has a table in play shows what the database keeps from now on
        # (PostgreSQL: told now; SQLite's one process looks at the marker every second)
        notify_processes(storage, [Notice("chat", t) for t in touched])
        storage.mark_chat_wiped()
        typer.echo(_("chat lines deleted: {n}").format(n=n))
    finally:
        storage.close()
