"""`trainwreck new`: write a skeleton entry whose TODO placeholders fail validation until filled."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from generator.catalog import Catalog
from generator.schema import ID_PATTERN
from generator.settings import Settings


class ScaffoldError(ValueError):
    """The id or category cannot be used; nothing was written."""


def write_scaffold(
    settings: Settings, catalog: Catalog, entry_id: str, category: str, today: dt.date | None = None
) -> Path:
    if not re.match(ID_PATTERN, entry_id) or len(entry_id) > 80:
        raise ScaffoldError(
            f"{entry_id!r} is not a valid id: lowercase ASCII words joined by '-', at most 80 characters"
        )
    if category not in catalog.vocabulary.terms("categories"):
        known = ", ".join(sorted(catalog.vocabulary.terms("categories")))
        raise ScaffoldError(f"unknown category {category!r}; choose one of: {known}")
    if catalog.find(entry_id) is not None:
        raise ScaffoldError(f"an entry with id or alias {entry_id!r} already exists")
    path = settings.entries_dir / category / f"{entry_id}.yaml"
    if path.exists():
        raise ScaffoldError(f"{path} already exists")
    env = SandboxedEnvironment(
        loader=FileSystemLoader(str(settings.templates_dir)), undefined=StrictUndefined, keep_trailing_newline=True
    )
    text = env.get_template("new-entry.yaml.j2").render(
        id=entry_id, category=category, today=(today or dt.date.today())
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as stream:
        stream.write(text)
    return path
