"""agents/tile_ppo: the tile-level masked-PPO learner."""
