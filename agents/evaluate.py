"""The harness's former module path, kept so that ``from agents.evaluate import run_tournament``
keeps working; the harness is ``agents.evaluation.harness``."""

from agents.evaluation.harness import play_game, run_tournament

__all__ = ["play_game", "run_tournament"]
