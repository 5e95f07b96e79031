"""The move-value learner, shipped as ``learned``: a network values the position each legal
move leaves (``features``, ``look_ahead``, ``network``), the agent plays the best one ply
deep (``agent``); TD(lambda) self-play trains it (``td``, logged by ``run``), or a fit to
the values the search's simulations give each move (``rollout_values``)."""
