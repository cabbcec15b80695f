"""Accounts in the database (SQLite and PostgreSQL): made with a first passkey, names unique
ignoring case, sessions that end when revoked or expired, challenges used once, passkeys
bounded, and a deleted account's games kept without its name."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from sqlalchemy import text

from rummy500.server.storage import (
    AccountError,
    Challenge,
    NewPasskey,
    Storage,
    hash_token,
)

from .helpers import RunningServer


def key(n: int) -> NewPasskey:
    return NewPasskey(f"cred-{n}", b"\x01cose" + bytes([n]), 0, ("internal",))


def test_an_account_is_made_with_its_passkey_and_its_name_is_unique_ignoring_case(
    storage: Storage,
) -> None:
    ann = storage.create_account("Ann", "handle-ann", key(1))
    assert storage.account_by_name("ANN") == ann
    assert ann.user_handle == "handle-ann"  # the WebAuthn user handle, stored with it
    assert [k.credential_id for k in storage.passkeys(ann.id)] == ["cred-1"]
    with pytest.raises(AccountError, match="taken"):
        storage.create_account("ann", "handle-2", key(2))
    with pytest.raises(AccountError, match="another account"):
        storage.create_account("Bob", "handle-3", key(1))
    assert storage.account_by_name("Bob") is None
    assert storage.passkey_by_credential("cred-2") is None


def test_sessions_end_when_revoked_and_an_account_keeps_a_bounded_number(
    storage: Storage,
) -> None:
    ann = storage.create_account("Ann", "h1", key(1))
    for n in range(5):
        storage.create_session(ann.id, hash_token(f"s{n}"), 3600, keep=3)
    live = [n for n in range(5) if storage.session_account(hash_token(f"s{n}"))]
    assert live == [2, 3, 4]
    storage.revoke_session(hash_token("s4"))
    assert storage.session_account(hash_token("s4")) is None
    assert storage.revoke_sessions(ann.id) == 2
    assert storage.session_account(hash_token("s3")) is None
    storage.create_session(ann.id, hash_token("old"), -1, keep=3)
    assert storage.session_account(hash_token("old")) is None
    assert storage.expire_sessions() == 1


def test_a_challenge_is_used_once_and_the_table_of_them_is_bounded(storage: Storage) -> None:
    later = time.time() + 60
    assert storage.put_challenge(
        Challenge("c1", "signin", later, creator="a"), most=3, per_creator=2
    )
    assert storage.put_challenge(
        Challenge("c2", "signin", later, creator="a"), most=3, per_creator=2
    )
    assert not storage.put_challenge(
        Challenge("c3", "signin", later, creator="a"), most=3, per_creator=2
    )
    assert storage.put_challenge(
        Challenge("c4", "signin", later, creator="b"), most=3, per_creator=2
    )
    assert not storage.put_challenge(
        Challenge("c5", "signin", later, creator="c"), most=3, per_creator=2
    )
    assert storage.take_challenge("c1", "register") is None  # the wrong purpose spends it
    assert storage.take_challenge("c1", "signin") is None
    found = storage.take_challenge("c2", "signin")
    assert found is not None and found.creator == "a"
    assert storage.take_challenge("c2", "signin") is None
    assert storage.put_challenge(Challenge("old", "signin", time.time() - 1), most=9, per_creator=9)
    assert storage.take_challenge("old", "signin") is None


def test_passkeys_are_bounded_and_the_last_one_stays(storage: Storage) -> None:
    ann = storage.create_account("Ann", "h1", key(1))
    second = storage.add_passkey(ann.id, key(2), most=2)
    with pytest.raises(AccountError, match="at most 2"):
        storage.add_passkey(ann.id, key(3), most=2)
    storage.remove_passkey(ann.id, second.id)
    (only,) = storage.passkeys(ann.id)
    with pytest.raises(AccountError, match="only passkey"):
        storage.remove_passkey(ann.id, only.id)
    assert storage.use_passkey(only.id, 0, 5)
    assert not storage.use_passkey(only.id, 0, 6)  # somebody used it meanwhile
    assert storage.passkeys(ann.id)[0].sign_count == 5


def test_a_deleted_account_leaves_its_games_without_its_name(storage: Storage) -> None:
    ann = storage.create_account("Ann", "h1", key(1))
    storage.create_session(ann.id, hash_token("s"), 3600, keep=3)
    table = storage.create_table(
        seats_spec=[("human", None), ("human", None)],
        rules="target=500",
        seed=1,
        private=False,
        call_seconds=5.0,
        turn_seconds=None,
        away_seconds=30.0,
        hand_pause=3.0,
        max_moves=1000,
    ).id
    storage.take_seat(table, "Ann", hash_token("t1"), 0, account_id=ann.id)
    storage.take_seat(table, "Bea", hash_token("t2"), 1)
    storage.add_chat(table, 0, "Ann", "hello", 0, account_id=ann.id)
    assert storage.delete_account(ann.id)
    assert storage.account(ann.id) is None
    assert storage.session_account(hash_token("s")) is None
    names = [s.name for s in storage.seat_records(table)]
    assert names == [None, "Bea"]
    assert not storage.delete_account(ann.id)


def test_a_chat_line_keeps_the_account_at_its_seat_after_it_leaves(storage: Storage) -> None:
    ann = storage.create_account("Ann", "h1", key(1))
    table = storage.create_table(
        seats_spec=[("human", None), ("human", None), ("human", None)],
        rules="target=500",
        seed=1,
        private=False,
        call_seconds=5.0,
        turn_seconds=None,
        away_seconds=30.0,
        hand_pause=3.0,
        max_moves=1000,
    ).id
    storage.take_seat(table, "Ann", hash_token("t1"), 0, account_id=ann.id)
    storage.take_seat(table, "Bea", hash_token("t2"), 1)
    storage.add_chat(table, 0, "Ann", "hello", 0)  # the live table names only the seat
    storage.add_chat(table, 1, "Bea", "hi", 0)
    storage.add_chat(table, None, "table", "a note", 0)
    assert storage.free_seat(table, hash_token("t1")) == 0
    storage.take_seat(table, "Cy", hash_token("t3"), 0)  # a guest at the seat Ann left
    storage.add_chat(table, 0, "Cy", "mine", 0)
    assert storage.wipe_chat_tables(account_id=ann.id)[0] == 1
    assert [line.text for line in storage.recent_chat(table, 10)] == ["hi", "a note", "mine"]


def test_a_chat_line_names_its_authors_account_wherever_and_after_it_left(
    storage: Storage,
) -> None:
    """What a mute by account matches (docs/accounts.md "Mute, block, report"): the username of
    the account at the seat when the line was written — not of whoever sits there later, never
    a guest's, and no longer once the account is deleted."""
    ann = storage.create_account("Ann", "h1", key(1))

    def new_table() -> str:
        return storage.create_table(
            seats_spec=[("human", None), ("human", None)],
            rules="target=500",
            seed=1,
            private=False,
            call_seconds=5.0,
            turn_seconds=None,
            away_seconds=30.0,
            hand_pause=3.0,
            max_moves=1000,
        ).id

    table, other = new_table(), new_table()
    storage.take_seat(table, "Ann", hash_token("t1"), 0, account_id=ann.id)
    storage.take_seat(table, "Bea", hash_token("t2"), 1)
    said = storage.add_chat(table, 0, "Ann", "hello", 0)
    assert (said.text, said.account) == ("hello", "Ann")
    assert storage.add_chat(table, 1, "Bea", "hi", 0).account is None  # a guest
    assert storage.add_chat(table, None, "table", "a note", 0).account is None
    assert storage.free_seat(table, hash_token("t1")) == 0
    storage.take_seat(table, "Cy", hash_token("t3"), 0)  # a guest at the seat Ann left
    assert storage.add_chat(table, 0, "Cy", "mine", 0).account is None
    storage.take_seat(other, "Ann at another table", hash_token("t4"), 1, account_id=ann.id)
    assert storage.add_chat(other, 1, "Ann at another table", "again", 0).account == "Ann"
    lines = storage.recent_chat(table, 10)
    assert [(line.text, line.account) for line in lines] == [
        ("hello", "Ann"),
        ("hi", None),
        ("a note", None),
        ("mine", None),
    ]
    assert [line.account for line in storage.recent_chat(other, 10)] == ["Ann"]
    assert storage.delete_account(ann.id)
    assert [line.account for line in storage.recent_chat(table, 10)] == [None] * 4


@pytest.mark.asyncio
async def test_a_running_server_deletes_expired_sessions_and_keeps_live_ones(
    start_server: Any,
) -> None:
    """The rows of sessions past their time do not pile up: the server deletes them now and then
    (with the waiting tables it expires), and a live session stays."""
    server: RunningServer = await start_server(unattended_seconds=2.0)
    storage = Storage(server.config.db_url)
    ann = storage.create_account("Ann", "h1", key(1))
    for n in range(3):
        storage.create_session(ann.id, hash_token(f"old{n}"), -1, keep=10)
    storage.create_session(ann.id, hash_token("live"), 3600, keep=10)

    def rows() -> int:
        with storage.engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM sessions")).scalar_one())

    assert rows() == 4
    deadline = time.monotonic() + 30
    while rows() > 1:
        assert time.monotonic() < deadline, "expired sessions are still stored"
        await asyncio.sleep(0.1)
    live = storage.session_account(hash_token("live"))
    assert live is not None and live.id == ann.id
    storage.close()
