"""Evaluation: the duplicate-deal harness, its results, statistics and report files.

Read ``harness`` (plays the games), then ``results`` (records and the summary table),
``stats`` (intervals and ratings) and ``report`` (CSV/JSON files and plots). Agents come from
spec strings through ``agents.registry``; nothing here imports a learner.
"""

from agents.evaluation.harness import play_game, run_tournament
from agents.evaluation.results import GameRecord, Results

__all__ = ["GameRecord", "Results", "play_game", "run_tournament"]
