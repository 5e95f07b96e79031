"""Showdown: play Qwirkle against the agents, watch them play, and replay saved games, in a
browser (``python train.py serve``).

It sits above ``agents`` and ``qwirkle_env`` and neither imports it; it needs the
``[web]`` extra (Starlette and uvicorn).
"""
