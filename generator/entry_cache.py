"""Entries that passed every check of their own, remembered on disk from one build to the next.

Parsing YAML and running each entry's diagnose examples are most of a build's time: PyYAML's C
parser still calls Python for every scalar, and each example check compiles the entry's
patterns. An entry file whose exact bytes, at the same path, passed those checks in an earlier
build made by the same generator code with the same vocabularies is instead rebuilt from the
JSON of its model. Only the fields a build reads of every entry (HEADER_FIELDS) are validated
then; the whole model waits until something reads another field (`CachedEntry`), which a build
with the page cache does only for the entries whose pages it renders again.

The cache is one text file in build/: the code's version, then one line per entry with its key,
a CRC-32 of the rest of the line, the header's JSON, a tab (never found inside JSON) and the whole
model's JSON. build/ is git-ignored (tests/test_repo_files.py fails if a commit adds anything
there). It only saves time: when it is missing, damaged or made by other code, every entry is
checked in full.
"""

from __future__ import annotations

import hashlib
import mmap
import re
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import pydantic
import yaml
from pydantic import create_model

from generator.filetree import mapped_file, replace_file
from generator.schema import Entry, Model
from generator.settings import Settings
from generator.sources import Source
from generator.vocabulary import Vocabulary

if TYPE_CHECKING:
    from generator.entries import LoadedEntry

CACHE_NAME = ".trainwreck-entry-cache"
KEYED_LINE = re.compile(rb"[0-9a-f]{64} [0-9a-f]{8} \{")  # key, CRC-32 of the record, the record
RECORD_START = 74
GENERATOR_DIR = Path(__file__).parent
# What a build reads of every entry, changed or not: the listed fields, links to other entries
# (`diagnose.explains` among them) and the page cache's keys.
HEADER_FIELDS = (
    "id",
    "title",
    "aliases",
    "category",
    "severity",
    "status",
    "tags",
    "affected",
    "created",
    "related",
    "diagnose",
)
EntryHeader = create_model(
    "EntryHeader",
    __base__=Model,
    **{name: (Entry.model_fields[name].annotation, Entry.model_fields[name]) for name in HEADER_FIELDS},
)


class CachedEntry:
    """An entry rebuilt from the cache, read as an Entry reads. Its header's fields are plain
    attributes; any other one validates the whole model first (once). Validating the whole models
    of 10,000 entries took 1.5 s, their headers 0.3 s."""

    def __init__(self, header: Model, line: bytes, model_start: int, context: dict) -> None:
        vars(self).update(dict(header))
        self._line, self._model_start = line, model_start  # the model's JSON is not copied out until needed
        self._context = context

    @cached_property
    def _entry(self) -> Entry:
        return Entry.model_validate_json(self._line[self._model_start :], context=self._context)

    def __getattr__(self, name: str) -> object:
        # Python calls this only for what the header does not hold; private names (asked for
        # while the object is copied or unpickled, before it has its fields) are not forwarded.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._entry, name)


@dataclass
class EntryCache:
    """Each checked entry's cache line by cache key, as read at the start of a build."""

    path: Path
    version: str
    lines: Mapping[str, bytes] = field(default_factory=dict)
    read_only: bool = False

    def cached_entry(self, key: str, vocabulary: Vocabulary) -> CachedEntry | None:
        """The entry this cache holds for `key`, or None (also when its header does not validate)."""
        line = self.lines.get(key)
        tab = line.find(b"\t", RECORD_START) if line is not None else -1
        if tab < 0:
            return None
        context = {"vocabulary": vocabulary, "from_cache": True}
        try:
            header = EntryHeader.model_validate_json(line[RECORD_START:tab], context=context)
        except pydantic.ValidationError:
            return None
        return CachedEntry(header, line, tab + 1, context)

    def save(self, loaded: list[LoadedEntry]) -> None:
        """Keep exactly the entries of this build, all checked, replacing the old file in one
        step. Unchanged content is not written again."""
        if self.read_only:
            return
        checked = {
            item.cache_key: self.lines[item.cache_key] if item.from_cache else _line(item.cache_key, item.entry)
            for item in loaded
        }
        if checked == self.lines:
            return
        replace_file(self.path, [self.version.encode() + b"\n", *(line + b"\n" for line in checked.values())])
        self.lines = checked


