"""Entry pages and exports rendered by an earlier build, remembered on disk for the next one.

Once its entries come from the entry cache, most of a build is rendering: about 0.6 ms for an
entry's page and its JSON export. A page shows its own entry file, the titles of the entries it
links to and of those linking to it, its path and its last-updated date. When none of these
changed, and neither did the templates, the generator's code, the vocabularies, the Jinja2
version nor the site's addresses, rendering it again would give the same bytes, so they are read
back instead.

The cache is one binary file in build/ (git-ignored, never committed): the version line, then for
each entry a header line (its key and the byte lengths of its page and its export) followed by
those bytes. It only saves time: when it is missing, damaged or made by other code, every page is
rendered.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from generator.filetree import replace_file
from generator.settings import Settings

CACHE_NAME = ".trainwreck-page-cache"
HEADER = re.compile(rb"([0-9a-f]{64}) (\d+) (\d+)\n")

Rendered = tuple[bytes, bytes]  # an entry's page (Markdown) and its export (JSON), as UTF-8


@dataclass
class PageCache:
    """Rendered entry pages by key, as read at the start of a build."""

    path: Path
    version: str
    stored: dict[str, Rendered] = field(default_factory=dict)
    read_only: bool = False  # `trainwreck build --check` reads the cache but does not save it
    current: dict[str, Rendered] | None = None

    def remember(self, current: dict[str, Rendered]) -> None:
        """This build's pages, to be saved once the build has succeeded."""
        self.current = current

    def save(self) -> None:
        """Keep exactly this build's pages, replacing the old file in one step; an unchanged
        set is not written again."""
        if self.read_only or self.current is None or self.current == self.stored:
            return
        replace_file(self.path, self._chunks())
        self.stored = self.current

    def _chunks(self) -> Iterator[bytes]:
        yield self.version.encode() + b"\n"
        for key, (page, export) in self.current.items():
            yield f"{key} {len(page)} {len(export)}\n".encode()
            yield page
            yield export


def page_key(entry_key: str, inputs: object) -> str:
    """An entry file's cache key (its path and bytes) with what else its page shows (JSON data)."""
    return hashlib.sha256(json.dumps([entry_key, inputs], ensure_ascii=False).encode()).hexdigest()


def open_page_cache(settings: Settings, code_version: str, addresses: str, read_only: bool = False) -> PageCache:
    """The pages of earlier builds, or none if there are none usable.

    `code_version` stands for the generator's code and vocabularies (the entry cache's version);
    the templates, the Jinja2 version and the site's `addresses` are added to it here."""
    path = settings.root / "build" / CACHE_NAME
    version = _version(settings, code_version, addresses)
    try:
        data = path.read_bytes()
    except OSError:
        data = b""
    first_line = version.encode() + b"\n"
    stored = _records(data, len(first_line)) if data.startswith(first_line) else {}
    return PageCache(path, version, stored, read_only)


def _records(data: bytes, position: int) -> dict[str, Rendered]:
    """Every record from `position` on; nothing at all if any record is damaged or cut short."""
    stored = {}
    while position < len(data):
        header = HEADER.match(data, position)
        if header is None:
            return {}
        page_end = header.end() + int(header.group(2))
        export_end = page_end + int(header.group(3))
        if export_end > len(data):
            return {}
        stored[header.group(1).decode()] = (data[header.end() : page_end], data[page_end:export_end])
        position = export_end
    return stored


def _version(settings: Settings, code_version: str, addresses: str) -> str:
    digest = hashlib.sha256(f"{code_version} jinja2 {jinja2.__version__} {addresses}".encode())
    for path in sorted(settings.templates_dir.rglob("*")):
        if path.is_file():
            relative = path.relative_to(settings.templates_dir).as_posix()
            digest.update(relative.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
