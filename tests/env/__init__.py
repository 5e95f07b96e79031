"""qwirkle_env's PettingZoo and gymnasium face: the AEC env, the move mode and its rows,
the wrappers."""
