"""Pages → files on disk, all or nothing.

The new output is assembled in a staging folder beside the old one: unchanged files are
hard-linked (same inode, same mtime, so `mkdocs serve --dirty` skips them), changed ones written.
Only then is the staging folder swapped in. A run that fails or is killed before the swap leaves
the previous output untouched; a run that changes nothing writes nothing at all.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from generator.filetree import file_stats
from generator.pages import Page


class UnsafePath(ValueError):
    """A page path that would land outside the output folder, or collide with another page."""


@dataclass(frozen=True)
class WriteReport:
    written: int
    unchanged: int
    removed: int


def write_output(pages: list[Page], out_dir: Path, known: dict | None = None) -> WriteReport:
    """Make out_dir hold exactly these pages; return how many files were written, kept, removed.

    `known` (kept by a long-lived process) remembers what the last call wrote, so that a page
    whose content and file are both unchanged since then is not read back to be compared.
    """
    by_path = {_checked_path(page.path): page for page in pages}
    if len(by_path) != len(pages):
        raise UnsafePath("two pages have the same path")
    # Plain strings, not Path objects, in the loops below: they run for every page (20,000 at
    # 10,000 entries) on every build, and Path objects tripled their cost.
    out = str(out_dir)
    existing = _existing_files(out_dir)
    changed = {path for path, page in by_path.items() if not _same(out, path, page, existing, known)}
    stale = sorted(set(existing) - set(by_path))
    if not changed and not stale:
        _remember(known, by_path, existing)
        return WriteReport(written=0, unchanged=len(by_path), removed=0)
    _remove_leftovers(out_dir)
    staging = out_dir.with_name(f".{out_dir.name}.staging-{os.getpid()}")
    folders: set[str] = set()
    try:
        for path, page in by_path.items():
            target = os.path.join(staging, path)
            folder = os.path.dirname(target)
            if folder not in folders:
                os.makedirs(folder, exist_ok=True)
                folders.add(folder)
            if path in changed:
                _write_file(target, _bytes(page))
            else:
                os.link(os.path.join(out, path), target)
        _swap(staging, out_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if known is not None:
        # A hard link keeps the size and mtime already listed in `existing`.
        _remember(known, by_path, existing | {path: _stat(os.path.join(out, path)) for path in changed})
    return WriteReport(written=len(changed), unchanged=len(by_path) - len(changed), removed=len(stale))


def _remember(known: dict | None, by_path: dict[str, Page], on_disk: dict[str, tuple[int, int]]) -> None:
    """What the output folder now holds, for the next call to compare against without reading."""
    if known is not None:
        known.clear()
        known.update((path, (hash(page.content), *on_disk[path])) for path, page in by_path.items())


def _checked_path(path: str) -> str:
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or any(part in ("", ".", "..") for part in parts):
        raise UnsafePath(f"refusing to write {path!r}: outside the output folder or not normalised")
    return path


def _bytes(page: Page) -> bytes:
    return page.content if isinstance(page.content, bytes) else page.content.encode("utf-8")


def _write_file(path: str, data: bytes) -> None:
    with open(path, "wb") as file:
        file.write(data)


def _stat(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_size, info.st_mtime_ns


def _existing_files(out_dir: Path) -> dict[str, tuple[int, int]]:
    """Relative path → (size, mtime) of every file in out_dir."""
    return file_stats(str(out_dir)) if out_dir.is_dir() else {}


def _same(out: str, path: str, page: Page, existing: dict, known: dict | None) -> bool:
    """Unchanged since our last write (no read needed), or equal bytes on disk (size checked first)."""
    on_disk = existing.get(path)
    if on_disk is None:
        return False
    if known is not None and path in known and known[path] == (hash(page.content), *on_disk):
        return True
    data = _bytes(page)
    if on_disk[0] != len(data):
        return False
    with open(os.path.join(out, path), "rb") as file:
        return file.read() == data


def _remove_leftovers(out_dir: Path) -> None:
    """Staging folders of builds that were killed before their swap."""
    for leftover in out_dir.parent.glob(f".{out_dir.name}.*-*"):
        pid = leftover.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _swap(staging: Path, out_dir: Path) -> None:
    retired = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
    if out_dir.exists():
        os.replace(out_dir, retired)
    os.replace(staging, out_dir)
    shutil.rmtree(retired, ignore_errors=True)
