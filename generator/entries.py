"""Entry files → validated `Entry` models, with every problem located at its file, line and column."""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from dataclasses import dataclass
from difflib import get_close_matches

from pydantic import ValidationError

from generator import markdown
from generator.document import Document, DocumentError, read_document
from generator.entry_cache import EntryCache, cache_key
from generator.errors import Problem
from generator.parallel import Parts
from generator.schema import Entry, model_of
from generator.sources import Source
from generator.vocabulary import Vocabulary

SCAFFOLD_MARKER = re.compile(r"^TODO\b|/TODO\b|^TODO-")  # how every placeholder of `trainwreck new` starts
PLACEHOLDER = re.compile(SCAFFOLD_MARKER.pattern + r"|\bTODO:")  # also a writer's own "TODO:" note


@dataclass(frozen=True)
class LoadedEntry:
    """A valid entry with where it came from, so later stages can still point at lines."""

    entry: Entry  # or a CachedEntry, which reads the same
    source: Source
    document: Document
    cache_key: str = ""  # names the file's path and bytes in the caches and memos (entry_cache.cache_key)
    from_cache: bool = False  # rebuilt from the entry cache: its file passed every check before


def load_entries(
    sources: list[Source],
    vocabulary: Vocabulary,
    memo: MutableMapping | None = None,
    workers: int = 1,
    cache: EntryCache | None = None,
) -> tuple[list[LoadedEntry], list[Problem]]:
    """Validate every source independently and return the good ones plus all problems found.

    With a cache (of earlier builds), a file whose bytes passed before is validated from its
    cached model instead of parsed. With a memo (kept by a long-lived process), a file whose
    size and mtime did not change since the last call is not read again. Without a memo, the
    YAML is parsed on `workers` cores (the parsed data travels back cheaply; validated models
    would not).
    """
    if memo is not None:
        results = [_load_remembered(source, vocabulary, memo, cache) for source in sources]
    else:
        results = _load_all(sources, vocabulary, cache, workers)
    loaded = [entry for entry, _ in results if entry is not None]
    return loaded, [problem for _, found in results for problem in found]


def _load_all(
    sources: list[Source], vocabulary: Vocabulary, cache: EntryCache | None, workers: int
) -> list[tuple[LoadedEntry | None, list[Problem]]]:
    """Files the cache knows are validated from it; the others are parsed on `workers` cores."""
    raws = [_raw(source) for source in sources]
    keys = [cache_key(source, raw) if isinstance(raw, bytes) else "" for source, raw in zip(sources, raws, strict=True)]
    results = [
        _from_cache(source, raw, key, cache, vocabulary) for source, raw, key in zip(sources, raws, keys, strict=True)
    ]
    misses = [index for index, result in enumerate(results) if result is None]
    to_parse = [(sources[index], raws[index]) for index in misses]
    # Each part is validated here as soon as a worker has parsed it, while they parse the rest.
    # In one process, each file is parsed just before it is validated: holding every parsed tree
    # at once raised the peak memory of a first `trainwreck diagnose` by more than a quarter.
    documents = Parts(_parse_part, to_parse, len(misses), workers, part_in_one_process=1)
    try:
        for index, document in zip(misses, documents, strict=True):
            results[index] = _validated(sources[index], document, vocabulary, keys[index])
    finally:
        documents.close()
    return results


def _from_cache(
    source: Source, raw: bytes | Problem, key: str, cache: EntryCache | None, vocabulary: Vocabulary
) -> tuple[LoadedEntry, list[Problem]] | None:
    """The entry rebuilt from the cache, or None when it has to be parsed and checked in full."""
    entry = cache.cached_entry(key, vocabulary) if key and cache is not None else None
    if entry is None:
        return None
    document = Document.unparsed(raw)
    return LoadedEntry(entry, source, document, cache_key=key, from_cache=True), []


def _parse_part(to_parse: list[tuple[Source, bytes | Problem]], start: int, stop: int) -> list[Document | Problem]:
    return [_parsed(raw, source) for source, raw in to_parse[start:stop]]


def _load_remembered(
    source: Source, vocabulary: Vocabulary, memo: MutableMapping, cache: EntryCache | None
) -> tuple[LoadedEntry | None, list[Problem]]:
    try:
        info = source.path.stat()
        key = (source.shown, info.st_size, info.st_mtime_ns)
    except OSError:
        return load_entry(source, vocabulary)
    if key not in memo:
        memo[key] = load_entry(source, vocabulary, cache)
    return memo[key]


def load_entry(
    source: Source, vocabulary: Vocabulary, cache: EntryCache | None = None
) -> tuple[LoadedEntry | None, list[Problem]]:
    """One file, checked in full unless `cache` knows its bytes."""
    raw = _raw(source)
    key = cache_key(source, raw) if isinstance(raw, bytes) else ""
    found = _from_cache(source, raw, key, cache, vocabulary)
    return found if found is not None else _validated(source, _parsed(raw, source), vocabulary, key)


