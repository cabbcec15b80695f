"""Tables, seats, events (moves and deals) and chat.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("invite_code", sa.String(16), nullable=False, unique=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rules", sa.String(200), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("call_seconds", sa.Float, nullable=False),
        sa.Column("turn_seconds", sa.Float, nullable=True),
        sa.Column("away_seconds", sa.Float, nullable=False),
        sa.Column("hand_pause", sa.Float, nullable=False),
        sa.Column("max_moves", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("owner", sa.String(100), nullable=True),
        sa.Column("lease_until", sa.Float, nullable=True),
        sa.Column("rematch_of", sa.String(32), nullable=True),
        sa.Column("rematch_id", sa.String(32), nullable=True),
    )
    op.create_index("ix_tables_listing", "tables", ["status", "private", "created_at"])
    op.create_table(
        "seats",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(16), nullable=True),
        sa.Column("name", sa.String(100), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("joined_at", sa.Float, nullable=True),
    )
    op.create_table(
        "events",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("text", sa.String(300), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_chat_table", "chat", ["table_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_chat_table", "chat")
    op.drop_table("chat")
    op.drop_table("events")
    op.drop_table("seats")
    op.drop_index("ix_tables_listing", "tables")
    op.drop_table("tables")
