"""Quick pairing ("Play now"): players wait in a pool, the server seats them together.

A player chooses a pool (``2`` players, ``3-4``, ``5-8``) and rated or casual, and waits: a row
of ``seekers`` in the database, whose token is the seat's token to be. Every server process
runs a :class:`Pairer`; a round of pairing is one transaction that first takes a PostgreSQL
advisory lock (``pg_try_advisory_xact_lock``: one pairer at a time across the processes, the
others skip the round), reads the waiting rows (``FOR UPDATE SKIP LOCKED``), makes the tables
with their players seated and marks the rows paired. A process killed in the middle of a round
rolls it back: nobody loses their place. A player who starts waiting wakes the pairers of every
process (``NOTIFY`` on the cluster's channel); they also look every ``pairing_seconds`` while
anyone waits or a paired table is pending, and idle, every :data:`IDLE_LOOK_SECONDS`.

Who is paired with whom (as Lichess's pools do): each waiting player accepts ratings within a
window around their own that widens as they wait (:func:`window`); two players are paired when
each is within the other's window, nearest ratings first; a pair who blocked one another never
is. The 3-4 and 5-8 pools make their largest table when enough players are near, a smaller one
once everyone in it waited :data:`GROUP_WAIT` seconds. A casual player may ask for computer
players after a wait of their choosing. Abandonment strikes (:mod:`~rummy500.server.ratings`)
count against the wait: the window opens later.

A waiting player asks ``GET /api/pairing`` (at least every ``seek_seconds``, else they left: a
closed tab). A paired table's people must all come to it (connect: it deals then) within
``connect_seconds``; else the table is cancelled (:func:`cancel_no_show`, by the process that
has the table, which knows who is connected; by the pairing round if no process has it): the
no-shows get a strike, nobody's rating moves, the others wait again in their old place, first
in line (their wait counts from when they began).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import and_, delete, func, insert, or_, select, text, update

from rummy500.engine import Rules, seat_str
from rummy500.i18n import _
from rummy500.server.accounts import CurrentAccount
from rummy500.server.client_messages import normalize_name
from rummy500.server.config import ServerConfig
from rummy500.server.limits import client_address
from rummy500.server.ratings import (
    LEVEL_RATINGS,
    NEW,
    POOLS,
    abandon_deserted,
    add_strike,
    penalty,
    read_rating,
)
from rummy500.server.seating import computer_names
from rummy500.server.storage import (
    Storage,
    blocks,
    creator_key,
    hash_token,
    new_token,
    seat_name_key,
    seekers,
    tables,
)
from rummy500.server.tables import TableHub

__all__ = [
    "GROUP_WAIT",
    "Pairer",
    "Seeker",
    "cancel_no_show",
    "form_tables",
    "pair_round",
    "router",
    "window",
]

log = logging.getLogger("rummy500.server")

#: The seats of each pool's tables: the fewest and the most people.
POOL_SIZES = {"2": (2, 2), "3-4": (3, 4), "5-8": (5, 8)}
#: A casual player who asked for computer players gets a table of this many seats.
BOT_FILL = {"2": 2, "3-4": 4, "5-8": 6}
#: A waiting player's window: ratings this many points either side at first, widening by
#: :data:`WINDOW_GROWTH` points a second of waiting (less their strikes' seconds).
WINDOW_START = 100.0
WINDOW_GROWTH = 40.0
#: The 3-4 and 5-8 pools seat fewer than their most once everyone at the table waited this long.
GROUP_WAIT = 15.0
#: Nearest neighbours (by rating) looked at for each waiting player in a round.
NEIGHBOURS = 8
#: Waiting players read in one round, oldest first (the queue is bounded by ``max_seekers``).
ROUND_LIMIT = 5000
#: The advisory lock key of the pairer (PostgreSQL): one round at a time across processes.
PAIRING_KEY = 0x7275_6D6D_7061_6972  # "rummpair"
#: A paired table nobody came to (no process has it: the process that has a table cancels it
#: at its deadline) is cancelled by a pairing round a quarter of ``connect_seconds`` after its
#: deadline, and at least this many seconds after it.
NO_SHOW_SLACK = 5.0
#: How often, in seconds, a pairer that found nobody waiting and no paired table pending looks
#: anyway (at most: ``pairing_seconds`` if that is longer). Someone who starts waiting wakes
#: it at once (here, or at another process by ``NOTIFY``); this only bounds what a notice lost
#: with the database connection would cost. An idle pairer asks one question of the database
#: this often, where it ran a round (a transaction of several statements) every
#: ``pairing_seconds``: each server process did that every second for nobody.
IDLE_LOOK_SECONDS = 30.0
#: Tests only: seconds a round waits while it holds the lock and its rows (to kill it there).
_STALL = float(os.environ.get("RUMMY500_TEST_PAIRING_STALL", "0") or 0)


@dataclass(frozen=True)
class Seeker:
    """A player waiting to be paired."""

    id: str
    token_hash: str
    account_id: str | None
    name: str
    pool: str
    rated: bool
    rating: float
    penalty: float
    bots_after: float | None
    created_at: float


def window(seeker: Seeker, now: float) -> float:
    """How far from their own rating a waiting player accepts, now."""
    waited = max(0.0, now - seeker.created_at - seeker.penalty)
    return WINDOW_START + WINDOW_GROWTH * waited


def _waited(seeker: Seeker, now: float) -> float:
    return now - seeker.created_at - seeker.penalty


def form_tables(
    waiting: Iterable[Seeker], now: float, blocked: set[frozenset[str]]
) -> list[list[Seeker]]:
    """The tables a round makes of the waiting players (each a list of people; a table of one
    is a casual player's with computer players). Pure: the rules of pairing, testable alone."""
    by_pool: dict[tuple[str, bool], list[Seeker]] = {}
    for s in waiting:
        by_pool.setdefault((s.pool, s.rated), []).append(s)
    made: list[list[Seeker]] = []
    for (pool, _rated), group in by_pool.items():
        group.sort(key=lambda s: (s.rating, s.created_at))
        fewest, most = POOL_SIZES[pool]
        used: set[str] = set()
        for size in range(most, fewest - 1, -1):
            made += _groups(group, size, now, blocked, used, patient=size < most)
        for s in group:  # casual players who asked for computer players, waited enough
            if s.id not in used and s.bots_after is not None and now - s.created_at >= s.bots_after:
                used.add(s.id)
                made.append([s])
    return made


def _fits(members: list[Seeker], now: float, blocked: set[frozenset[str]]) -> bool:
    low, high = members[0].rating, members[-1].rating
    if any(high - low > window(s, now) for s in members):
        return False
    accounts = [s.account_id for s in members if s.account_id is not None]
    if len(set(accounts)) < len(accounts):
        return False  # one account twice (two browsers)
    return not any(
        frozenset((a, b)) in blocked for i, a in enumerate(accounts) for b in accounts[i + 1 :]
    )


def _groups(
    group: list[Seeker],
    size: int,
    now: float,
    blocked: set[frozenset[str]],
    used: set[str],
    *,
    patient: bool,
) -> list[list[Seeker]]:
    """Tables of ``size`` among the players not ``used`` yet, nearest ratings first:
    ``size`` players close in rating order (within :data:`NEIGHBOURS` places)."""
    free = [s for s in group if s.id not in used]
    if patient:
        free = [s for s in free if _waited(s, now) >= GROUP_WAIT]
    candidates: list[tuple[float, list[Seeker]]] = []
    out = []
    if size == 2:
        out = _adjacent_pairs(free, now, blocked)
        used.update(s.id for pair in out for s in pair)
        free = [s for s in free if s.id not in used]
        for i, a in enumerate(free):
            for b in free[i + 1 : i + 1 + NEIGHBOURS]:
                if _fits([a, b], now, blocked):
                    candidates.append((b.rating - a.rating, [a, b]))
    else:
        for i in range(len(free) - size + 1):
            members = free[i : i + size]
            if _fits(members, now, blocked):
                candidates.append((members[-1].rating - members[0].rating, members))
    candidates.sort(key=lambda c: (c[0], min(s.created_at for s in c[1])))
    for _spread, members in candidates:
        if any(s.id in used for s in members):
            continue
        used.update(s.id for s in members)
        out.append(members)
    return out


def _adjacent_pairs(
    free: list[Seeker], now: float, blocked: set[frozenset[str]]
) -> list[list[Seeker]]:
    """The most pairs of neighbours in rating order, with the least total gap among those
    (a dynamic programme over the sorted list: in one dimension the best matching pairs
    neighbours). The players it leaves (a blocked pair of neighbours) are paired greedily."""
    best: list[tuple[int, float]] = [(0, 0.0)] * (len(free) + 1)
    took = [False] * (len(free) + 1)
    for i in range(2, len(free) + 1):
        best[i] = best[i - 1]
        a, b = free[i - 2], free[i - 1]
        if _fits([a, b], now, blocked):
            pairs, gap = best[i - 2]
            with_pair = (pairs + 1, gap + b.rating - a.rating)
            if (with_pair[0], -with_pair[1]) > (best[i][0], -best[i][1]):
                best[i] = with_pair
                took[i] = True
    out = []
    i = len(free)
    while i >= 2:
        if took[i]:
            out.append([free[i - 2], free[i - 1]])
            i -= 2
        else:
            i -= 1
    return out


def _seeker(row: Any) -> Seeker:
    return Seeker(
        id=row["id"],
        token_hash=row["token_hash"],
        account_id=row["account_id"],
        name=row["name"],
        pool=row["pool"],
        rated=bool(row["rated"]),
        rating=float(row["rating"]),
        penalty=float(row["penalty"]),
        bots_after=row["bots_after"],
        created_at=float(row["created_at"]),
    )


class _Raced(Exception):
    """A waiting row changed under the round (SQLite: no row locks): it is rolled back."""


def pair_round(storage: Storage, config: ServerConfig, now: float | None = None) -> list[str]:
    """One round of pairing (in a worker thread): forget the players who left, cancel the
    tables whose players never came, pair the others. Returns the tables made."""
    return _pair(storage, config, now)[0]


def _pair(storage: Storage, config: ServerConfig, now: float | None) -> tuple[list[str], bool]:
    """:func:`pair_round`, and whether ``seekers`` may still have a row after it (someone
    waiting, or a paired table's rows to clear: the next round has work), read in the round's
    own transaction; ``True`` when another process's round held the lock (not known here)."""
    now = time.time() if now is None else now
    try:
        with storage.engine.begin() as conn:
            if not storage.is_sqlite:
                locked = conn.execute(
                    text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": PAIRING_KEY}
                ).scalar()
                if not locked:
                    return [], True  # another process's round is under way
            _forget_gone(conn, config, now)
            _cancel_unattended(conn, config, now)
            query = (
                select(seekers)
                .where(seekers.c.table_id.is_(None))
                .order_by(seekers.c.created_at)
                .limit(ROUND_LIMIT)
            )
            if not storage.is_sqlite:
                query = query.with_for_update(skip_locked=True)
            waiting = [_seeker(r) for r in conn.execute(query).mappings()]
            if len(waiting) < 1:
                return [], _any_seeker(conn)  # (paired tables' rows may be left)
            made = form_tables(waiting, now, _blocked(conn, waiting))
            table_ids = [_seat(storage, conn, config, people, now) for people in made]
            if _STALL and table_ids:
                log.warning(
                    "pairing: stalling %.1f s before committing %d tables", _STALL, len(made)
                )
                time.sleep(_STALL)
            return table_ids, True
    except _Raced:
        return [], True


def _any_seeker(conn: Any) -> bool:
    return conn.execute(select(seekers.c.id).limit(1)).first() is not None


def anyone_pending(storage: Storage) -> bool:
    """Whether ``seekers`` has a row (in a worker thread): someone waiting, or a paired table's
    people whose rows a pairing round is still to clear. No row: a round has nothing to do."""
    with storage.engine.connect() as conn:
        return _any_seeker(conn)


def _forget_gone(conn: Any, config: ServerConfig, now: float) -> None:
    """Players who stopped asking (a closed tab) leave the queue."""
    gone = (
        select(seekers.c.id)
        .where(seekers.c.table_id.is_(None), seekers.c.seen_at < now - config.seek_seconds)
        .limit(1000)
    )
    ids = list(conn.execute(gone).scalars())
    if ids:
        conn.execute(delete(seekers).where(seekers.c.id.in_(ids)))


def cancel_no_show(
    storage: Storage, table_id: str, here: Iterable[int], now: float | None = None
) -> bool:
    """Cancel the paired table ``table_id`` that its people did not all come to in time (in a
    worker thread): the people of the ``here`` seats wait again in their old place, the others
    leave the queue with a strike (:func:`~rummy500.server.ratings.add_strike`: their pairing
    waits longer next time; nobody's rating moves), the table goes. Whether it was still a
    paired table waiting to deal (a second call does nothing)."""
    now = time.time() if now is None else now
    with storage.engine.begin() as conn:
        return _cancel(conn, table_id, set(here), now)


def _cancel(conn: Any, table_id: str, here: set[int], now: float) -> bool:
    gone = conn.execute(delete(tables).where(tables.c.id == table_id, tables.c.status == "waiting"))
    if gone.rowcount != 1:
        return False
    rows = list(conn.execute(select(seekers).where(seekers.c.table_id == table_id)).mappings())
    for row in rows:
        if row["seat"] in here:
            conn.execute(
                update(seekers)
                .where(seekers.c.id == row["id"])
                .values(table_id=None, seat=None, paired_at=None, arrived_at=None, seen_at=now)
            )
        else:
            conn.execute(delete(seekers).where(seekers.c.id == row["id"]))
            if row["account_id"] is not None:
                add_strike(conn, row["account_id"], row["pool"], now)
    log.info("pairing: table %s cancelled (%d of %d came)", table_id, len(here), len(rows))
    return True


def _cancel_unattended(conn: Any, config: ServerConfig, now: float) -> None:
    """Paired tables nobody came to (no process has them: the process that has a paired table
    cancels it at its deadline, knowing who is connected) are cancelled a while after it
    (:data:`NO_SHOW_SLACK`), everyone a no-show. The rows of paired tables
    whose game started have done their work: they go."""
    slack = max(NO_SHOW_SLACK, config.connect_seconds / 4)
    late = conn.execute(
        select(seekers.c.table_id)
        .join(tables, tables.c.id == seekers.c.table_id)
        .where(
            tables.c.status == "waiting",
            seekers.c.paired_at < now - config.connect_seconds - slack,
        )
        .distinct()
        .limit(100)
    ).scalars()
    for table_id in list(late):
        _cancel(conn, table_id, set(), now)
    done = (
        select(seekers.c.id)
        .join(tables, tables.c.id == seekers.c.table_id)
        .where(tables.c.status != "waiting", seekers.c.paired_at < now - config.connect_seconds)
        .limit(1000)
    )
    ids = list(conn.execute(done).scalars())
    if ids:
        conn.execute(delete(seekers).where(seekers.c.id.in_(ids)))
    # rows whose table is gone otherwise (an expired or deleted table): they wait no more
    orphans = (
        select(seekers.c.id)
        .where(
            seekers.c.table_id.is_not(None),
            ~select(tables.c.id).where(tables.c.id == seekers.c.table_id).exists(),
        )
        .limit(1000)
    )
    ids = list(conn.execute(orphans).scalars())
    if ids:
        conn.execute(delete(seekers).where(seekers.c.id.in_(ids)))


def _blocked(conn: Any, waiting: list[Seeker]) -> set[frozenset[str]]:
    ids = sorted({s.account_id for s in waiting if s.account_id is not None})
    pairs: set[frozenset[str]] = set()
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = conn.execute(
            select(blocks.c.account_id, blocks.c.other_id).where(
                or_(blocks.c.account_id.in_(chunk), blocks.c.other_id.in_(chunk))
            )
        ).all()
        pairs.update(frozenset((a, b)) for a, b in rows)
    return pairs


def _bot_level(rating: float) -> str:
    """The computer level whose rating is nearest (never the testing level)."""
    levels = {k: v for k, v in LEVEL_RATINGS.items() if k != "random"}
    return min(levels, key=lambda level: abs(levels[level] - rating))


def _seat(
    storage: Storage, conn: Any, config: ServerConfig, people: list[Seeker], now: float
) -> str:
    """Make the table of ``people`` (seated in a random order), within the round's transaction,
    and mark them paired."""
    people = list(people)
    secrets.SystemRandom().shuffle(people)
    first = people[0]
    seats_spec: list[tuple[str, str | None]] = [("human", None)] * len(people)
    if len(people) == 1:
        level = _bot_level(first.rating)
        seats_spec += [("bot", level)] * (BOT_FILL[first.pool] - 1)
    names: list[str] = []
    for p in people:  # names are unique at a table: a guest's is numbered if taken
        name, n = p.name, 1
        while seat_name_key(name) in {seat_name_key(m) for m in names}:
            n += 1
            name = f"{p.name[:28]} {n}"
        names.append(name)
    seed = secrets.randbits(62)
    record = storage.create_table(
        seats_spec=seats_spec,
        names=computer_names([k for k, _l in seats_spec], seed, taken=names),
        rules=str(Rules()),
        seed=seed,
        private=False,
        call_seconds=config.call_seconds,
        turn_seconds=(config.rated_turn_seconds if first.rated else config.turn_seconds) or None,
        away_seconds=config.away_seconds,
        hand_pause=config.hand_pause,
        max_moves=config.max_moves_per_hand,
        creator=None,
        rated=first.rated,
        seated=[(names[n], p.token_hash, p.account_id) for n, p in enumerate(people)]
        + [None] * (len(seats_spec) - len(people)),
        within=conn,
    )
    for n, p in enumerate(people):
        done = conn.execute(
            update(seekers)
            .where(seekers.c.id == p.id, seekers.c.table_id.is_(None))
            .values(table_id=record.id, seat=n, paired_at=now)
        )
        if done.rowcount != 1:
            raise _Raced
    log.info(
        "pairing: table %s for %d in pool %s (%s)",
        record.id,
        len(people),
        first.pool,
        "rated" if first.rated else "casual",
    )
    return record.id


class Pairer:
    """This process's pairer: a round when woken (someone began to wait, here or at another
    process) and every ``pairing_seconds`` while anyone waits or a paired table is pending; at
    most one round at a time in a process (and, with PostgreSQL, across the processes: the
    advisory lock). Once a round finds the queue empty the pairer is idle: it waits to be woken,
    looking at most every :data:`IDLE_LOOK_SECONDS` whether a row came all the same (one small
    query), so that an idle site's processes do not each run a round a second for nobody."""

    def __init__(self, hub: TableHub) -> None:
        self.hub = hub
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: rounds run and tables made by this process (for ``bench pairing`` and the tests)
        self.rounds = 0
        self.made = 0
        #: whether the last round found nobody waiting and no paired table pending
        self.idle = False

    def start(self) -> None:
        self.hub.on_seek = self.wake
        self.hub.on_no_show = lambda table_id, here: cancel_no_show(
            self.hub.storage, table_id, here
        )
        self._task = asyncio.get_running_loop().create_task(self._run())

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        self.hub.on_seek = None
        self.hub.on_no_show = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        config = self.hub.config
        loop = asyncio.get_running_loop()
        # the deserted rated games are looked for as often as the tables' attendance is
        # written down (tables.py): a game is deserted two of those periods after its grace
        every = max(0.5, min(60.0, config.unattended_seconds / 4))
        sweeping = config.unattended_seconds > 0
        swept = 0.0
        idle = False  # the last round found nobody: wait to be woken
        while True:
            wait = (
                max(IDLE_LOOK_SECONDS, config.pairing_seconds) if idle else config.pairing_seconds
            )
            if sweeping:
                wait = min(wait, max(0.0, swept + every - loop.time()))
            woken = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait)
                woken = True
            self._wake.clear()
            now = loop.time()
            if sweeping and now - swept >= every:
                swept = now
                try:
                    await self.hub.db(abandon_deserted, self.hub.storage, 2 * every)
                except Exception:
                    log.exception("counting the deserted rated games failed")
            try:
                if idle and not woken:
                    if not await self.hub.db(anyone_pending, self.hub.storage):
                        continue  # still nobody: no round
                    idle = False
                made, pending = await self.hub.db(_pair, self.hub.storage, config, None)
                idle = not pending
            except Exception:
                log.exception("a pairing round failed")
                idle = False
                await asyncio.sleep(config.pairing_seconds)
                continue
            self.rounds += 1
            self.made += len(made)
            self.idle = idle


