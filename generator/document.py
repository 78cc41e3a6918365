"""Untrusted YAML text → plain data plus the line and column of every field.

Entries come from strangers' pull requests, so the reader refuses what an entry never needs
and what can hurt: anchors and aliases (the "billion laughs"), explicit tags (`!!python/...`),
duplicate keys (YAML silently keeps the last), huge files and deep nesting. It uses PyYAML's
C safe loader and checks the event stream before anything is constructed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

MAX_BYTES = 1_000_000
# `&anchor`, `*alias` and `!tag` can only start after a space, a line start or a flow indicator;
# text without any such spot cannot hold one, and skips the (slower) event scan.
MAY_HAVE_ANCHOR_OR_TAG = re.compile(r"(?:^|[\s\[{,])[&*!]", re.MULTILINE)
MAX_DEPTH = 20
Loc = tuple[str | int, ...]


class DocumentError(Exception):
    """A problem located at a line and column (1-based) of the document."""

    def __init__(self, line: int, col: int, message: str, field: str = ""):
        super().__init__(message)
        self.line, self.col, self.message, self.field = line, col, message, field


@dataclass(frozen=True)
class Document:
    data: object
    positions: dict[Loc, tuple[int, int]]

    def position(self, loc: Loc) -> tuple[int, int]:
        """Line and column of the node at `loc`, or of its nearest ancestor that exists."""
        while loc not in self.positions and loc:
            loc = loc[:-1]
        return self.positions.get(loc, (1, 1))


def read_document(raw: bytes) -> Document:
    """Parse one YAML document from bytes; raise DocumentError with a location on any problem."""
    if len(raw) > MAX_BYTES:
        raise DocumentError(1, 1, f"file is {len(raw):,} bytes; the limit is {MAX_BYTES:,}")
    if raw.startswith(b"\xef\xbb\xbf"):
        raise DocumentError(1, 1, "file starts with a byte-order mark; save it as UTF-8 without BOM")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        col = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise DocumentError(line, col, "file is not valid UTF-8") from None
    if not text.strip():
        raise DocumentError(1, 1, "file is empty")
    if MAY_HAVE_ANCHOR_OR_TAG.search(text):
        _check_events(text)
    try:
        loader = yaml.CSafeLoader(text)
        try:
            node = loader.get_single_node()
            positions: dict[Loc, tuple[int, int]] = {}
            _walk(node, (), positions, 0)
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as error:
        raise _located(error, text) from None
    except yaml.reader.ReaderError as error:
        raise _unreadable(error, text) from None
    except yaml.YAMLError as error:
        raise DocumentError(1, 1, f"YAML error: {error}") from None
    if not isinstance(data, dict):
        raise DocumentError(1, 1, f"the document must be a mapping of fields, not a {_kind(data)}")
    return Document(data, positions)


def _check_events(text: str) -> None:
    """Refuse anchors, aliases and explicit tags while streaming, before any node is built."""
    try:
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            mark = event.start_mark
            if isinstance(event, yaml.AliasEvent):
                raise DocumentError(mark.line + 1, mark.column + 1, "aliases (*name) are not allowed in entries")
            if getattr(event, "anchor", None) is not None:
                raise DocumentError(mark.line + 1, mark.column + 1, "anchors (&name) are not allowed in entries")
            tag = getattr(event, "tag", None)
            if tag is not None:
                raise DocumentError(mark.line + 1, mark.column + 1, f"explicit tags like {tag} are not allowed")
            if isinstance(event, yaml.DocumentStartEvent) and event.explicit and event.start_mark.line > 0:
                raise DocumentError(mark.line + 1, mark.column + 1, "a file must hold exactly one YAML document")
    except yaml.MarkedYAMLError as error:
        raise _located(error, text) from None
    except yaml.reader.ReaderError as error:
        raise _unreadable(error, text) from None


def _walk(node: yaml.Node, loc: Loc, positions: dict[Loc, tuple[int, int]], depth: int) -> None:
    """Record where every value starts; refuse duplicate keys, non-string keys and deep nesting."""
    positions[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if depth > MAX_DEPTH:
        raise DocumentError(*positions[loc], f"nesting deeper than {MAX_DEPTH} levels")
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            line, col = key_node.start_mark.line + 1, key_node.start_mark.column + 1
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                raise DocumentError(line, col, "keys must be plain strings", _dotted(loc))
            key = key_node.value
            if key in seen:
                raise DocumentError(
                    line, col, f"duplicate key {key!r} (first on line {seen[key]})", _dotted((*loc, key))
                )
            seen[key] = line
            positions[(*loc, key, "__key__")] = (line, col)
            _walk(value_node, (*loc, key), positions, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*loc, index), positions, depth + 1)


def _located(error: yaml.MarkedYAMLError, text: str) -> DocumentError:
    mark = error.problem_mark or error.context_mark
    message = " ".join(part for part in (error.context, error.problem) if part)
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    if mark and text[mark.index : mark.index + 1] == "\t":
        message += " (a tab; YAML indents with spaces only)"
    return DocumentError(line, col, f"YAML syntax error: {message}")


def _unreadable(error: yaml.reader.ReaderError, text: str) -> DocumentError:
    line = text.count("\n", 0, error.position) + 1
    col = error.position - (text.rfind("\n", 0, error.position) + 1) + 1
    character = chr(error.character) if isinstance(error.character, int) else error.character
    return DocumentError(line, col, f"character {character!r} is not allowed in YAML")


def _kind(data: object) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(data), type(data).__name__
    )


def _dotted(loc: Loc) -> str:
    return ".".join(str(part) for part in loc)
