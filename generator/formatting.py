"""`trainwreck fmt`: rewrite entry files into the canonical layout, keeping every comment.

Canonical means: fields in the order the schema declares them (at every level the schema knows),
two-space indentation with list dashes indented under their key, plain and folded (>) text folded
afresh at 100 columns, the schema modeline first, one trailing newline. Formatting never changes
what the YAML means; a test round-trips every entry to prove it.

ruamel's round trip costs about 40 ms of CPU an entry (50 s for 1,200 entries), so the files are
formatted on every core, and the texts found canonical are remembered in build/ (git-ignored) by
their SHA-256: the next run formats only what changed since.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path

import ruamel.yaml
from pydantic import BaseModel
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, FoldedScalarString, SingleQuotedScalarString
from yaml import CSafeLoader, ScalarEvent
from yaml import load as yaml_safe_load
from yaml import parse as yaml_parse

from generator.entry_cache import checker_version
from generator.filetree import replace_file
from generator.parallel import map_in_parts
from generator.schema import Entry, model_of
from generator.settings import Settings

MODELINE = "# yaml-language-server: $schema=../entry.schema.json"
CACHE_NAME = ".trainwreck-fmt-cache"


def format_entry(text: str) -> str:
    """The canonical form of one entry's YAML text. Raises ruamel's errors on invalid YAML."""
    formatted = _canonical(text, single_quoted_backslashes=False)  # ruamel reports broken YAML first
    meaning = safe_load(text)
    if safe_load(formatted) != meaning:
        # ruamel can fold a double-quoted string right after an escaped backslash and drop the
        # escape that continues the line, so `\\.` comes back as `\\ .`. Single quotes need no
        # escapes, and ruamel folds them only at spaces.
        formatted = _canonical(text, single_quoted_backslashes=True)
    if safe_load(formatted) != meaning:
        raise FormattingError("formatting would change the entry's data; file left as it is")
    return formatted


def format_entries(texts: Sequence[str], workers: int) -> list[str | FormattingError]:
    """Each text's canonical form, or why it has none, formatted on `workers` cores."""
    return map_in_parts(_format_part, texts, len(texts), workers)


def _format_part(texts: Sequence[str], start: int, stop: int) -> list[str | FormattingError]:
    results: list[str | FormattingError] = []
    for text in texts[start:stop]:
        try:
            results.append(format_entry(text))
        except (YAMLError, FormattingError) as error:
            # Only the first line travels back from a worker: ruamel's errors do not unpickle.
            results.append(FormattingError(str(error).splitlines()[0]))
    return results


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def known_canonical(root: Path, version: str) -> set[str]:
    """Digests of the texts an earlier run of this same formatter (`version`) found canonical."""
    try:
        lines = (root / "build" / CACHE_NAME).read_text(encoding="ascii").split("\n")
    except (OSError, UnicodeDecodeError):
        return set()
    if lines[0] != version:
        return set()
    return {line for line in lines[1:] if len(line) == 64}


def remember_canonical(root: Path, version: str, digests: set[str]) -> None:
    """Keep `digests` for the next run; where build/ cannot be written, the next run formats every file."""
    text = "\n".join([version, *sorted(digests)]) + "\n"
    with contextlib.suppress(OSError):
        replace_file(root / "build" / CACHE_NAME, [text.encode("ascii")])


def formatter_version(settings: Settings) -> str:
    """The generator's code (the schema's field order among it), as the entry checker's version
    covers it, and the ruamel.yaml release that does the round trip."""
    return hashlib.sha256(f"{checker_version(settings)} ruamel.yaml {ruamel.yaml.__version__}".encode()).hexdigest()


def _canonical(text: str, single_quoted_backslashes: bool) -> str:
    yaml = _yaml()
    data = yaml.load(text)
    if isinstance(data, CommentedMap):
        _order(data, Entry)
    _restyle(data, single_quoted_backslashes)
    out = io.StringIO()
    yaml.dump(data, out)
    formatted = out.getvalue()
    if not formatted.startswith(MODELINE):
        formatted = f"{MODELINE}\n{formatted}"
    formatted = formatted.rstrip("\n") + "\n"
    # ruamel leaves a space before the line break where it folds plain text. Drop those, but
    # never inside a block scalar (| or >), where trailing spaces are content.
    return _strip_trailing_spaces(formatted)


def _restyle(node: object, single_quoted_backslashes: bool) -> None:
    """Folded (>) text forgets its old fold points: ruamel keeps the line breaks it was written
    with and adds its own where a line passes the width, which left one- or two-word lines behind
    after every edit; a line break in a folded scalar is only a space. With
    `single_quoted_backslashes`, double-quoted one-line text holding a backslash is single-quoted."""
    if isinstance(node, FoldedScalarString):
        node.fold_pos = []
    elif isinstance(node, CommentedMap | CommentedSeq):
        keys = node.keys() if isinstance(node, CommentedMap) else range(len(node))
        for key in keys:
            value = node[key]
            if single_quoted_backslashes and isinstance(value, DoubleQuotedScalarString) and _single_quotable(value):
                node[key] = SingleQuotedScalarString(value)
            else:
                _restyle(value, single_quoted_backslashes)


def _single_quotable(value: str) -> bool:
    return "\\" in value and value.isprintable()


def _attach_comments_to_following_keys(node: CommentedMap) -> None:
    """ruamel files full-line comments under the key above them; a comment describes the key below."""
    keys = list(node)
    for key, following in pairwise(keys):
        slot = node.ca.items.get(key)
        token = slot[2] if slot and len(slot) > 2 else None
        if token is None or "\n" not in token.value:
            continue
        same_line, _, rest = token.value.partition("\n")
        lines = [line.strip() for line in rest.split("\n") if line.strip().startswith("#")]
        if not lines:
            continue
        token.value = same_line + "\n"
        before = "\n".join(line[1:].lstrip() if line.startswith("# ") or line == "#" else line[1:] for line in lines)
        node.yaml_set_comment_before_after_key(following, before=before, indent=_column(node))


def _column(node: CommentedMap) -> int:
    return node.lc.col if node.lc.col is not None else 0


def _strip_trailing_spaces(text: str) -> str:
    keep: set[int] = set()
    for event in yaml_parse(text, Loader=CSafeLoader):
        if isinstance(event, ScalarEvent) and event.style in ("|", ">"):
            last = event.end_mark.line if event.end_mark.column == 0 else event.end_mark.line + 1
            keep.update(range(event.start_mark.line, last))
    lines = text.split("\n")
    return "\n".join(line if number in keep else line.rstrip() for number, line in enumerate(lines))


class FormattingError(ValueError):
    """The canonical layout could not be produced without changing the data."""


def safe_load(text: str) -> object:
    return yaml_safe_load(text, Loader=CSafeLoader)


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 100
    yaml.preserve_quotes = True
    yaml.allow_duplicate_keys = False
    return yaml


def _order(node: CommentedMap, model: type[BaseModel]) -> None:
    """Reorder keys to the model's field order (unknown keys keep their place at the end)."""
    _attach_comments_to_following_keys(node)
    fields = list(model.model_fields)
    for key in [k for k in fields if k in node] + [k for k in node if k not in fields]:
        node.move_to_end(key)
    for key, value in node.items():
        field = model.model_fields.get(key)
        inner = model_of(field.annotation) if field else None
        if inner is None:
            continue
        if isinstance(value, CommentedMap):
            _order(value, inner)
        elif isinstance(value, CommentedSeq):
            for item in value:
                if isinstance(item, CommentedMap):
                    _order(item, inner)
