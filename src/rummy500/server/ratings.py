"""Ratings: one per account and pool, updated by rated games (docs/accounts.md "Ratings").

A rated game (quick pairing's rated pools: standard rules, accounts only, no undo, no hints, no
take-over) updates its players' ratings from the final order of their totals with OpenSkill's
Plackett–Luce model (``openskill``): the model that rates a whole finishing order of 2 to 8
players at once, measured against TrueSkill (``examples/rating_models.py``). A rating is
shown on an Elo-like scale: ``1500 + (mu - 25) x`` :data:`SCALE`, so that for two settled
players 400 points mean odds of ten to one, as on the computer players' ladder
(docs/ladder.md); the computer levels have the ladder's ratings (:data:`LEVEL_RATINGS`).

A player who abandons a rated game (gives the seat up, or is away past the away grace when it
ends) loses: rated last, at once, against the others' ratings then; the others are rated at
the end with the abandoner last. Each abandonment is a *strike* that lowers pairing priority
(:func:`penalty`); each rated game played to the end takes one away.

Every function here is synchronous (the server runs them in worker threads).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import and_, exists, func, insert, select, true, update

from rummy500.server.storage import (
    Storage,
    accounts,
    rating_history,
    ratings,
    seats,
    tables,
)

__all__ = [
    "LEVEL_RATINGS",
    "MODEL",
    "POOLS",
    "PROVISIONAL_GAMES",
    "SCALE",
    "Rating",
    "abandon",
    "abandon_deserted",
    "add_strike",
    "display",
    "leaderboard",
    "penalty",
    "pool_of",
    "rate_game",
    "rating_of",
    "read_rating",
    "table_ratings",
]

#: The pools a game counts in, by its number of players.
POOLS = ("2", "3-4", "5-8")
#: OpenSkill's Plackett–Luce model with its defaults (mu 25, sigma 25/3, beta 25/6).
MODEL = PlackettLuce()
#: Display points per unit of ``mu``: for two players of small ``sigma`` the model's odds of
#: one finishing ahead, ``1 / (1 + exp(-d / (sqrt 2 beta)))``, are Elo's for
#: ``400 / ln 10 x d / (sqrt 2 beta)`` points (about 29.5 points a unit).
SCALE = 400 / (math.sqrt(2) * MODEL.beta * math.log(10))
#: A rating is provisional (shown with ``?``, not on the leaderboard) until this many rated
#: games in its pool.
PROVISIONAL_GAMES = 10
#: The computer levels on the same scale: the ladder's Elo ratings (mean 1500), README's
#: ``rummy500 ladder --games 20 --workers 2 --seed 1``.
LEVEL_RATINGS = {"random": 915, "easy": 1374, "medium": 1633, "expert": 1783, "hard": 1794}
#: Pairing priority: seconds of waiting an abandonment strike costs, and the most strikes
#: counted.
STRIKE_SECONDS = 15.0
MAX_STRIKES = 4
#: The longest leaderboard (places) and the most rows of a profile's history.
MAX_BOARD = 1000
MAX_HISTORY = 200


def pool_of(players: int) -> str:
    """The pool a game of ``players`` counts in: ``2``, ``3-4`` or ``5-8``."""
    return "2" if players == 2 else "3-4" if players <= 4 else "5-8"


def display(mu: float) -> int:
    """A rating as shown (the Elo-like scale)."""
    return round(1500 + (mu - MODEL.mu) * SCALE)


def mu_of(shown: float) -> float:
    """The ``mu`` of a rating as shown."""
    return MODEL.mu + (shown - 1500) / SCALE


def penalty(strikes: int) -> float:
    """Seconds a seeker's wait counts less in pairing, for its abandonment strikes."""
    return STRIKE_SECONDS * min(max(strikes, 0), MAX_STRIKES)


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int
    strikes: int = 0

    @property
    def shown(self) -> int:
        return display(self.mu)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    def json(self) -> dict[str, Any]:
        return {
            "rating": self.shown,
            "deviation": round(self.sigma * SCALE),
            "games": self.games,
            "provisional": self.provisional,
        }


