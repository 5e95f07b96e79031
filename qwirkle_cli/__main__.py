"""``python -m qwirkle_cli``: the same command line as ``qwirkle`` and ``python train.py``."""

from qwirkle_cli.commands import main

main()
