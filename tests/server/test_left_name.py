"""Who gave a seat up during the game stays with the seat (migration 0006): the table, its
record and its review name the seat as the table did, after the game and after a restart,
until someone takes it over; deleting the account forgets the name."""

from __future__ import annotations

import json

from rummy500.server.storage import Append, SeatRecord, Storage, hash_token
from rummy500.server.views import record_comment

from .test_accounts_storage import key
from .test_storage import new_table as storage_table


def new_table(storage: Storage) -> str:
    seats = [("human", None), ("human", None), ("bot", "easy")]
    return storage_table(storage, seats, names=[None, None, "Nell"]).id


def start(storage: Storage, table: str) -> None:
    assert storage.claim(table, "node", 30)
    assert storage.append([Append(table, 0, ["deal"], "node", status="playing")]) == [True]


def seat(storage: Storage, table: str, number: int) -> SeatRecord:
    return storage.seat_records(table)[number]


def test_a_seat_given_up_in_a_game_keeps_who_left_until_it_is_taken_over(
    storage: Storage,
) -> None:
    table = new_table(storage)
    storage.take_seat(table, "Ann", hash_token("ann"), 0)
    storage.take_seat(table, "Bob", hash_token("bob"), 1)
    start(storage, table)
    assert storage.free_seat(table, hash_token("bob")) == 1
    left = seat(storage, table, 1)
    assert (left.name, left.taken, left.left_name) == (None, False, "Bob")
    assert seat(storage, table, 0).left_name is None
    # the game ends with the computer playing Bob's seat: the record still says Bob
    assert storage.append([Append(table, 1, ["end"], "node", status="finished")]) == [True]
    record = storage.table(table)
    assert record is not None
    names = record_comment(table, record.seats).splitlines()[1]
    assert json.loads(names.removeprefix("names: ")) == ["Ann", "Bob", "Nell"]


def test_whoever_takes_the_seat_over_makes_it_theirs(storage: Storage) -> None:
    table = new_table(storage)
    storage.take_seat(table, "Ann", hash_token("ann"), 0)
    storage.take_seat(table, "Bob", hash_token("bob"), 1)
    start(storage, table)
    storage.free_seat(table, hash_token("bob"))
    storage.take_seat(table, "Cleo", hash_token("cleo"), 1)
    taken = seat(storage, table, 1)
    assert (taken.name, taken.taken, taken.left_name) == ("Cleo", True, None)


def test_a_seat_given_up_before_the_deal_is_just_free(storage: Storage) -> None:
    table = new_table(storage)
    storage.take_seat(table, "Bob", hash_token("bob"), 1)
    assert storage.free_seat(table, hash_token("bob")) == 1
    assert seat(storage, table, 1).left_name is None


def test_deleting_the_account_forgets_the_name_of_a_seat_it_left(storage: Storage) -> None:
    bob = storage.create_account("Bob", "h1", key(1))
    table = new_table(storage)
    storage.take_seat(table, "Ann", hash_token("ann"), 0)
    storage.take_seat(table, "Bob", hash_token("bob"), 1, account_id=bob.id)
    start(storage, table)
    storage.free_seat(table, hash_token("bob"))
    storage.save_record(table, "[a record naming Bob]\n")
    assert seat(storage, table, 1).left_name == "Bob"
    assert storage.delete_account(bob.id)
    assert seat(storage, table, 1).left_name is None
    assert storage.record_text(table) is None  # built again when asked, without the name
