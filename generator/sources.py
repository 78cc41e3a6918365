"""Find the entry files: entries/<category>/<id>.yaml, in a stable sorted order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.errors import Problem


@dataclass(frozen=True)
class Source:
    """One entry file as found on disk, not yet parsed. `shown` is the path used in messages."""

    path: Path
    shown: str
    category: str
    stem: str


def find_sources(entries_dir: Path, root: Path) -> tuple[list[Source], list[Problem]]:
    """All entry files under entries_dir, plus problems with the tree itself (stray files, symlinks)."""
    sources: list[Source] = []
    problems: list[Problem] = []
    entries_real = entries_dir.resolve()
    for path in sorted(entries_dir.rglob("*")):
        relative = path.relative_to(entries_dir)
        if relative.parts[0].startswith(("_", ".")) or relative.name == "entry.schema.json":
            continue
        shown = _shown(path, root)
        if path.is_symlink():
            target = path.resolve()
            if not target.is_relative_to(entries_real):
                problems.append(Problem(shown, 1, 1, "", "symlink points outside entries/; entries must be real files"))
                continue
        if path.is_dir():
            if len(relative.parts) > 1:
                problems.append(Problem(shown, 1, 1, "", "entries are one folder deep: entries/<category>/<id>.yaml"))
            continue
        if path.suffix == ".yml":
            problems.append(Problem(shown, 1, 1, "", "entry files end in .yaml, not .yml"))
        elif path.suffix != ".yaml":
            problems.append(Problem(shown, 1, 1, "", "only .yaml entry files belong under entries/<category>/"))
        elif len(relative.parts) != 2:
            problems.append(Problem(shown, 1, 1, "", "entries live at entries/<category>/<id>.yaml"))
        else:
            sources.append(Source(path, shown, relative.parts[0], path.stem))
    return sources, problems


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
