"""Trainwreck: an encyclopedia of ML training failures, and the tool that builds it."""

__version__ = "0.1.0"