# --- HTTP ----------------------------------------------------------------------------------------

router = APIRouter(prefix="/api", tags=["pairing"])
bearer = HTTPBearer(auto_error=False, description="The token returned when you began to wait.")
Token = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
Pool = Literal["2", "3-4", "5-8"]
assert set(POOLS) == set(POOL_SIZES)


def _hub(request: Request) -> TableHub:
    hub: TableHub = request.app.state.hub
    return hub


Hub = Annotated[TableHub, Depends(_hub)]


class SeekRequest(BaseModel):
    """Wait to be paired: a pool, rated or casual; a guest's name (casual only); after how
    many seconds computer players may fill the table (casual only; none: wait for people)."""

    model_config = ConfigDict(extra="forbid")

    pool: Pool
    rated: bool = False
    name: str | None = Field(None, min_length=1, max_length=32)
    bots_after: float | None = Field(None, ge=5, le=600)

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str | None) -> str | None:
        return None if value is None else normalize_name(value)


async def _seeker_row(hub: TableHub, token: HTTPAuthorizationCredentials | None) -> Any:
    if token is None or not token.credentials:
        raise HTTPException(401, _("this needs your waiting token: Authorization: Bearer <token>"))
    key = hash_token(token.credentials)

    def find() -> Any:
        with hub.storage.engine.connect() as conn:
            return (
                conn.execute(select(seekers).where(seekers.c.token_hash == key)).mappings().first()
            )

    row = await hub.db(find)
    if row is None:
        raise HTTPException(404, _("you are not waiting to be paired: press Play now again"))
    return row


