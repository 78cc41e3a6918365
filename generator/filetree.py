"""Files on disk: what a folder holds, listed fast, and one file replaced in a single step.

The no-op check stats every input and output file (30,000 at 10,000 entries) and the writer
every output file, on every build: one `os.scandir` per folder, no `Path` objects.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


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


def replace_file(path: Path, chunks: Iterable[bytes]) -> None:
    """Write `path` from `chunks` so that a reader, or a build that stops half-way, sees the old
    file or the new one, never part of one: written beside it, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("wb") as file:
        file.writelines(chunks)
    os.replace(partial, path)
