"""The scripted agents: ``baselines`` (random and greedy over whole moves), ``heuristic``
(greedy with a position evaluation) and ``search`` (determinised Monte Carlo over it)."""
