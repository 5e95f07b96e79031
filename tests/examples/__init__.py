"""examples/: the RL-library integrations and recipes."""