@router.post("/pairing", status_code=201)
async def seek(
    body: SeekRequest, request: Request, hub: Hub, account: CurrentAccount
) -> dict[str, Any]:
    """Wait to be paired ("Play now"). Rated pools are for accounts only; a guest gives a
    name. The answer's ``token`` asks ``GET /api/pairing`` how it goes and becomes the seat's
    token once paired. An account waits once: a new request replaces its last one."""
    config = hub.config
    if body.rated and account is None:
        raise HTTPException(401, _("rated games are for players signed in with an account"))
    if body.rated and body.bots_after is not None:
        raise HTTPException(422, _("a rated game is played by people only"))
    if account is None and body.name is None:
        raise HTTPException(422, _("say what to call you at the table"))
    name = account.username if account is not None else body.name
    assert name is not None
    creator = creator_key(client_address(request.scope))
    token = new_token()
    now = time.time()

    def add() -> str | None:
        with hub.storage.engine.begin() as conn:
            if account is not None:
                conn.execute(
                    delete(seekers).where(
                        seekers.c.account_id == account.id, seekers.c.table_id.is_(None)
                    )
                )
                rating = read_rating(conn, account.id, body.pool)
            else:
                rating = NEW
            waiting = and_(seekers.c.table_id.is_(None))
            total = conn.execute(select(func.count()).where(waiting)).scalar_one()
            if total >= config.max_seekers:
                return _("too many players are waiting to be paired: try again in a minute")
            mine = conn.execute(
                select(func.count()).where(waiting, seekers.c.creator == creator)
            ).scalar_one()
            if 0 < config.seekers_per_address <= mine:
                return _("no more players may wait from your address (at most {n})").format(
                    n=config.seekers_per_address
                )
            conn.execute(
                insert(seekers).values(
                    id=secrets.token_urlsafe(12),
                    token_hash=hash_token(token),
                    account_id=account.id if account is not None else None,
                    name=name,
                    creator=creator,
                    pool=body.pool,
                    rated=body.rated,
                    rating=float(rating.shown),
                    penalty=penalty(rating.strikes),
                    bots_after=body.bots_after,
                    created_at=now,
                    seen_at=now,
                )
            )
        return None

    refused = await hub.db(add)
    if refused is not None:
        raise HTTPException(429, refused)
    await hub.seek_added()
    return {"status": "waiting", "token": token, "pool": body.pool, "rated": body.rated}


