"""Untrusted YAML text → plain data plus the line and column of every field.

Entries come from strangers' pull requests, so the reader refuses what an entry never needs
and what can hurt: anchors and aliases (the "billion laughs"), explicit tags (`!!python/...`),
duplicate keys (YAML silently keeps the last), huge files and deep nesting. It uses PyYAML's
C safe loader and checks the event stream before anything is constructed.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import NamedTuple

import yaml

from generator.errors import Problem

MAX_BYTES = 1_000_000
NODE_PROPERTY = re.compile(r"[&*!]")
LINE_START_BEFORE_NODE = re.compile(r"[ \t]*(?:---[ \t]+)?(?:-[ \t]+)*")
MAX_DEPTH = 20
STR_TAG = "tag:yaml.org,2002:str"
Loc = tuple[str | int, ...]


class DocumentError(Exception):
    """A problem located at a line and column (1-based) of the document."""

    def __init__(self, line: int, col: int, message: str, field: str = ""):
        super().__init__(message)
        self.line, self.col, self.message, self.field = line, col, message, field

    def problem(self, shown: str) -> Problem:
        """The same problem, reported for the file shown as `shown`."""
        return Problem(shown, self.line, self.col, self.field, self.message)


class Document:
    """Parsed data plus the text it came from. Positions are worked out only when asked for:
    they are needed only to report a problem, and keeping them for 10,000 valid entries would
    cost more time and memory than parsing."""

    def __init__(
        self,
        data: object,
        text: str | None = None,
        *,
        raw: bytes | None = None,
        cut_values: list[DocumentError] | None = None,
    ):
        self.data, self._text, self._raw = data, text, raw
        # Unquoted values that a ` #` cut short: reported with the entry's other problems.
        self.cut_values: list[DocumentError] = cut_values or []
        self._positions: dict[Loc, tuple[int, int]] | None = None

    @classmethod
    def unparsed(cls, raw: bytes) -> Document:
        """A document known to be valid UTF-8 YAML (it was parsed before), kept as bytes:
        decoding 10,000 files that are rarely looked at again took half a second."""
        return cls(None, raw=raw)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._raw.decode("utf-8")
        return self._text

    @property
    def raw(self) -> bytes:
        """The document's bytes: what a memo keys it by, without decoding it again."""
        if self._raw is None:
            self._raw = self._text.encode("utf-8")
        return self._raw

    def without_data(self) -> Document:
        """The same document holding only its bytes: once validated, neither the data nor the
        decoded text is needed (the text is decoded again to locate a problem), and 10,000 parsed
        trees would take hundreds of megabytes, their decoded texts 40% more than their bytes."""
        return Document(None, raw=self.raw)

    def position(self, loc: Loc) -> tuple[int, int]:
        """Line and column of the node at `loc`, or of its nearest ancestor that exists."""
        if self._positions is None:
            self._positions = _positions_of(self.text)
        while loc not in self._positions and loc:
            loc = loc[:-1]
        return self._positions.get(loc, (1, 1))


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
    if _may_have_anchor_or_tag(text):
        _check_events(text)
    with _parsed(text) as loader:
        source = _Source.of(text)
        data = _value(loader.get_single_node(), (), loader, 0, source, -1)
    if not isinstance(data, dict):
        raise DocumentError(1, 1, f"the document must be a mapping of fields, not a {_kind(data)}")
    return Document(data, text, raw=raw, cut_values=source.cuts)


@contextmanager
def _parsed(text: str):
    """A C safe loader over `text`; YAML errors come out as located DocumentErrors."""
    loader = yaml.CSafeLoader(text)
    try:
        yield loader
    except yaml.MarkedYAMLError as error:
        raise _located(error, text) from None
    except yaml.reader.ReaderError as error:
        raise _unreadable(error, text) from None
    except yaml.YAMLError as error:
        raise DocumentError(1, 1, f"YAML error: {error}") from None
    finally:
        loader.dispose()


def _may_have_anchor_or_tag(text: str) -> bool:
    """Could `text` hold an `&anchor`, `*alias` or `!tag`? Those start only where a node can:
    after the indentation, "--- " or "- " at the start of a line, after ":" or "?", or after a
    flow "[", "{" or ",". Text without any such spot skips the (slower) event scan."""
    for found in NODE_PROPERTY.finditer(text):
        line_start = text.rfind("\n", 0, found.start()) + 1
        before = text[line_start : found.start()]
        if LINE_START_BEFORE_NODE.fullmatch(before) or before.rstrip(" \t").endswith((":", "?", "[", "{", ",")):
            return True
    return False


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


