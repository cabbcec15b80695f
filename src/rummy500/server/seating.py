"""Who sits at a table, and who plays each seat now: its person, or a computer player.

A computer player stands in for a person who is away longer than the table's ``away_seconds``,
whose seat is not taken yet, or whose turn timer ran out; it gives the seat back as soon as the
person is here again (at the next decision). Nothing is played while no person is connected:
the table waits for its people (spectators do not count; at a table of computer players only,
allowed by ``serve --allow-bot-tables``, anyone watching does).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from rummy500.server.clients import Audience
from rummy500.server.config import ServerConfig
from rummy500.server.storage import SeatRecord, seat_name_key

__all__ = ["COMPUTER_NAMES", "Seating", "computer_names"]

#: The names computer players are given, one each at a table (player-facing data, the same in
#: every language: they are names, not words to translate).
COMPUTER_NAMES = (
    "Ben",
    "Ada",
    "Cleo",
    "Dev",
    "Edith",
    "Felix",
    "Gus",
    "Hana",
    "Iris",
    "Jonas",
    "Kit",
    "Luz",
    "Milo",
    "Nell",
    "Omar",
    "Pia",
    "Ravi",
    "Sol",
    "Tess",
    "Uma",
)


def computer_names(
    kinds: Sequence[str], seed: int, taken: Iterable[str | None] = ()
) -> list[str | None]:
    """The name of each computer seat of a new table (``None`` for a person's seat): drawn
    from :data:`COMPUTER_NAMES` with the table's ``seed`` (the same table gets the same names),
    none twice, none of the ``taken`` names (the creator's, ignoring case)."""
    used = {seat_name_key(n) for n in taken if n}
    pool = [n for n in COMPUTER_NAMES if seat_name_key(n) not in used]
    random.Random(seed).shuffle(pool)
    bots = iter(pool)
    return [next(bots) if kind == "bot" else None for kind in kinds]


class Seating:
    """The seats of one table and when each person was last seen."""

    def __init__(
        self,
        seats: list[SeatRecord],
        audience: Audience,
        config: ServerConfig,
        *,
        away_seconds: float,
        now: float,
    ) -> None:
        self.seats = list(seats)
        self.audience = audience
        self.config = config
        #: how long a person may be away before a computer player stands in (the table's)
        self.away_seconds = away_seconds
        #: computer players only (``serve --allow-bot-tables``): it plays while anyone watches
        self.bot_table = all(s.kind == "bot" for s in self.seats)
        #: when each person's seat was last left without a connection
        self.away_since: dict[int, float] = {s.number: now for s in self.seats if s.kind == "human"}
        #: the seats a person gave up during the game, with their name (while this process
        #: remembers it): a computer player plays them until someone takes the seat over
        self.left_by: dict[int, str | None] = {}

    def names(self) -> list[str]:
        """What each seat is called: the person's or the computer player's name, else ``P1``,
        ``P2``… (a free seat, or a computer seat of a table made before they had names)."""
        return [s.name or s.label for s in self.seats]

    def is_human(self, seat: int) -> bool:
        return self.seats[seat].kind == "human"

    def all_taken(self) -> bool:
        """Whether every person's seat has its person."""
        return all(s.kind == "bot" or s.taken for s in self.seats)

    def ready_to_deal(self, arriving: int | None = None) -> bool:
        """Whether the game may start: every person's seat is taken and its person connected
        (``arriving``: the seat whose connection is being let in now). A table does not deal
        before its people can see the deal (a paired table whose people do not all come in
        time is cancelled: :mod:`~rummy500.server.play`)."""
        if not self.all_taken():
            return False
        return all(
            s.kind != "human" or s.number == arriving or self.connected(s.number)
            for s in self.seats
        )

    def people_here(self) -> bool:
        """Whether the table may play (see the module docstring)."""
        if self.bot_table:
            return self.config.allow_bot_tables and self.audience.anyone_here()
        return self.audience.players_here()

    def connected(self, seat: int) -> bool:
        return self.audience.connected(seat)

    def arrived(self, seat: int) -> None:
        self.away_since.pop(seat, None)

    def left(self, seat: int, now: float) -> None:
        """A connection of ``seat`` closed: its person is away if it was the last one."""
        if not self.audience.of_seat(seat):
            self.away_since[seat] = now

    def vacated(self, seat: int, now: float, name: str | None = None) -> None:
        """The person (``name``) gave the seat up through the lobby."""
        self.away_since[seat] = now
        self.left_by[seat] = name

    def left_seats(self, started: bool) -> dict[int, str | None]:
        """The seats given up during the game, each with the name of who left (kept with the
        seat: ``SeatRecord.left_name``; ``None`` for a seat left before that was stored): a free
        person's seat of a game that has started."""
        if not started:
            return {}
        return {
            s.number: self.left_by.get(s.number) or s.left_name
            for s in self.seats
            if s.kind == "human" and not s.taken
        }

    def reseat(self, seats: list[SeatRecord], now: float) -> None:
        """The seats as the database has them now (someone joined or left)."""
        self.seats = list(seats)
        for s in self.seats:
            if s.kind == "human" and not self.connected(s.number):
                self.away_since.setdefault(s.number, now)
            if s.taken:
                self.left_by.pop(s.number, None)  # someone took the seat over

    def computer_level(self, seat: int, now: float, *, out_of_time: bool = False) -> str | None:
        """The level of the computer player that plays ``seat`` now, or ``None`` (a person does,
        or nobody is here and the table waits). ``out_of_time``: the seat's turn timer ran out
        in this turn."""
        if not self.people_here():
            return None  # nobody is here: the table waits for its people
        return self._computer_level(seat, now, out_of_time)

    def computer_seats(self, now: float, *, out_of_time: int | None = None) -> frozenset[int]:
        """The seats a computer player plays now (:meth:`computer_level`); ``out_of_time``: the
        seat whose turn timer ran out in this turn."""
        if not self.people_here():
            return frozenset()
        return frozenset(
            s
            for s in range(len(self.seats))
            if self._computer_level(s, now, s == out_of_time) is not None
        )

    def _computer_level(self, seat: int, now: float, out_of_time: bool) -> str | None:
        s = self.seats[seat]
        if s.kind == "bot":
            return s.level or "easy"
        takeover = self.config.takeover_level
        if not s.taken or out_of_time:
            return takeover
        if self.connected(seat):
            return None
        since = self.away_since.get(seat)
        if since is not None and now - since >= self.away_seconds:
            return takeover
        return None

    def takeover_at(self, seat: int, now: float) -> float | None:
        """When a computer player will stand in for ``seat``'s away person, if that is still
        to come."""
        if not self.is_human(seat) or self.connected(seat):
            return None
        since = self.away_since.get(seat)
        if since is not None and since + self.away_seconds > now:
            return since + self.away_seconds
        return None
