"""showdown/: the showdown server and page."""