NEW = Rating(MODEL.mu, MODEL.sigma, 0)


def read_rating(conn: Any, account_id: str, pool: str, *, lock: bool = False) -> Rating:
    """An account's rating in a pool, read within the caller's transaction ``conn`` (a new
    player's if it has none); ``lock``: the row is locked until the transaction ends."""
    query = select(ratings).where(ratings.c.account_id == account_id, ratings.c.pool == pool)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).mappings().first()
    if row is None:
        return NEW
    return Rating(row["mu"], row["sigma"], row["games"], row["strikes"])


def rating_of(storage: Storage, account_id: str, pool: str) -> Rating:
    """An account's rating in a pool (a new player's if it has none)."""
    with storage.engine.connect() as conn:
        return read_rating(conn, account_id, pool)


def _save(conn: Any, account_id: str, pool: str, old: Rating, new: Rating, now: float) -> None:
    values = {
        "mu": new.mu,
        "sigma": new.sigma,
        "games": new.games,
        "strikes": new.strikes,
        "updated_at": now,
    }
    if old is NEW:
        conn.execute(insert(ratings).values(account_id=account_id, pool=pool, **values))
    else:
        conn.execute(
            update(ratings)
            .where(ratings.c.account_id == account_id, ratings.c.pool == pool)
            .values(**values)
        )


def add_strike(conn: Any, account_id: str, pool: str, now: float) -> None:
    """One abandonment strike more for an account in a pool (a paired player who never came to
    the table), within the caller's transaction ``conn``; its rating does not move."""
    old = read_rating(conn, account_id, pool, lock=True)
    new = Rating(old.mu, old.sigma, old.games, old.strikes + 1)
    _save(conn, account_id, pool, old, new, now)


def _rated(old: list[Rating], ranks: Sequence[float]) -> list[tuple[float, float]]:
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in old]
    out = MODEL.rate(teams, ranks=list(ranks))
    return [(team[0].mu, team[0].sigma) for team in out]


def _seated_accounts(conn: Any, table_id: str) -> dict[int, str]:
    rows = conn.execute(
        select(seats.c.number, seats.c.account_id).where(
            seats.c.table_id == table_id, seats.c.account_id.is_not(None)
        )
    ).all()
    return {int(n): str(a) for n, a in rows}


def _history(conn: Any, table_id: str) -> dict[int, tuple[int, int, bool]]:
    rows = conn.execute(
        select(
            rating_history.c.seat,
            rating_history.c.rating,
            rating_history.c.change,
            rating_history.c.abandoned,
        ).where(rating_history.c.table_id == table_id)
    ).all()
    return {int(s): (int(r), int(c), bool(a)) for s, r, c, a in rows}


def _write_history(
    conn: Any,
    account_id: str,
    pool: str,
    table_id: str,
    seat: int,
    old: Rating,
    new: Rating,
    abandoned: bool,
    now: float,
) -> None:
    conn.execute(
        insert(rating_history).values(
            account_id=account_id,
            pool=pool,
            table_id=table_id,
            seat=seat,
            rating=new.shown,
            change=new.shown - old.shown,
            abandoned=abandoned,
            at=now,
        )
    )
    # a profile's chart keeps the account's last MAX_HISTORY games of the pool
    keep = (
        select(rating_history.c.id)
        .where(rating_history.c.account_id == account_id, rating_history.c.pool == pool)
        .order_by(rating_history.c.id.desc())
        .offset(MAX_HISTORY)
        .limit(50)
    )
    old_ids = list(conn.execute(keep).scalars())
    if old_ids:
        conn.execute(rating_history.delete().where(rating_history.c.id.in_(old_ids)))