def _line(key: str, entry: Entry) -> bytes:
    record = entry.model_dump_json(include=set(HEADER_FIELDS)).encode() + b"\t" + entry.model_dump_json().encode()
    return b"%s %08x %s" % (key.encode(), zlib.crc32(record), record)


def cache_key(source: Source, raw: bytes) -> str:
    """The same bytes at the same path (the id and category checks depend on the path)."""
    return hashlib.sha256(source.shown.encode("utf-8") + b"\0" + raw).hexdigest()


def open_cache(settings: Settings, read_only: bool = False) -> EntryCache:
    """The cache of earlier builds, or an empty one if there is none usable."""
    path, version = cache_path(settings), checker_version(settings)
    with mapped_file(path) as data:
        checked = _checked_lines(data, version.encode() + b"\n")
    return EntryCache(path, version, checked, read_only)


def open_cache_on_disk(settings: Settings) -> EntryCache:
    """The cache for a caller that asks for each entry once and keeps none (a diagnosis): read
    only, and each line read from the file when asked for. Holding every line, about 18 KB an
    entry, would make that caller's memory grow with the corpus."""
    path, version = cache_path(settings), checker_version(settings)
    return EntryCache(path, version, LinesOnDisk(path, _line_offsets(path, version.encode() + b"\n")), True)


def cache_path(settings: Settings) -> Path:
    return settings.build_dir / CACHE_NAME


class LinesOnDisk(Mapping):
    """The cache's lines by key, each read from the file when asked for and checked then: a line
    that is damaged, or no longer there because a build replaced the file, is missing."""

    def __init__(self, path: Path, offsets: dict[str, tuple[int, int]]) -> None:
        self.path, self.offsets = path, offsets

    def __getitem__(self, key: str) -> bytes:
        start, length = self.offsets[key]
        try:
            with self.path.open("rb") as file:
                file.seek(start)
                line = file.read(length)
        except OSError:
            raise KeyError(key) from None
        if line[:64] != key.encode() or not _intact(line):
            raise KeyError(key)
        return line

    def __iter__(self) -> Iterator[str]:
        return iter(self.offsets)

    def __len__(self) -> int:
        return len(self.offsets)


def _line_offsets(path: Path, first_line: bytes) -> dict[str, tuple[int, int]]:
    """Where each keyed line starts after `first_line`, and its length without the newline."""
    try:
        file = path.open("rb")
    except OSError:
        return {}
    offsets = {}
    with file:
        if file.readline() != first_line:
            return {}
        position = len(first_line)
        for line in file:
            if KEYED_LINE.match(line):
                offsets[line[:64].decode()] = (position, len(line) - line.endswith(b"\n"))
            position += len(line)
    return offsets


def _checked_lines(data: bytes | mmap.mmap, first_line: bytes) -> dict[str, bytes]:
    """Each line after `first_line` by its key; a line whose checksum fails is left out.

    Lines stay bytes: decoding 100 MB of text took longer than reading it, and Pydantic reads
    UTF-8 JSON. One line per entry, as JSON has no raw newline."""
    if data[: len(first_line)] != first_line:
        return {}
    checked = {}
    position = len(first_line)
    while position < len(data):
        end = data.find(b"\n", position)
        end = len(data) if end < 0 else end
        line, position = data[position:end], end + 1
        if _intact(line):
            checked[line[:64].decode()] = line
    return checked


def _intact(line: bytes) -> bool:
    """A key, then the CRC-32 of the record that follows it."""
    return bool(KEYED_LINE.match(line)) and int(line[65:73], 16) == zlib.crc32(memoryview(line)[RECORD_START:])


def checker_version(settings: Settings) -> str:
    """Everything that decides whether an entry file passes its own checks: the generator's
    code and data files, the vocabularies, and the versions of the parser and validator."""
    digest = hashlib.sha256(f"pydantic {pydantic.VERSION} pyyaml {yaml.__version__}".encode())
    files = sorted(GENERATOR_DIR.glob("*.py")) + sorted(GENERATOR_DIR.glob("*.json"))
    files += sorted(path for path in settings.vocab_dir.glob("*") if path.is_file())
    for path in files:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
