"""Players' profiles: ``GET /api/players/NAME`` and the page ``/players/NAME``.

A profile shows an account's games and nothing else: games, wins, hands, the average and best
hand score, by pool (2 players; 3-4; 5-8) and by the computer players' level, and the last
games with links to their replay, record and review. A finished game's numbers come from
replaying it once; they are kept (:data:`SUMMARIES` games, least recently used forgotten first)
since a finished game never changes. A profile counts the account's last :data:`MAX_GAMES`
games at most, so one request replays at most that many.

The ratings (docs/accounts.md) have their place here: :func:`ratings_section`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import FileResponse

from rummy500.bots import LEVEL_NAMES
from rummy500.i18n import _
from rummy500.server.events import rebuild_game
from rummy500.server.ratings import LEVEL_RATINGS, pool_of, ratings_history
from rummy500.server.storage import Account, Storage, TableRecord
from rummy500.server.tables import TableHub

__all__ = ["MAX_GAMES", "GameSummary", "pool_of", "ratings_section", "router"]

#: The most games a profile counts (the account's last ones).
MAX_GAMES = 200
#: The last games a profile lists.
LAST_GAMES = 20
#: Finished games whose numbers a process keeps.
SUMMARIES = 20_000


@dataclass(frozen=True)
class GameSummary:
    """What a finished game says of each seat."""

    totals: tuple[int, ...]
    winner: int | None
    #: each hand's score, by seat
    hands: tuple[tuple[int, ...], ...]


_summaries: OrderedDict[str, GameSummary] = OrderedDict()
_lock = threading.Lock()


def summary(storage: Storage, record: TableRecord) -> GameSummary:
    """A finished game's numbers (kept once computed)."""
    with _lock:
        found = _summaries.get(record.id)
        if found is not None:
            _summaries.move_to_end(record.id)
            return found
    game = rebuild_game(record, storage.events(record.id))
    if game is None:
        made = GameSummary((0,) * record.players, None, ())
    else:
        made = GameSummary(
            tuple(game.totals),
            getattr(game, "winner", None),
            tuple(tuple(r.scores) for r in game.hand_results),
        )
    with _lock:
        _summaries[record.id] = made
        while len(_summaries) > SUMMARIES:
            _summaries.popitem(last=False)
    return made


def _opponents(record: TableRecord) -> str:
    """``people`` for a game with no computer player, else the strongest level at it."""
    levels = [s.level or "easy" for s in record.seats if s.kind == "bot"]
    if not levels:
        return "people"
    order = list(LEVEL_NAMES)
    return max(levels, key=lambda level: order.index(level) if level in order else -1)


class _Tally:
    def __init__(self) -> None:
        self.games = self.wins = self.hands = self.points = 0
        self.best: int | None = None

    def add(self, won: bool, scores: list[int]) -> None:
        self.games += 1
        self.wins += int(won)
        self.hands += len(scores)
        self.points += sum(scores)
        if scores:
            self.best = max(scores) if self.best is None else max(self.best, *scores)

    def json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "wins": self.wins,
            "hands": self.hands,
            "average_hand": round(self.points / self.hands, 1) if self.hands else None,
            "best_hand": self.best,
        }


def profile(storage: Storage, account: Account) -> dict[str, Any]:
    """The profile of an account (in a worker thread: it may replay games)."""
    games = storage.account_games(account.id, MAX_GAMES)
    everything = _Tally()
    pools: dict[str, _Tally] = {}
    levels: dict[str, _Tally] = {}
    last = []
    for n, (record, seat) in enumerate(games):
        done = summary(storage, record)
        scores = [hand[seat] for hand in done.hands if seat < len(hand)]
        won = done.winner == seat
        for tally in (
            everything,
            pools.setdefault(pool_of(record.players), _Tally()),
            levels.setdefault(_opponents(record), _Tally()),
        ):
            tally.add(won, scores)
        if n < LAST_GAMES:
            last.append(
                {
                    "table_id": record.id,
                    "players": record.players,
                    "seat": record.seats[seat].label,
                    "names": [s.name for s in record.seats],
                    "total": done.totals[seat] if seat < len(done.totals) else None,
                    "won": won,
                    "finished_at": record.created_at,
                    "replay": f"/?review={quote(record.id)}&seat={record.seats[seat].label}",
                    "record": f"/api/tables/{quote(record.id)}/record",
                    "review": f"/api/tables/{quote(record.id)}/review",
                }
            )
    return {
        "username": account.username,
        "since": account.created_at,
        "games": everything.json(),
        "by_pool": {pool: t.json() for pool, t in sorted(pools.items())},
        "by_level": {level: t.json() for level, t in sorted(levels.items())},
        "last_games": last,
        "counted": len(games),
        "ratings": ratings_section(storage, account),
    }


def ratings_section(storage: Storage, account: Account) -> dict[str, Any]:
    """The profile's ratings: each pool's rating (``provisional`` for its first games) and its
    history (for the chart), and the computer levels on the same scale (docs/accounts.md)."""
    return {"pools": ratings_history(storage, account.id), "levels": dict(LEVEL_RATINGS)}


def _hub(request: Request) -> TableHub:
    hub: TableHub = request.app.state.hub
    return hub


Hub = Annotated[TableHub, Depends(_hub)]
router = APIRouter(tags=["accounts"])


@router.get("/api/players/{username}")
async def player(username: str, hub: Hub) -> dict[str, Any]:
    """A player's profile: games, wins, hands, the average and best hand score, by pool and
    by computer level, the last games with their replay, record and review; the ratings."""
    account = await hub.db(hub.storage.account_by_name, username[:64])
    if account is None:
        raise HTTPException(404, _("there is no player called {name}").format(name=username[:64]))
    return await hub.db(profile, hub.storage, account)


@router.get("/players/{username}", include_in_schema=False)
async def player_page(username: str, request: Request) -> FileResponse:
    """The profile's page, at its own address: the browser game's page (its scripts and
    styles are addressed from the site's root), which shows the profile of the name in the
    address."""
    page = request.app.state.config.web_dir / "index.html"
    if not page.is_file():
        raise HTTPException(404, _("there is no player called {name}").format(name=username[:64]))
    return FileResponse(page, media_type="text/html")
