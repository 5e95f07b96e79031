"""agents/move_policy: the whole-move policy the RL-library recipes train."""
