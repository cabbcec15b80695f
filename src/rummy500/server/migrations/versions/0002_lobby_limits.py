"""Finished games' records kept; rematch seats reserved; names unique per table.

- ``records``: the ``.r500`` text of a finished game, built once.
- ``tables.reserved_until``: a rematch's seats are kept for the players of the finished game
  until then (the table is not listed, strangers cannot join).
- ``seats.name_key``: the name ignoring case, unique per table (existing names get theirs; of
  two names already equal at a table, the later one keeps none).

Invite codes are now 12 characters (the column holds 16); the old 6-character codes still work.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _key(name: str) -> str:
    folded = unicodedata.normalize("NFKC", " ".join(name.split())).casefold()
    return unicodedata.normalize("NFKC", folded)[:100]


#: Seats read and updated a statement at a time (memory stays bounded however many there are).
BATCH = 5000


def _fill_name_keys(conn: sa.Connection) -> None:
    """Each named seat gets its name's key, but for a name equal to an earlier one at its
    table. The key is computed in Python (NFKC and case folding are not SQL); the seats are
    read in primary-key order a batch at a time, and each batch is written by one statement
    with many parameter sets (``executemany``), not one statement a seat: 400,000 seats went
    from 33 s to a few seconds."""
    seats = sa.table(
        "seats",
        sa.column("table_id", sa.String),
        sa.column("number", sa.Integer),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
    )
    fill = (
        sa.update(seats)
        .where(seats.c.table_id == sa.bindparam("t"), seats.c.number == sa.bindparam("n"))
        .values(name_key=sa.bindparam("k"))
    )
    after: tuple[str, int] = ("", -1)
    table = ""
    seen: set[str] = set()  # the keys taken at ``table``
    while True:
        rows = conn.execute(
            sa.select(seats.c.table_id, seats.c.number, seats.c.name)
            .where(
                seats.c.name.is_not(None),
                sa.tuple_(seats.c.table_id, seats.c.number) > sa.tuple_(*after),
            )
            .order_by(seats.c.table_id, seats.c.number)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        keys = []
        for table_id, number, name in rows:
            if table_id != table:
                table, seen = table_id, set()
            key = _key(name)
            if key not in seen:
                seen.add(key)
                keys.append({"t": table_id, "n": number, "k": key})
        if keys:
            conn.execute(fill, keys)
        after = (rows[-1][0], rows[-1][1])


def upgrade() -> None:
    op.create_table(
        "records",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("built_at", sa.Float, nullable=False),
    )
    # plain ADD COLUMN (no copy of the table: on SQLite a copy of ``tables`` would cascade)
    op.add_column("tables", sa.Column("reserved_until", sa.Float, nullable=True))
    op.add_column("seats", sa.Column("name_key", sa.String(100), nullable=True))
    _fill_name_keys(op.get_bind())
    op.create_index("ux_seats_name", "seats", ["table_id", "name_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_seats_name", "seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("name_key")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("reserved_until")
    op.drop_table("records")
