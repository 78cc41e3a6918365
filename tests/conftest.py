"""Shared fixtures: a throwaway copy of the repository around a small, known set of entries."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from generator.build import build, load_catalog
from generator.errors import ProblemsFound
from generator.settings import Settings, settings_for

REPO = Path(__file__).resolve().parents[1]
FIXTURE_ENTRIES = REPO / "tests" / "fixtures" / "entries"
SITE_PARTS = ("mkdocs.yml", "templates", "docs", "site_overrides")


def load_script(path: Path) -> ModuleType:
    """A script outside the package (benchmarks/, scripts/), loaded without adding its folder to sys.path
    for the rest of the test run. A script that imports its neighbours needs that folder on sys.path
    first (`monkeypatch.syspath_prepend`)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_repo(root: Path, entries: Path = FIXTURE_ENTRIES) -> Settings:
    """A repository at `root` with the real templates and site config and the given entries."""
    root.mkdir(parents=True, exist_ok=True)
    for part in SITE_PARTS:
        source = REPO / part
        if source.is_dir():
            shutil.copytree(source, root / part)
        else:
            shutil.copy2(source, root / part)
    (root / "generator").mkdir()
    shutil.copy2(REPO / "generator" / "mkdocs_hook.py", root / "generator" / "mkdocs_hook.py")
    shutil.copytree(entries, root / "entries")
    return settings_for(root)


@pytest.fixture
def repo(tmp_path: Path) -> Settings:
    return make_repo(tmp_path / "repo")


def write_entry(settings: Settings, category: str, entry_id: str, text: str) -> Path:
    path = settings.entries_dir / category / f"{entry_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(settings: Settings) -> list[str]:
    """Every problem load_catalog reports, as the one-line messages users see."""
    with pytest.raises(ProblemsFound) as caught:
        load_catalog(settings)
    return [str(problem) for problem in caught.value.problems]


def fixture_text(category: str, entry_id: str) -> str:
    return (FIXTURE_ENTRIES / category / f"{entry_id}.yaml").read_text(encoding="utf-8")


def files_under(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` by relative path, with its bytes."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()
    }


def generated(settings: Settings) -> dict[str, bytes]:
    return files_under(settings.generated_dir)


def rebuild(settings: Settings) -> None:
    """A full build, as after a change to the inputs (not the no-op shortcut)."""
    shutil.rmtree(settings.generated_dir)
    build(settings)
