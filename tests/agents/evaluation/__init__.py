"""agents/evaluation: the duplicate-deal harness, its results, statistics and reports."""
