"""Entries that passed every check of their own, remembered on disk from one build to the next.

Parsing YAML and running each entry's diagnose examples are most of a build's time: PyYAML's C
parser still calls Python for every scalar, and each example check compiles the entry's
patterns. An entry file whose exact bytes, at the same path, passed those checks in an earlier
build made by the same generator code with the same vocabularies is instead rebuilt from the
JSON of its model, which Pydantic validates again: a tenth of the time.

The cache is one text file in build/: the code's version, then one line per entry with its key
and its model as JSON. build/ is git-ignored (tests/test_repo_files.py fails if a
commit adds anything there). It only saves time: when it is missing, damaged or made by other
code, every entry is checked in full.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pydantic
import yaml

from generator.filetree import replace_file
from generator.settings import Settings
from generator.sources import Source

if TYPE_CHECKING:
    from generator.entries import LoadedEntry

CACHE_NAME = ".trainwreck-entry-cache"
KEYED_LINE = re.compile(rb"[0-9a-f]{64} \{")
GENERATOR_DIR = Path(__file__).parent


@dataclass
class EntryCache:
    """Entry model JSON (UTF-8) by cache key, as read at the start of a build."""

    path: Path
    version: str
    models: dict[str, bytes] = field(default_factory=dict)
    read_only: bool = False

    def model_json(self, key: str) -> bytes | None:
        return self.models.get(key)

    def save(self, loaded: list[LoadedEntry]) -> None:
        """Keep exactly the entries of this build, all checked, replacing the old file in one
        step. Unchanged content is not written again."""
        if self.read_only:
            return
        checked = {
            item.cache_key: self.models[item.cache_key] if item.from_cache else item.entry.model_dump_json().encode()
            for item in loaded
        }
        if checked == self.models:
            return
        lines = [self.version.encode() + b"\n"]
        lines += [key.encode() + b" " + model + b"\n" for key, model in checked.items()]
        replace_file(self.path, lines)
        self.models = checked


def cache_key(source: Source, raw: bytes) -> str:
    """The same bytes at the same path (the id and category checks depend on the path)."""
    return hashlib.sha256(source.shown.encode("utf-8") + b"\0" + raw).hexdigest()


def open_cache(settings: Settings, read_only: bool = False) -> EntryCache:
    """The cache of earlier builds, or an empty one if there is none usable."""
    path = settings.root / "build" / CACHE_NAME
    version = checker_version(settings)
    try:
        # Bytes: decoding 100 MB of text took longer than reading it. Pydantic reads UTF-8 JSON.
        lines = path.read_bytes().split(b"\n")
    except OSError:
        lines = []
    models = {}
    if lines and lines[0] == version.encode():
        # One line per entry: its key, a space, its model's JSON (which has no raw newline).
        for line in lines[1:]:
            if KEYED_LINE.match(line):
                key, model = line.split(b" ", 1)
                models[key.decode()] = model
    return EntryCache(path, version, models, read_only)


def checker_version(settings: Settings) -> str:
    """Everything that decides whether an entry file passes its own checks: the generator's
    code and data files, the vocabularies, and the versions of the parser and validator."""
    digest = hashlib.sha256(f"pydantic {pydantic.VERSION} pyyaml {yaml.__version__}".encode())
    files = sorted(GENERATOR_DIR.glob("*.py")) + sorted(GENERATOR_DIR.glob("*.json"))
    files += sorted(path for path in settings.vocab_dir.glob("*") if path.is_file())
    for path in files:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
