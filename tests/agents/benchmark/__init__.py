"""agents/benchmark: the protocol, the ladder, the bench and its reports."""
