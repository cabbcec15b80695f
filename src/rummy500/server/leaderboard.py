"""The leaderboard of each pool: ``GET /api/leaderboard?pool=2`` and the page ``/leaderboard``.

Settled ratings first, best first, then the provisional ones (docs/accounts.md); a page of at most
:data:`MAX_PAGE` places at a time and :data:`~rummy500.server.ratings.MAX_BOARD` places in all;
the computer levels' ratings beside them, on the same scale.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse

from rummy500.server.ratings import LEVEL_RATINGS, MAX_BOARD, PROVISIONAL_GAMES, leaderboard
from rummy500.server.tables import TableHub

__all__ = ["MAX_PAGE", "router"]

#: Places on one page.
MAX_PAGE = 50

router = APIRouter(tags=["ratings"])


def _hub(request: Request) -> TableHub:
    hub: TableHub = request.app.state.hub
    return hub


Hub = Annotated[TableHub, Depends(_hub)]


@router.get("/api/leaderboard")
async def board(
    hub: Hub,
    pool: Annotated[
        Literal["2", "3-4", "5-8"], Query(description="The pool: 2 players, 3-4 or 5-8.")
    ] = "2",
    offset: Annotated[
        int, Query(ge=0, lt=MAX_BOARD, description="Places to skip (the page's start).")
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="The most places.")] = MAX_PAGE,
) -> dict[str, Any]:
    """A page of a pool's leaderboard: each player's place, rating (with its deviation),
    rated games and whether it is provisional (settled ones first); ``total`` places (at
    most 1000); the computer levels on the same scale."""
    places, total = await hub.db(leaderboard, hub.storage, pool, offset, limit)
    return {
        "pool": pool,
        "places": places,
        "total": total,
        "offset": offset,
        "next_offset": offset + len(places) if offset + len(places) < total else None,
        "provisional_games": PROVISIONAL_GAMES,
        "levels": dict(LEVEL_RATINGS),
    }


@router.get("/leaderboard", include_in_schema=False)
async def board_page(
    pool: Annotated[Literal["2", "3-4", "5-8"], Query()] = "2",
) -> RedirectResponse:
    """The leaderboard's page: the browser game shows it (``/?leaderboard=POOL``)."""
    return RedirectResponse(f"/?leaderboard={pool}", status_code=302)
