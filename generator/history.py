"""Dates from git: when each entry file last changed. One `git log` for the whole tree."""

from __future__ import annotations

import subprocess
from pathlib import Path


def last_updated(root: Path, folder: str = "entries") -> dict[str, str]:
    """Map of repo-relative path → date (YYYY-MM-DD) of the newest commit touching it; {} outside git."""
    try:
        result = subprocess.run(
            ["git", "-C", str(root), "log", "--format=%x00%cs", "--name-only", "--no-renames", "--", folder],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    dates: dict[str, str] = {}
    date = ""
    for line in result.stdout.splitlines():
        if line.startswith("\x00"):
            date = line[1:]
        elif line and line not in dates:
            dates[line] = date
    return dates
