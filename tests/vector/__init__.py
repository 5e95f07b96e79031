"""qwirkle_env/vector: the batched simulator."""
