"""Train, evaluate and play Qwirkle agents from a checkout: ``python train.py ...`` runs the
same command line as the installed ``qwirkle`` console script (qwirkle_cli.commands, where
the commands and their options are)."""

from qwirkle_cli.commands import main

if __name__ == "__main__":
    main()
