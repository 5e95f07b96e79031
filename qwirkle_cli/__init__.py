"""The command line: ``qwirkle train | ppo | evaluate | play | serve`` (``commands``).

It sits above everything (qwirkle_env, agents, showdown) and nothing imports it; the
``qwirkle`` console script and the checkout's ``python train.py`` both run
``commands.main``.
"""
