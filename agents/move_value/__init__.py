"""The move-value learner, shipped as ``learned``: a network values the position each legal
move leaves (``features``, ``look_ahead``, ``network``), the agent plays the best one ply
deep (``agent``), and TD(lambda) self-play trains it (``td``, logged by ``run``)."""
