"""Agents that play Qwirkle through a PlayerView, the learners that train them, and the
harness that rates them.

Read top-down (docs/architecture.md draws it):

- ``base`` (the Agent interface), ``options`` (agent options and their limits),
  ``checkpoint`` (the file format of every network), ``net_agent`` and ``curves`` (what the
  learners' agents and runs share);
- ``scripted/``: random, greedy, heuristic, search;
- ``registry``: agents from spec strings (``make_agent("search:budget=0.25")``,
  ``make_agent("learned")``);
- ``evaluation/``: the duplicate-deal harness, its results, statistics and reports;
- one package per learner, which never import each other: ``move_value/`` (the 1-ply
  move-value agent, its TD self-play and its fit to the search's values), ``tile_ppo/``
  (the tile-level masked-PPO policy) and ``move_policy/`` (the whole-move policy that the
  RL-library recipes train);
- ``loading`` (a checkpoint of any kind as an agent) and ``human`` (play in a terminal).
"""
