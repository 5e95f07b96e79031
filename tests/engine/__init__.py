"""qwirkle_env/engine: the rules."""
