"""Research environments: Rummy 500 for Gymnasium, PettingZoo and OpenSpiel.

Nothing is imported here, so that ``rummy500`` never loads numpy or the frameworks for players
who do not use them (they come with the ``research`` extra). The modules:

- :mod:`rummy500.envs.encoding`: the flat action space (``Discrete(1309)``), masks, and exact
  conversion between actions and :class:`~rummy500.engine.Move` values;
- :mod:`rummy500.envs.observation`: fixed-size observation vectors, kept up to date move by move
  (:class:`~rummy500.envs.observation.EncodedGame`);
- :mod:`rummy500.envs.pettingzoo`: the AEC environment ``rummy500_v0``;
- :mod:`rummy500.envs.gymnasium`: ``rummy500/Rummy500-v0``, one seat against the built-in bots
  (registered when imported);
- :mod:`rummy500.envs.openspiel`: the OpenSpiel game ``python_rummy500`` (registered when
  imported);
- :mod:`rummy500.envs.openspiel_bots`: the built-in levels as OpenSpiel bots, and OpenSpiel's
  ISMCTS ready for ``evaluate_bots``;
- :mod:`rummy500.envs.baseline`: the published baseline, a trained policy in numpy
  (``examples/train_baseline.py``), as a bot;
- :mod:`rummy500.envs.benchmark` and :mod:`rummy500.envs.commands`: ``rummy500 bench env`` and
  ``rummy500 bench baseline``.

``docs/encoding.md`` documents the encoding.
"""
