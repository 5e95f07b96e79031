"""agents/scripted: the scripted agents."""
