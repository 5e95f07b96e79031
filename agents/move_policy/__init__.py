"""The whole-move policy that the RL-library recipes (examples/: SB3, Tianshou, RLlib) train:
one shared network over [position ⊕ row] (``network``) and what the recipes share
(``training``: options, warm start, learning curve, export)."""
