"""What files a folder holds, with their size and modification time, listed fast.

The no-op check stats every input and output file (30,000 at 10,000 entries) and the writer
every output file, on every build: one `os.scandir` per folder, no `Path` objects.
"""

from __future__ import annotations

import os


def file_stats(folder: str) -> dict[str, tuple[int, int]]:
    """Path relative to `folder` → (size, mtime in ns) of every file below it, in sorted order.

    `__pycache__` folders are skipped; symlinks are listed, not followed. Raises OSError when
    `folder` cannot be read."""
    found: dict[str, tuple[int, int]] = {}
    _walk(folder, "", found)
    return found


def _walk(folder: str, prefix: str, found: dict[str, tuple[int, int]]) -> None:
    for item in sorted(os.scandir(folder), key=lambda entry: entry.name):
        if item.name == "__pycache__":
            continue
        if item.is_dir(follow_symlinks=False):
            _walk(item.path, f"{prefix}{item.name}/", found)
        else:
            info = item.stat(follow_symlinks=False)
            found[prefix + item.name] = (info.st_size, info.st_mtime_ns)
