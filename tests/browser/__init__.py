"""The real-browser tier (see conftest.py)."""
