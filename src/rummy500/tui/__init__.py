"""The terminal game: ``rummy500 play``, a Textual app against computer opponents.

The package is layered like the rest of the project:

- :mod:`~rummy500.tui.storage` — where the game is saved (``.r500`` records) and resumed from;
- :mod:`~rummy500.tui.stats` — the statistics database (SQLite);
- :mod:`~rummy500.tui.session` — one game at the table: seats, bots, undo, autosave;
- :mod:`~rummy500.tui.widgets`, :mod:`~rummy500.tui.screens`, :mod:`~rummy500.tui.app` — the
  Textual app (imported only when the game starts, so the command line stays fast);
- :mod:`~rummy500.tui.commands` — the ``play`` command.

The app holds no rules of its own: it turns the player's intent into a
:class:`~rummy500.engine.Move`, calls ``game.play(move)`` and shows the engine's reason when
the move is illegal.
"""