class _Source(NamedTuple):
    """The text being read, and the lines (0-based) on which a value could end just before a
    comment: the lines that hold one and the lines above them. Most values end on no such line,
    which spares them the closer look of `_comment_cutting`."""

    text: str
    before_comment: frozenset[int]
    cuts: list[DocumentError]

    @classmethod
    def of(cls, text: str) -> _Source:
        lines, line, counted = set(), 0, 0
        at = text.find("#")
        while at >= 0:
            if at == 0 or text[at - 1] in " \t\n":  # where YAML starts a comment
                line, counted = line + text.count("\n", counted, at), at
                lines.update((line - 1, line))
            at = text.find("#", at + 1)
        return cls(text, frozenset(lines), [])


def _value(node: yaml.Node, loc: Loc, loader: yaml.CSafeLoader, depth: int, source: _Source, owner: int) -> object:
    """Plain data from the node tree; refuses duplicate keys, non-string keys and deep nesting,
    and notes in `source.cuts` the unquoted values that a ` #` cut short. `owner` is the column
    of the key or `-` that holds `node`."""
    if depth > MAX_DEPTH:
        raise DocumentError(*_start(node), f"nesting deeper than {MAX_DEPTH} levels")
    if isinstance(node, yaml.MappingNode):
        data: dict[str, object] = {}
        for key_node, value_node in node.value:
            key = _key(key_node, loc)
            if key in data:
                first = next(k for k, _ in node.value if k.value == key)
                raise DocumentError(
                    *_start(key_node),
                    f"duplicate key {key!r} (first on line {_start(first)[0]})",
                    _dotted((*loc, key)),
                )
            data[key] = _value(value_node, (*loc, key), loader, depth + 1, source, key_node.start_mark.column)
        return data
    if isinstance(node, yaml.SequenceNode):
        column = node.start_mark.column
        return [_value(item, (*loc, index), loader, depth + 1, source, column) for index, item in enumerate(node.value)]
    if (
        not node.style
        and node.end_mark.line in source.before_comment
        and (comment := _comment_cutting(node, source.text, owner))
    ):
        source.cuts.append(
            DocumentError(
                *comment,
                "this unquoted value ends where ' #' starts a YAML comment, and the rest of the text is dropped;"
                " put the value in quotes (or a comment on a line of its own, at the key's indentation)",
                _dotted(loc),
            )
        )
    # Plain and quoted strings are most of an entry; other scalars go through the constructor.
    return node.value if node.tag == STR_TAG else loader.construct_object(node)


def _comment_cutting(node: yaml.ScalarNode, text: str, owner: int) -> tuple[int, int] | None:
    """Line and column of a comment that cuts a plain value short: one right after the value on
    its line (`note: fixed in PR #123`), or one on the next line indented like the value's
    continuation. A contributor meant both as text: YAML drops them without a word."""
    end = node.end_mark.index
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    rest = text[end:line_end]
    if rest.lstrip(" \t").startswith("#"):
        return node.end_mark.line + 1, node.end_mark.column + 1 + len(rest) - len(rest.lstrip(" \t"))
    next_end = text.find("\n", line_end + 1)
    next_line = text[line_end + 1 : len(text) if next_end < 0 else next_end]
    indent = len(next_line) - len(next_line.lstrip(" "))
    if next_line[indent : indent + 1] == "#" and indent > owner:
        return node.end_mark.line + 2, indent + 1
    return None


def _key(node: yaml.Node, loc: Loc) -> str:
    if not isinstance(node, yaml.ScalarNode) or node.tag != STR_TAG:
        raise DocumentError(*_start(node), "keys must be plain strings", _dotted(loc))
    return node.value


def _positions_of(text: str) -> dict[Loc, tuple[int, int]]:
    """Where every value (and, under "__key__", every key) starts, for text read_document accepted."""
    positions: dict[Loc, tuple[int, int]] = {}

    def visit(node: yaml.Node, loc: Loc) -> None:
        positions[loc] = _start(node)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                positions[(*loc, key_node.value, "__key__")] = _start(key_node)
                visit(value_node, (*loc, key_node.value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                visit(item, (*loc, index))

    with _parsed(text) as loader:
        visit(loader.get_single_node(), ())
    return positions


def _start(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


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
