"""``rummy500 bench writer``: what a batch of moves costs the server's PostgreSQL writer.

A server process stores its moves in batches (:class:`~rummy500.server.events.EventWriter`):
the moves waiting when a batch starts go into one statement, sent from the event loop
(:meth:`~rummy500.server.storage.Storage.append_async`). The less busy a process, the smaller
its batches: the two processes of a site each send more, smaller batches than one process
serving the same moves, so what a batch costs, and how that grows with its size, is part of
what a second process adds (``docs/server.md``, "CPU per move, one process against two").

This benchmark sends ``batches`` batches of ``size`` moves (each of another table, going round
``tables`` tables: the plan PostgreSQL keeps for the statement must hold with many of them),
one after the other from one event loop as the writer does, to a throw-away PostgreSQL it starts
(:class:`~rummy500.bench.cluster.Cluster`), and reports per batch the CPU time of this process
(the driver's side: what a server's event loop spends on it), of PostgreSQL (all of its
processes: the writer's session, and the WAL writer and the others that work for it), and
the wall time.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WRITER_KEYS", "run_writer"]

#: The keys of ``rummy500 bench writer --json``.
WRITER_KEYS = ("size", "batches", "tables", "client_us", "postgres_us", "wall_us")

#: Who writes the benchmark's moves (the tables' owner in the database).
NODE = "bench-writer"
#: The tables' rules as stored (the default rules; nothing here reads them).
RULES = "jokers=on values=standard pickup=top-free rummy=pile going-out=any win=highest target=500"


def run_writer(
    size: int = 1, batches: int = 3000, tables: int = 600, warmup: int = 200
) -> dict[str, Any]:
    """Start PostgreSQL, make ``tables`` tables (at least ``2 * size``), send ``warmup``
    batches, then measure ``batches`` batches of ``size`` moves; PostgreSQL is stopped at the
    end."""
    from rummy500.bench.cluster import Cluster

    site = Cluster(processes=1)
    try:
        url = site.start_database()
        return _measure(url, site, size, batches, max(tables, 2 * size), warmup)
    finally:
        site.stop()


def _measure(
    url: str, site: Any, size: int, batches: int, tables: int, warmup: int
) -> dict[str, Any]:
    import time

    from rummy500.bench.load import CpuShares, run
    from rummy500.server.storage import Append, Storage

    storage = Storage(url)
    storage.migrate()
    ids = []
    for _n in range(tables):
        table = storage.create_table(
            seats_spec=[("human", None), ("bot", "easy")],
            rules=RULES,
            seed=1,
            private=True,
            call_seconds=5.0,
            turn_seconds=None,
            away_seconds=30.0,
            hand_pause=3.0,
            max_moves=1000,
        )
        storage.claim(table.id, NODE, 3600.0)
        ids.append(table.id)
    versions = dict.fromkeys(ids, 0)

    async def send(n: int) -> None:
        chosen = [ids[(n * size + k) % len(ids)] for k in range(size)]
        items = [Append(i, versions[i], ["deal" if versions[i] == 0 else "P1 draw"], NODE)
                 for i in chosen]  # fmt: skip
        stored = await storage.append_async(items)
        if not all(stored):
            raise RuntimeError(f"a batch was refused: {stored}")
        for i in chosen:
            versions[i] += 1

    async def main() -> tuple[float, dict[str, float]]:
        for n in range(warmup):
            await send(n)
        cpu = CpuShares(lambda: {"postgres": site.process_ids()["postgres"]})
        cpu.start()
        began = time.perf_counter()
        for n in range(batches):
            await send(warmup + n)
        elapsed = time.perf_counter() - began
        shares = cpu.shares()
        await storage.close_async()
        return elapsed, shares

    try:
        elapsed, shares = run(main())
    finally:
        storage.close()

    def per_batch(share: float | None) -> float | None:
        if share is None:
            return None
        return round(share / 100 * elapsed / batches * 1e6, 1)

    return {
        "size": size,
        "batches": batches,
        "tables": tables,
        "client_us": per_batch(shares.get("bench")),
        "postgres_us": per_batch(shares.get("postgres")),
        "wall_us": round(elapsed / batches * 1e6, 1),
    }
