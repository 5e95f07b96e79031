"""The benchmark any agent can enter: a frozen, versioned protocol (``protocol``), a rated
ladder of reference agents (``ladder``), and the bench that places a new agent on it
(``bench``); docs/benchmark.md. Read ``protocol`` first."""
