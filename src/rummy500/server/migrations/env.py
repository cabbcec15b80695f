"""Alembic environment of the server's database (run by :meth:`Storage.migrate` and
:meth:`Storage.downgrade`)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from rummy500.server.storage import metadata

config = context.config
target_metadata = metadata


def _run(connection: Connection) -> None:
    if (
        connection.dialect.name == "sqlite"
        and connection.exec_driver_sql("PRAGMA foreign_keys").scalar()
    ):
        # A migration that copies a table (batch mode) would drop the old one, and with
        # foreign keys on that deletes every row referring to it (ON DELETE CASCADE).
        raise RuntimeError(
            "SQLite migrations run with foreign keys off (PRAGMA foreign_keys=OFF outside the "
            "transaction, as Storage.migrate and Storage.downgrade do): with them on, copying "
            "a table would delete every row that refers to it"
        )
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
        with engine.begin() as conn:
            _run(conn)