@router.get("/pairing")
async def seek_status(token: Token, hub: Hub) -> dict[str, Any]:
    """How the wait goes: ``waiting`` (how long, the rating window now, how many wait in the
    pool) or ``paired`` (the table and seat: connect with the same token). Ask at least every
    ``seek_seconds``, or the wait ends (a closed tab)."""
    row = await _seeker_row(hub, token)
    now = time.time()
    if row["table_id"] is None:

        def seen() -> int:
            with hub.storage.engine.begin() as conn:
                conn.execute(update(seekers).where(seekers.c.id == row["id"]).values(seen_at=now))
                return int(
                    conn.execute(
                        select(func.count()).where(
                            seekers.c.table_id.is_(None),
                            seekers.c.pool == row["pool"],
                            seekers.c.rated == row["rated"],
                        )
                    ).scalar_one()
                )

        count = await hub.db(seen)
        me = _seeker(row)
        return {
            "status": "waiting",
            "pool": me.pool,
            "rated": me.rated,
            "rating": round(me.rating),
            "waited": round(now - me.created_at, 1),
            "window": round(window(me, now)),
            "waiting": count,
        }
    if row["arrived_at"] is None:

        def arrived() -> None:
            with hub.storage.engine.begin() as conn:
                conn.execute(
                    update(seekers).where(seekers.c.id == row["id"]).values(arrived_at=now)
                )

        await hub.db(arrived)
    table_id = row["table_id"]
    return {
        "status": "paired",
        "pool": row["pool"],
        "rated": bool(row["rated"]),
        "table_id": table_id,
        "seat": seat_str(row["seat"]),
        "ws_path": f"/ws/tables/{table_id}",
        "waited": round((row["paired_at"] or now) - row["created_at"], 1),
    }


@router.delete("/pairing")
async def stop_seeking(token: Token, hub: Hub) -> dict[str, str]:
    """Stop waiting. Once paired, leave the table instead (``409``)."""
    row = await _seeker_row(hub, token)

    def remove() -> bool:
        with hub.storage.engine.begin() as conn:
            done = conn.execute(
                delete(seekers).where(seekers.c.id == row["id"], seekers.c.table_id.is_(None))
            )
            return bool(done.rowcount)

    if not await hub.db(remove):
        raise HTTPException(409, _("you are paired already: leave the table instead"))
    return {"status": "left"}


def start(app: Any, hub: TableHub) -> Pairer:
    """Start this process's pairer (the application's lifespan)."""
    pairer = Pairer(hub)
    pairer.start()
    app.state.pairer = pairer
    return pairer