def abandon(storage: Storage, table_id: str, seat: int, now: float | None = None) -> bool:
    """``seat`` abandoned the rated game at ``table_id`` (gave its seat up, or was away past the
    grace at its end): its account is rated last against the others as they are rated now, and
    gets a strike. Once per seat and table; ``False`` if it was already counted (or the table
    is not rated, or the seat no account's)."""
    now = time.time() if now is None else now
    with storage.engine.begin() as conn:
        # the table's row locked (PostgreSQL): a table's abandonments and its rating are
        # counted one at a time, each seeing the others' rows (once per seat)
        table = conn.execute(
            select(tables.c.players, tables.c.rated, tables.c.status)
            .where(tables.c.id == table_id)
            .with_for_update()
        ).first()
        if table is None or not table.rated:
            return False
        if seat in _history(conn, table_id):
            return False
        seated = _seated_accounts(conn, table_id)
        account_id = seated.get(seat)
        if account_id is None:
            return False
        pool = pool_of(table.players)
        others = [a for s, a in sorted(seated.items()) if s != seat]
        mine = read_rating(conn, account_id, pool, lock=True)
        field = [mine, *(read_rating(conn, a, pool) for a in others)]
        ranks: list[float] = [2.0] + [1.0] * len(others)
        mu, sigma = _rated(field, ranks)[0]
        new = Rating(mu, sigma, mine.games + 1, mine.strikes + 1)
        _save(conn, account_id, pool, mine, new, now)
        _write_history(conn, account_id, pool, table_id, seat, mine, new, True, now)
    return True


def abandon_deserted(
    storage: Storage, grace: float, now: float | None = None, limit: int = 50
) -> int:
    """Rated games in play that nobody has been at for their away grace plus ``grace`` seconds
    (``tables.attended_at``, which the processes keep while people are there): each of their
    players abandoned (:func:`abandon`). A game whose players all went away would otherwise
    never end, and never count. At most ``limit`` tables a call; returns the seats counted."""
    now = time.time() if now is None else now
    pending = exists().where(
        seats.c.table_id == tables.c.id,
        seats.c.account_id.is_not(None),
        ~exists().where(
            rating_history.c.table_id == seats.c.table_id, rating_history.c.seat == seats.c.number
        ),
    )
    with storage.engine.connect() as conn:
        deserted = list(
            conn.execute(
                select(tables.c.id)
                .where(
                    tables.c.rated == true(),
                    tables.c.status == "playing",
                    tables.c.attended_at + tables.c.away_seconds < now - grace,
                    pending,
                )
                .limit(limit)
            ).scalars()
        )
        seated = {t: _seated_accounts(conn, t) for t in deserted}
    return sum(abandon(storage, t, seat, now) for t, people in seated.items() for seat in people)


def rate_game(
    storage: Storage,
    table_id: str,
    totals: list[int],
    away: frozenset[int] = frozenset(),
    now: float | None = None,
) -> dict[int, tuple[int, int]]:
    """Rate the finished rated game at ``table_id`` from each seat's final ``totals``: every
    account that played it to the end moves by the model, the abandoners (already rated at
    once, and the ``away`` seats, counted now) ranked last. Returns each seat's new rating and
    change. Idempotent: a game already rated is not rated again."""
    now = time.time() if now is None else now
    with storage.engine.connect() as conn:
        table = conn.execute(
            select(tables.c.players, tables.c.rated).where(tables.c.id == table_id)
        ).first()
    if table is None or not table.rated:
        return {}
    for seat in sorted(away):
        abandon(storage, table_id, seat, now)
    pool = pool_of(table.players)
    with storage.engine.begin() as conn:
        conn.execute(select(tables.c.id).where(tables.c.id == table_id).with_for_update())
        done = _history(conn, table_id)
        seated = _seated_accounts(conn, table_id)
        finishers = {s: a for s, a in seated.items() if s not in done}
        if not finishers:
            return {s: (r, c) for s, (r, c, _a) in done.items()}
        order = sorted(seated)
        old = {s: read_rating(conn, a, pool, lock=s in finishers) for s, a in seated.items()}
        # ranks: 1 for the highest total; the abandoners share the last place
        last = len(totals) + 1
        ranks = [last if s in done else 1 + sum(t > totals[s] for t in totals) for s in order]
        new = dict(zip(order, _rated([old[s] for s in order], ranks), strict=True))
        for s, account_id in finishers.items():
            before = old[s]
            mu, sigma = new[s]
            after = Rating(mu, sigma, before.games + 1, max(0, before.strikes - 1))
            _save(conn, account_id, pool, before, after, now)
            _write_history(conn, account_id, pool, table_id, s, before, after, False, now)
        result = _history(conn, table_id)
    return {s: (r, c) for s, (r, c, _a) in result.items()}


