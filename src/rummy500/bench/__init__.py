"""Tooling that runs the server from outside, as its clients and its operators do: nothing in
the server imports it.

- :mod:`~rummy500.bench.cluster` — ``rummy500 cluster``: a whole site on loopback (a throw-away
  PostgreSQL, server processes and HAProxy), for a try-out, the tests and the benchmarks;
- :mod:`~rummy500.bench.load` — ``rummy500 bench server`` and ``rummy500 bench failover``: the
  load generator, simulated players against a real server process or site;
- :mod:`~rummy500.bench.client_socket` — the simulated players' lean WebSocket client;
- :mod:`~rummy500.bench.commands` — those commands on the ``rummy500`` command line.

The benchmarks of the engine, the bots and the environments are their layers' own
(``rummy500 bench engine``, ``playout``, ``bots``, ``env``).
"""
