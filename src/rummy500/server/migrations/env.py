"""Alembic environment of the server's database (run by :meth:`Storage.migrate`)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from rummy500.server.storage import metadata

config = context.config
target_metadata = metadata


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
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
