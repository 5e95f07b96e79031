"""agents/move_value: the 1-ply move-value learner and its TD self-play."""
