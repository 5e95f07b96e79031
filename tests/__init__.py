"""The tests, in folders that mirror the packages (docs/architecture.md).

conftest.py holds the helpers and fixtures that several test modules share.
"""
