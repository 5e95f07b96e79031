"""agents/: the interface, the registry and agent options."""
