"""Agents that play Qwirkle through a PlayerView, and the harness that rates them."""
