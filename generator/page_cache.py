"""What an earlier build rendered and derived, remembered on disk for the next one.

Once its entries come from the entry cache, most of a build is rendering: about 0.6 ms for an
entry's page and its JSON export. A page shows its own entry file, the titles of the entries it
links to and of those linking to it, its path and its last-updated date. When none of these
changed, and neither did the templates, the generator's code, the vocabularies, the Jinja2
version nor the site's addresses, rendering it again would give the same bytes, so they are read
back instead. The same holds for what is made from one entry file alone (its search document and
its compiled fingerprints) and for the listings, made from the listed fields of every entry:
`StoredMemo` keeps them, as JSON, under a hash of their inputs.

The cache is one binary file in build/ (git-ignored, never committed): the version line, then for
each record a header line (its key and the byte length of each of its parts) followed by those
bytes. A build keeps exactly the records it used or made. The cache only saves time: when it is
missing, damaged or made by other code, everything is made again.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import re
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

import jinja2

from generator.filetree import mapped_file, replace_file
from generator.settings import Settings

CACHE_NAME = ".trainwreck-page-cache"
HEADER = re.compile(rb"([0-9a-f]{64})((?: \d+)*)\n")

T = TypeVar("T")
Record = tuple[bytes, ...]  # e.g. an entry's page (Markdown) and its export (JSON), as UTF-8


@dataclass
class PageCache:
    """Records by key: those read at the start of a build, and those this build used or made."""

    path: Path
    version: str
    stored: dict[str, Record] = field(default_factory=dict)
    read_only: bool = False  # `trainwreck build --check` reads the cache but does not save it
    current: dict[str, Record] = field(default_factory=dict)

    def get(self, key: str) -> Record | None:
        record = self.current.get(key)
        if record is None:
            record = self.stored.get(key)
        if record is not None:
            self.current[key] = record
        return record

    def put(self, key: str, record: Record) -> None:
        self.current[key] = record

    def save(self) -> None:
        """Keep exactly this build's records, replacing the old file in one step; an unchanged
        set is not written again. Called once the build has succeeded."""
        if self.read_only or self.current == self.stored:
            return
        replace_file(self.path, self._chunks())
        self.stored = self.current
        self.current = {}

    def _chunks(self) -> Iterator[bytes]:
        yield self.version.encode() + b"\n"
        for key, record in self.current.items():
            yield (key + "".join(f" {len(part)}" for part in record) + "\n").encode()
            yield from record


class DataMemo(Protocol):
    """What the build stages that reuse earlier work need of a memo: a `mkdocs serve` process's
    (`Recent` in generator/build.py) or one kept on disk (`StoredMemo`)."""

    def get(self, key: Hashable) -> object | None: ...

    def __setitem__(self, key: Hashable, value: object) -> None: ...

    def keep(self, key: Hashable) -> None: ...


class ServeMemo(DataMemo, Protocol):
    """A long-lived process's memo of whole pages (`Recent` in generator/build.py): looked up
    with `in` and `[]` as well, as pages are kept as they are, not as JSON."""

    def __contains__(self, key: object) -> bool: ...

    def __getitem__(self, key: Hashable) -> object: ...


class StoredMemo:
    """A memo of JSON data kept in a PageCache, for the build stages that take one (search
    documents, fingerprints, listings). Its keys are JSON data too: what the value is made from."""

    def __init__(self, cache: PageCache) -> None:
        self._cache = cache

    def get(self, key: Hashable) -> object | None:
        record = self._cache.get(hashed_key(key))
        return None if record is None else json.loads(record[0])

    def __setitem__(self, key: Hashable, value: object) -> None:
        self._cache.put(hashed_key(key), (json.dumps(value, ensure_ascii=False).encode(),))

    def keep(self, key: Hashable) -> None:
        """Keep what is stored for `key` for the next build, without reading it now."""
        self._cache.get(hashed_key(key))


def memoized(memo: DataMemo | None, key: Hashable, make: Callable[[], T], parts: Iterable[Hashable] = ()) -> T:
    """What `memo` holds for `key`, made and stored first if it holds nothing (no memo: just made).

    `parts` are the keys under which `make` memoizes what it builds the value from. When the value
    is found, they are kept too: a memo keeps only what the last build used, and the next change
    will need all but one of them."""
    value = memo.get(key) if memo is not None else None
    if value is None:
        value = make()
        if memo is not None:
            memo[key] = value
    else:
        for part in parts:
            memo.keep(part)
    return value


def hashed_key(key: object) -> str:
    return hashlib.sha256(json.dumps(key, ensure_ascii=False).encode()).hexdigest()


def page_key(entry_key: str, inputs: object) -> str:
    """An entry file's cache key (its path and bytes) with what else its page shows (JSON data)."""
    return hashed_key([entry_key, inputs])


def open_page_cache(settings: Settings, code_version: str, addresses: str, read_only: bool = False) -> PageCache:
    """The pages of earlier builds, or none if there are none usable.

    `code_version` stands for the generator's code and vocabularies (the entry cache's version);
    the templates, the Jinja2 version and the site's `addresses` are added to it here."""
    path = settings.build_dir / CACHE_NAME
    version = _version(settings, code_version, addresses)
    first_line = version.encode() + b"\n"
    with mapped_file(path) as data:
        stored = _records(data, len(first_line)) if data[: len(first_line)] == first_line else {}
    return PageCache(path, version, stored, read_only)


def _records(data: bytes | mmap.mmap, position: int) -> dict[str, Record]:
    """Every record from `position` on; nothing at all if any record is damaged or cut short."""
    stored = {}
    while position < len(data):
        header = HEADER.match(data, position)
        if header is None:
            return {}
        parts, position = [], header.end()
        for length in header.group(2).split():
            parts.append(data[position : position + int(length)])
            position += int(length)
        if position > len(data):
            return {}
        stored[header.group(1).decode()] = tuple(parts)
    return stored


def _version(settings: Settings, code_version: str, addresses: str) -> str:
    digest = hashlib.sha256(f"{code_version} jinja2 {jinja2.__version__} {addresses}".encode())
    for path in sorted(settings.templates_dir.rglob("*")):
        if path.is_file():
            relative = path.relative_to(settings.templates_dir).as_posix()
            digest.update(relative.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
