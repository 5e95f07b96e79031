"""The tile-level masked-PPO learner, shipped as ``tile-ppo``: a convolutional policy over the
AEC env's sub-steps (``network``, ``agent``), trained by PPO (``ppo``) on self-play games
collected through the env (``selfplay``) or the batched simulator (``vector_selfplay``),
warm-started by ``imitation``, checked by ``quickeval`` and logged by ``run``."""
