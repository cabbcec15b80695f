"""Ratings and quick pairing: each account's rating per pool, its history, the players waiting
to be paired, and which tables are rated.

- ``ratings``: an account's OpenSkill rating (``mu``, ``sigma``) in a pool (``2``, ``3-4``,
  ``5-8``), its rated games and the abandonments still lowering its pairing priority.
- ``rating_history``: each rated game's new rating and change, per account (the profile's
  chart); one row per table and seat.
- ``seekers``: players who pressed "Play now", and the table each was given.
- ``tables.rated``: a rated game (no undo, no hints, no take-over: docs/accounts.md).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-11
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _account(name: str, **kw: object) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.String(32), sa.ForeignKey("accounts.id", ondelete="CASCADE"), **kw)


def upgrade() -> None:
    op.create_table(
        "ratings",
        _account("account_id", primary_key=True),
        sa.Column("pool", sa.String(4), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("strikes", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["pool", "mu"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _account("account_id", nullable=False),
        sa.Column("pool", sa.String(4), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("change", sa.Integer, nullable=False),
        sa.Column("abandoned", sa.Boolean, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_rating_history_account", "rating_history", ["account_id", "pool"])
    op.create_index("ix_rating_history_game", "rating_history", ["table_id", "seat"], unique=True)
    op.create_table(
        "seekers",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        _account("account_id", nullable=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("creator", sa.String(32), nullable=False),
        sa.Column("pool", sa.String(4), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("penalty", sa.Float, nullable=False),
        sa.Column("bots_after", sa.Float, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("paired_at", sa.Float, nullable=True),
        sa.Column("arrived_at", sa.Float, nullable=True),
    )
    op.create_index("ix_seekers_waiting", "seekers", ["table_id", "pool", "created_at"])
    op.create_index("ix_seekers_account", "seekers", ["account_id"])
    op.create_index("ix_seekers_creator", "seekers", ["creator"])
    # a plain ADD COLUMN with a default (no copy of the table, on either database)
    op.add_column(
        "tables", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rated")
    op.drop_index("ix_seekers_creator", "seekers")
    op.drop_index("ix_seekers_account", "seekers")
    op.drop_index("ix_seekers_waiting", "seekers")
    op.drop_table("seekers")
    op.drop_index("ix_rating_history_game", "rating_history")
    op.drop_index("ix_rating_history_account", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_board", "ratings")
    op.drop_table("ratings")
