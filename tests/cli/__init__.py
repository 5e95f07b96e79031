"""qwirkle_cli: the command line (python train.py, qwirkle)."""