def table_ratings(storage: Storage, table_id: str, players: int) -> dict[int, dict[str, Any]]:
    """A rated table's seats: each account's rating in the table's pool and, once rated, the
    game's change."""
    pool = pool_of(players)
    with storage.engine.connect() as conn:
        seated = _seated_accounts(conn, table_id)
        done = _history(conn, table_id)
        out: dict[int, dict[str, Any]] = {}
        for seat, account_id in seated.items():
            info = read_rating(conn, account_id, pool).json()
            if seat in done:
                rating, change, abandoned = done[seat]
                info |= {"change": change, "abandoned": abandoned}
            out[seat] = info
        for seat, (rating, change, abandoned) in done.items():
            out.setdefault(seat, {"rating": rating, "change": change, "abandoned": abandoned})
    return out


def leaderboard(
    storage: Storage, pool: str, offset: int, limit: int
) -> tuple[list[dict[str, Any]], int]:
    """A page of the pool's leaderboard and how many places it has (at most
    :data:`MAX_BOARD`): the settled ratings best first, then the provisional ones (marked),
    best first; banned accounts left out. Each part is read in the order of the pool's index,
    so a page reads at most ``offset + limit`` rows of each."""
    joined = ratings.join(accounts, accounts.c.id == ratings.c.account_id)
    base = and_(ratings.c.pool == pool, accounts.c.banned_at.is_(None))
    parts = (
        (False, and_(base, ratings.c.games >= PROVISIONAL_GAMES)),
        (True, and_(base, ratings.c.games < PROVISIONAL_GAMES)),
    )
    places: list[dict[str, Any]] = []
    total = 0
    limit = max(0, min(limit, MAX_BOARD - offset))
    with storage.engine.connect() as conn:
        for provisional, where in parts:
            count = conn.execute(
                select(func.count()).select_from(
                    select(ratings.c.account_id)
                    .select_from(joined)
                    .where(where)
                    .limit(MAX_BOARD - total)
                    .subquery()
                )
            ).scalar_one()
            skip = max(0, offset - total)
            want = limit - len(places)
            if want > 0 and skip < count:
                rows = conn.execute(
                    select(accounts.c.username, ratings.c.mu, ratings.c.sigma, ratings.c.games)
                    .select_from(joined)
                    .where(where)
                    .order_by(ratings.c.mu.desc(), accounts.c.username_key)
                    .offset(skip)
                    .limit(min(want, count - skip))
                ).all()
                places += [
                    {
                        "place": total + skip + n + 1,
                        "username": name,
                        "rating": display(mu),
                        "deviation": round(sigma * SCALE),
                        "games": games,
                        "provisional": provisional,
                    }
                    for n, (name, mu, sigma, games) in enumerate(rows)
                ]
            total += int(count)
    return places, total


def ratings_history(storage: Storage, account_id: str) -> dict[str, Any]:
    """An account's rating in each pool it played and its history (for the profile's chart:
    ``[at, rating]`` per rated game, oldest first)."""
    with storage.engine.connect() as conn:
        rows = conn.execute(select(ratings).where(ratings.c.account_id == account_id)).mappings()
        mine = {r["pool"]: Rating(r["mu"], r["sigma"], r["games"], r["strikes"]) for r in rows}
        out: dict[str, Any] = {}
        for pool, rating in mine.items():
            points = conn.execute(
                select(
                    rating_history.c.at,
                    rating_history.c.rating,
                    rating_history.c.change,
                    rating_history.c.table_id,
                    rating_history.c.abandoned,
                )
                .where(rating_history.c.account_id == account_id, rating_history.c.pool == pool)
                .order_by(rating_history.c.id.desc())
                .limit(MAX_HISTORY)
            ).all()
            out[pool] = rating.json() | {
                "history": [
                    {"at": at, "rating": r, "change": c, "table_id": t, "abandoned": bool(a)}
                    for at, r, c, t, a in reversed(points)
                ]
            }
    return out
