"""``rummy500 bench pairing``: simulated players with ratings press "Play now" on a real server.

The benchmark starts ``rummy500 serve`` on its database (SQLite in a temporary folder, or
``--db``), writes ``seekers`` accounts with settled ratings in the 2-player pool (drawn from a
normal distribution, mean 1500, standard deviation ``spread``) and a session for each, then lets
them arrive at ``rate`` a second (a Poisson process): each presses "Play now" (rated, 2 players)
and asks how it goes every ``poll`` seconds, as the browser does, until paired. It reports how
many were paired, their waits (from pressing to seeing the table) and the rating gap of each
table, in the ratings' points (:data:`rummy500.server.ratings.SCALE`: Elo-like, 400 points
odds of ten to one).
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import sys
import tempfile
import time
from typing import Any

from rummy500.bench.cluster import free_port
from rummy500.bench.load import served, wait_ready

__all__ = ["JSON_KEYS", "run_pairing"]

#: The keys ``--json`` prints first.
JSON_KEYS = ("paired", "wait_p50_s", "wait_p99_s", "rating_gap_mean", "rating_gap_p90")


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _accounts(db_url: str, ratings: list[float]) -> list[str]:
    """Accounts with these (settled) ratings in the 2-player pool; their session tokens."""
    from sqlalchemy import insert

    from rummy500.server.ratings import mu_of
    from rummy500.server.storage import (
        Storage,
        accounts,
        hash_token,
        sessions,
        username_key,
    )
    from rummy500.server.storage import ratings as rating_rows

    storage = Storage(db_url)
    storage.migrate()
    now = time.time()
    tokens = [secrets.token_urlsafe(24) for _r in ratings]
    ids = [secrets.token_urlsafe(12) for _r in ratings]
    names = [f"bench{n}_{secrets.token_hex(3)}" for n in range(len(ratings))]
    with storage.engine.begin() as conn:
        conn.execute(
            insert(accounts),
            [
                {
                    "id": i,
                    "username": name,
                    "username_key": username_key(name),
                    "user_handle": secrets.token_hex(16),
                    "created_at": now,
                    "banned_at": None,
                    "local_stats": None,
                }
                for i, name in zip(ids, names, strict=True)
            ],
        )
        conn.execute(
            insert(rating_rows),
            [
                {
                    "account_id": i,
                    "pool": "2",
                    "mu": mu_of(r),
                    "sigma": 2.0,
                    "games": 50,
                    "strikes": 0,
                    "updated_at": now,
                }
                for i, r in zip(ids, ratings, strict=True)
            ],
        )
        conn.execute(
            insert(sessions),
            [
                {
                    "token_hash": hash_token(t),
                    "account_id": i,
                    "created_at": now,
                    "seen_at": now,
                    "expires_at": now + 86_400,
                }
                for i, t in zip(ids, tokens, strict=True)
            ],
        )
    storage.close()
    return tokens


async def _seeker(
    http: Any, session: str, rating: float, poll: float, timeout: float, out: dict[str, Any]
) -> None:
    cookies = {"rummy500_session": session}
    began = time.monotonic()
    r = await http.post(
        "/api/pairing", json={"pool": "2", "rated": True}, headers={"Cookie": _cookie(cookies)}
    )
    if r.status_code != 201:
        out["refused"].append(r.status_code)
        return
    token = r.json()["token"]
    headers = {"Authorization": f"Bearer {token}", "Cookie": _cookie(cookies)}
    while time.monotonic() - began < timeout:
        await asyncio.sleep(poll)
        r = await http.get("/api/pairing", headers=headers)
        if r.status_code != 200:
            out["lost"].append(r.status_code)
            return
        answer = r.json()
        if answer["status"] == "paired":
            out["waits"].append(time.monotonic() - began)
            out["tables"].setdefault(answer["table_id"], []).append(rating)
            return
    out["lost"].append(0)


def _cookie(cookies: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


async def run_pairing(
    seekers: int,
    rate: float,
    *,
    spread: float = 300.0,
    poll: float = 0.5,
    db_url: str | None = None,
    seed: int = 0,
    timeout: float = 120.0,
) -> dict[str, Any]:
    """Start a server, let ``seekers`` rated players arrive at ``rate`` a second, and measure
    how they are paired (the first keys are the ``--json`` output)."""
    import httpx

    rng = random.Random(seed)
    ratings = [rng.gauss(1500.0, spread) for _n in range(seekers)]
    with tempfile.TemporaryDirectory(prefix="rummy500-bench-pairing-") as tmp:
        url = db_url or f"sqlite:///{tmp}/bench.sqlite3"
        tokens = await asyncio.get_running_loop().run_in_executor(None, _accounts, url, ratings)
        port = free_port()
        command = [
            sys.executable, "-m", "rummy500", "serve", "--port", str(port), "--db", url,
            "--node", f"bench-{port}", "--log-level", "warning", "--api-per-minute", "0",
            "--seeks-per-minute", "0", "--seekers-per-address", "0", "--limit-concurrency", "5000",
        ]  # fmt: skip
        out: dict[str, Any] = {"waits": [], "tables": {}, "refused": [], "lost": []}
        with served(command, os.path.join(tmp, "server.log")) as proc:
            limits = httpx.Limits(max_connections=200)
            base = f"http://127.0.0.1:{port}"
            async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
                await wait_ready(http, proc)
                started = time.monotonic()
                tasks = []
                for session, rating in zip(tokens, ratings, strict=True):
                    tasks.append(
                        asyncio.create_task(_seeker(http, session, rating, poll, timeout, out))
                    )
                    await asyncio.sleep(rng.expovariate(rate))
                await asyncio.gather(*tasks)
                elapsed = time.monotonic() - started
    gaps = [max(r) - min(r) for r in out["tables"].values() if len(r) == 2]
    waits: list[float] = out["waits"]
    from rummy500.server.ratings import SCALE

    return {
        "paired": len(waits),
        "wait_p50_s": round(_quantile(waits, 0.5), 2),
        "wait_p99_s": round(_quantile(waits, 0.99), 2),
        "rating_gap_mean": round(sum(gaps) / len(gaps), 1) if gaps else 0.0,
        "rating_gap_p90": round(_quantile(gaps, 0.9), 1),
        "seekers": seekers,
        "rate": rate,
        "rating_spread": spread,
        "tables": len(out["tables"]),
        "refused": len(out["refused"]),
        "not_paired": len(out["lost"]),
        "seconds": round(elapsed, 1),
        "points_per_mu": round(SCALE, 2),
    }
