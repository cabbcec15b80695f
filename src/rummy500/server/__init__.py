"""The online table server: a lobby over HTTP, tables over WebSocket, state in a database.

The server is a thin layer: it turns a client's message into an engine
:class:`~rummy500.engine.Move`, stores every accepted move in the same transaction that advances
the table, and turns each seat's :meth:`~rummy500.engine.Game.observation` into the messages that
seat receives. It holds no rules of its own. Modules:

- :mod:`~rummy500.server.config` — the settings of a server process;
- :mod:`~rummy500.server.client_messages` — what clients send: the lobby's requests and the
  table protocol's client messages (pydantic);
- :mod:`~rummy500.server.views` — what each seat (or a spectator) is sent, from its observation;
- :mod:`~rummy500.server.outgoing` — every message a table sends its clients, and the news it
  publishes;
- :mod:`~rummy500.server.wire` — the models of what the server sends on a table's WebSocket, and
  the JSON Schemas of both directions (``docs/schemas/table/``);
- :mod:`~rummy500.server.storage` — tables, seats, moves and chat in SQLite or PostgreSQL;
- :mod:`~rummy500.server.bot_pool` — the server-wide pool of computer players and hints, off
  the event loop;
- :mod:`~rummy500.server.tables` — the live tables this process owns (``TableHub``), and
  one table in play, built from :mod:`~rummy500.server.services` (what it uses of the hub):
  :mod:`~rummy500.server.live` (its door), :mod:`~rummy500.server.play` (the game going on
  and its one publish point), :mod:`~rummy500.server.events` (stored events),
  :mod:`~rummy500.server.clients` (connections and fan-out), :mod:`~rummy500.server.seating`,
  :mod:`~rummy500.server.calls`, :mod:`~rummy500.server.undo`, :mod:`~rummy500.server.turn_clock`
  and :mod:`~rummy500.server.table_bots`;
- :mod:`~rummy500.server.lobby` and :mod:`~rummy500.server.app` — the HTTP and WebSocket routes;
- :mod:`~rummy500.server.commands` — ``rummy500 serve``, with uvicorn's connections given
  deadlines (:mod:`~rummy500.server.request_deadlines`).

What runs the server from outside (``rummy500 cluster``, ``rummy500 bench server``) is
:mod:`rummy500.bench`, which nothing here imports.

Importing this package imports nothing heavy: FastAPI, uvicorn and SQLAlchemy are imported by the
modules that need them.
"""
