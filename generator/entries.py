"""Entry files → validated `Entry` models, with every problem located at its file, line and column."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import get_close_matches

from pydantic import ValidationError

from generator.document import Document, DocumentError, read_document
from generator.errors import Problem
from generator.parallel import map_in_parts
from generator.schema import Entry, model_of
from generator.sources import Source
from generator.vocabulary import Vocabulary

PLACEHOLDER = re.compile(r"^TODO\b|\bTODO:|/TODO\b|^TODO-")


@dataclass(frozen=True)
class LoadedEntry:
    """A valid entry with where it came from, so later stages can still point at lines."""

    entry: Entry
    source: Source
    document: Document


def load_entries(
    sources: list[Source], vocabulary: Vocabulary, memo: dict | None = None, workers: int = 1
) -> tuple[list[LoadedEntry], list[Problem]]:
    """Validate every source independently and return the good ones plus all problems found.

    With a memo (kept by a long-lived process), a file whose size and mtime did not change since
    the last call is not read again. Without one, the YAML is parsed on `workers` cores (the
    parsed data travels back cheaply; validated models would not).
    """
    if memo is not None:
        results = [_load_remembered(source, vocabulary, memo) for source in sources]
    else:
        documents = map_in_parts(_read_part, sources, len(sources), workers)
        results = [_validated(source, read, vocabulary) for source, read in zip(sources, documents, strict=True)]
    loaded = [entry for entry, _ in results if entry is not None]
    return loaded, [problem for _, found in results for problem in found]


def _read_part(sources: list[Source], start: int, stop: int) -> list[Document | Problem]:
    return [_read(source) for source in sources[start:stop]]


def _load_remembered(source: Source, vocabulary: Vocabulary, memo: dict) -> tuple[LoadedEntry | None, list[Problem]]:
    try:
        info = source.path.stat()
        key = (source.shown, info.st_size, info.st_mtime_ns)
    except OSError:
        return load_entry(source, vocabulary)
    if key not in memo:
        memo[key] = load_entry(source, vocabulary)
    return memo[key]


def load_entry(source: Source, vocabulary: Vocabulary) -> tuple[LoadedEntry | None, list[Problem]]:
    return _validated(source, _read(source), vocabulary)


def _read(source: Source) -> Document | Problem:
    """The parsed file, or the problem that stopped it from being parsed."""
    try:
        return read_document(source.path.read_bytes())
    except DocumentError as error:
        return Problem(source.shown, error.line, error.col, error.field, error.message)
    except OSError as error:
        return Problem(source.shown, 1, 1, "", f"cannot read file: {error.strerror}")


def _validated(
    source: Source, document: Document | Problem, vocabulary: Vocabulary
) -> tuple[LoadedEntry | None, list[Problem]]:
    if isinstance(document, Problem):
        return None, [document]
    placeholders = [
        Problem(
            source.shown, *document.position(loc), _dotted(loc), "placeholder from `trainwreck new` is not filled in"
        )
        for loc in (_placeholders(document.data, ()) if "TODO" in document.text else ())
    ]
    try:
        entry = Entry.model_validate(document.data, context={"vocabulary": vocabulary})
    except ValidationError as error:
        return None, placeholders + [_problem(source, document, detail) for detail in error.errors(include_url=False)]
    problems = placeholders + _path_problems(source, document, entry)
    return (None if problems else LoadedEntry(entry, source, document.without_data())), problems


def _placeholders(data: object, loc: tuple) -> list[tuple]:
    """Where the scaffold's TODO markers are still present."""
    if isinstance(data, dict):
        return [found for key, value in data.items() for found in _placeholders(value, (*loc, key))]
    if isinstance(data, list):
        return [found for index, value in enumerate(data) for found in _placeholders(value, (*loc, index))]
    if isinstance(data, str) and PLACEHOLDER.search(data):
        return [loc]
    return []


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
