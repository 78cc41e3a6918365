"""Where everything lives. The one place paths are computed, so tests can point the tool elsewhere."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    root: Path
    entries_dir: Path
    templates_dir: Path
    docs_dir: Path
    site_dir: Path

    @property
    def vocab_dir(self) -> Path:
        return self.entries_dir / "_vocab"

    @property
    def build_dir(self) -> Path:
        """Git-ignored: the generated pages and the caches and stamps of earlier builds."""
        return self.root / "build"

    @property
    def generated_dir(self) -> Path:
        """MkDocs' docs_dir: generated pages plus a copy of docs/. Git-ignored; never edit it."""
        return self.build_dir / "docs"

    @property
    def mkdocs_config(self) -> Path:
        return self.root / "mkdocs.yml"


def settings_for(root: Path) -> Settings:
    root = root.resolve()
    return Settings(
        root=root,
        entries_dir=root / "entries",
        templates_dir=root / "templates",
        docs_dir=root / "docs",
        site_dir=root / "site",
    )


# The checkout this generator runs from (an editable install points here).
INSTALLED_ROOT = Path(__file__).resolve().parent.parent


class NoCheckout(Exception):
    """No folder holds entries/_vocab. Every command reads the vocabularies, so this is misuse."""


def is_checkout(folder: Path) -> bool:
    return (folder / "entries" / "_vocab").is_dir()


def find_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds entries/_vocab (the repository root), else the
    checkout the generator runs from: `trainwreck diagnose ~/run.log` should work from any folder."""
    for folder in [start.resolve(), *start.resolve().parents, INSTALLED_ROOT]:
        if is_checkout(folder):
            return folder
    raise NoCheckout(
        f"no Trainwreck checkout found: neither {start.resolve()}, a folder above it, nor {INSTALLED_ROOT}"
        " holds entries/_vocab; pass --root with the repository root"
    )
