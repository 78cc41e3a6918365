"""Trainwreck: an encyclopedia of ML training failures, and the tool that builds it."""

from __future__ import annotations

__version__ = "0.1.0"
