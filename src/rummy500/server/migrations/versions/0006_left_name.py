"""Who gave a seat up: the name a seat was left by, kept with the seat.

- ``seats.left_name``: the name of the person who gave the seat up during the game (the
  table, the record and the review name the seat by it while a computer player plays it); it
  goes when someone takes the seat over.
- ``seats.left_account_id``: the account that person was signed in with (no reference, so no
  copy of the table on SQLite), so that deleting the account forgets the name too.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN, on either database: no copy of ``seats``
    op.add_column("seats", sa.Column("left_name", sa.String(100), nullable=True))
    op.add_column("seats", sa.Column("left_account_id", sa.String(32), nullable=True))
    op.create_index("ix_seats_left_account", "seats", ["left_account_id"])


def downgrade() -> None:
    op.drop_index("ix_seats_left_account", "seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("left_account_id")
        batch.drop_column("left_name")