def _raw(source: Source) -> bytes | Problem:
    try:
        return source.path.read_bytes()
    except OSError as error:
        return Problem(source.shown, 1, 1, "", f"cannot read file: {error.strerror}")


def _parsed(raw: bytes | Problem, source: Source) -> Document | Problem:
    if isinstance(raw, Problem):
        return raw
    try:
        return read_document(raw)
    except DocumentError as error:
        return error.problem(source.shown)


def _validated(
    source: Source, document: Document | Problem, vocabulary: Vocabulary, cache_key: str = ""
) -> tuple[LoadedEntry | None, list[Problem]]:
    if isinstance(document, Problem):
        return None, [document]
    # Text the writer typed but the entry does not hold: values a comment cut short, and the
    # scaffold's placeholders. Reported with the schema's problems, not instead of them.
    text_problems = [cut.problem(source.shown) for cut in document.cut_values]
    text_problems += [
        Problem(
            source.shown, *document.position(loc), _dotted(loc), "placeholder from `trainwreck new` is not filled in"
        )
        for loc in (_placeholders(document.data, ()) if "TODO" in document.text else ())
    ]
    try:
        entry = Entry.model_validate(document.data, context={"vocabulary": vocabulary})
    except ValidationError as error:
        return None, text_problems + [_problem(source, document, detail) for detail in error.errors(include_url=False)]
    problems = text_problems + _path_problems(source, document, entry)
    return (None if problems else LoadedEntry(entry, source, document.without_data(), cache_key)), problems


def _placeholders(data: object, loc: tuple) -> list[tuple]:
    """Where the scaffold's TODO markers are still present."""
    if isinstance(data, dict):
        return [found for key, value in data.items() for found in _placeholders(value, (*loc, key))]
    if isinstance(data, list):
        return [found for index, value in enumerate(data) for found in _placeholders(value, (*loc, index))]
    if isinstance(data, str) and _is_placeholder(data, loc):
        return [loc]
    return []


def _is_placeholder(text: str, loc: tuple) -> bool:
    """Real output can itself say "TODO:" (PyTorch's CUDA graph trees raise `RuntimeError: TODO: graph
    recording observed ...`), so where a field quotes output - symptom lines, fingerprints, log examples,
    and code spans in prose - only a value that starts like the scaffold's placeholders counts."""
    if loc[:1] == ("diagnose",) or (loc[:1] == ("symptoms",) and loc[-1:] == ("text",)):
        return bool(SCAFFOLD_MARKER.search(text))
    return bool(PLACEHOLDER.search(markdown.CODE_SPAN.sub("``", text)))


def _dotted(loc: tuple) -> str:
    return ".".join(str(part) for part in loc)


def _path_problems(source: Source, document: Document, entry: Entry) -> list[Problem]:
    problems = []
    if entry.id != source.stem:
        line, col = document.position(("id",))
        problems.append(
            Problem(source.shown, line, col, "id", f"{entry.id!r} must equal the file name {source.stem!r}")
        )
    if entry.category != source.category:
        line, col = document.position(("category",))
        message = f"{entry.category!r} does not match the folder entries/{source.category}/"
        problems.append(Problem(source.shown, line, col, "category", message))
    return problems


def _problem(source: Source, document: Document, detail: dict) -> Problem:
    loc = tuple(part for part in detail["loc"] if not isinstance(part, str) or not part.startswith("function-"))
    if detail["type"] == "extra_forbidden":
        line, col = document.position((*loc, "__key__"))
        message = "unknown field" + _suggestion(loc)
    else:
        line, col = document.position(loc)
        message = _message(detail)
    return Problem(source.shown, line, col, _dotted(loc), message)


def _message(detail: dict) -> str:
    """Pydantic's message, made to read well in one line."""
    message = detail["msg"]
    if detail["type"] == "missing":
        return "required field is missing"
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if detail["type"] == "string_pattern_mismatch" and "pattern" in detail.get("ctx", {}):
        pattern = detail["ctx"]["pattern"]
        if "a-z0-9" in pattern:
            return "must be lowercase ASCII letters and digits joined by single hyphens"
        return "must be one non-empty line"
    if detail["type"] == "literal_error":
        return message.replace("Input should be", "must be")
    return message[0].lower() + message[1:] if message else message


def _suggestion(loc: tuple) -> str:
    model = Entry
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        annotation = model.model_fields.get(str(part))
        inner = model_of(annotation.annotation) if annotation else None
        if inner is None:
            return ""
        model = inner
    close = get_close_matches(str(loc[-1]), list(model.model_fields), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
