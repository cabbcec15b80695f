"""The open-table list: whose tables they are, and when a person was last at them.

- ``tables.creator``: the creating client's address, hashed; the list shows a few tables of
  each (``--listed-per-address``).
- ``tables.attended_at``: when a person was last connected to the table (or took a seat);
  tables unattended for ``--unattended-seconds`` are not listed, and waiting ones are deleted.
  Existing tables get their ``updated_at`` (one statement).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN: no copy of ``tables``
    op.add_column("tables", sa.Column("creator", sa.String(32), nullable=True))
    op.add_column("tables", sa.Column("attended_at", sa.Float, nullable=True))
    tables = sa.table("tables", sa.column("updated_at", sa.Float), sa.column("attended_at"))
    op.execute(sa.update(tables).values(attended_at=tables.c.updated_at))
    op.create_index("ix_tables_attended", "tables", ["status", "attended_at"])


def downgrade() -> None:
    op.drop_index("ix_tables_attended", "tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("attended_at")
        batch.drop_column("creator")
