"""Accounts: people known across tables, by passkey; their sessions; blocks, mutes, reports.

- ``accounts``: a username (unique ignoring case), the WebAuthn user handle, when it was
  banned (it cannot sign in), the browser's own statistics imported once at sign-up.
- ``passkeys``: an account's WebAuthn credentials (public key, signature counter).
- ``sessions``: signed-in browsers, by the SHA-256 of the cookie's token; revocable.
- ``challenges``: WebAuthn challenges handed out and not used yet (single-use, expiring).
- ``blocks``, ``mutes``: one account's list of others (both ways deleted with either).
- ``reports``: a player reported by another, the table's record attached.
- ``seats.account_id``, ``chat.account_id``: the account a seat was taken (a line written)
  by; an account deleted leaves them ``NULL`` (its games stay, anonymised).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _account(name: str, *, ondelete: str = "CASCADE", **kw: object) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.String(32), sa.ForeignKey("accounts.id", ondelete=ondelete), **kw)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("username_key", sa.String(32), nullable=False, unique=True),
        sa.Column("user_handle", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("banned_at", sa.Float, nullable=True),
        sa.Column("local_stats", sa.Text, nullable=True),
    )
    op.create_table(
        "passkeys",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _account("account_id", nullable=False),
        sa.Column("credential_id", sa.String(1400), nullable=False, unique=True),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False),
        sa.Column("transports", sa.String(200), nullable=True),
        sa.Column("label", sa.String(64), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("used_at", sa.Float, nullable=True),
    )
    op.create_index("ix_passkeys_account", "passkeys", ["account_id"])
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        _account("account_id", nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_account", "sessions", ["account_id", "created_at"])
    op.create_index("ix_sessions_expires", "sessions", ["expires_at"])
    op.create_table(
        "challenges",
        sa.Column("challenge", sa.String(128), primary_key=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        _account("account_id", nullable=True),
        sa.Column("username", sa.String(32), nullable=True),
        sa.Column("user_handle", sa.String(64), nullable=True),
        sa.Column("creator", sa.String(32), nullable=True),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_challenges_expires", "challenges", ["expires_at"])
    for name in ("blocks", "mutes"):
        op.create_table(
            name,
            _account("account_id", primary_key=True),
            _account("other_id", primary_key=True),
            sa.Column("created_at", sa.Float, nullable=False),
        )
        op.create_index(f"ix_{name}_other", name, ["other_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _account("reporter_id", nullable=False),
        _account("reported_id", nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("record", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("resolved_at", sa.Float, nullable=True),
    )
    op.create_index("ix_reports_reporter", "reports", ["reporter_id", "created_at"])
    op.create_index("ix_reports_open", "reports", ["resolved_at", "id"])
    _add_account_column("seats")
    op.create_index("ix_seats_account", "seats", ["account_id"])
    _add_account_column("chat")


def _add_account_column(table: str) -> None:
    """A nullable ``account_id`` referring to ``accounts``. PostgreSQL: a plain ADD COLUMN.
    SQLite adds a reference only by copying the table (batch mode, foreign keys off: see
    ``Storage._alembic``): one ``INSERT … SELECT`` of every row, a few seconds for a million
    seats, once."""
    with op.batch_alter_table(table) as batch:
        batch.add_column(sa.Column("account_id", sa.String(32), nullable=True))
        batch.create_foreign_key(
            f"fk_{table}_account", "accounts", ["account_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    op.drop_index("ix_seats_account", "seats")
    for table in ("chat", "seats"):
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"fk_{table}_account", type_="foreignkey")
            batch.drop_column("account_id")
    op.drop_index("ix_reports_open", "reports")
    op.drop_index("ix_reports_reporter", "reports")
    op.drop_table("reports")
    for name in ("mutes", "blocks"):
        op.drop_index(f"ix_{name}_other", name)
        op.drop_table(name)
    op.drop_index("ix_challenges_expires", "challenges")
    op.drop_table("challenges")
    op.drop_index("ix_sessions_expires", "sessions")
    op.drop_index("ix_sessions_account", "sessions")
    op.drop_table("sessions")
    op.drop_index("ix_passkeys_account", "passkeys")
    op.drop_table("passkeys")
    op.drop_table("accounts")
