"""Agents that play Qwirkle through a PlayerView, and the harness that rates them.

Read top-down: ``base`` (the Agent interface), ``registry`` (agents from spec strings:
``make_agent("search:budget=0.25")``), the scripted agents (``baselines``, ``heuristic``,
``search``), the learned agents and their trainers (``value_agent``, ``td``, ``policy``,
``ppo`` ...), the harness (``evaluate``), its ``results`` and the ``report`` files.
"""
