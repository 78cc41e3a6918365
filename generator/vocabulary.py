"""The controlled vocabularies in entries/_vocab/: categories, severities, tags, systems.

Each is a YAML mapping of slug → {title, description} (systems may add `package`, the PyPI
name). Entries may only use listed slugs, and the index pages take their titles and descriptions
from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.document import DocumentError, read_document
from generator.errors import Problem, ProblemsFound

KINDS = ("categories", "severities", "tags", "systems")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
OPTIONAL_FIELDS = {"systems": ("package",)}
PACKAGE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")  # PyPI's rule for project names


@dataclass(frozen=True)
class Term:
    slug: str
    title: str
    description: str
    package: str | None = None  # systems only: the name on PyPI


@dataclass(frozen=True)
class Vocabulary:
    kinds: dict[str, dict[str, Term]]

    def terms(self, kind: str) -> dict[str, Term]:
        return self.kinds[kind]


def load_vocabulary(vocab_dir: Path, root: Path) -> Vocabulary:
    """Read every vocabulary file; raise ProblemsFound listing every malformed term."""
    problems: list[Problem] = []
    kinds: dict[str, dict[str, Term]] = {}
    for kind in KINDS:
        path = vocab_dir / f"{kind}.yml"
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        kinds[kind] = _read_terms(path, shown, OPTIONAL_FIELDS.get(kind, ()), problems)
    if problems:
        raise ProblemsFound(problems)
    return Vocabulary(kinds)


def _read_terms(path: Path, shown: str, optional: tuple[str, ...], problems: list[Problem]) -> dict[str, Term]:
    try:
        document = read_document(path.read_bytes())
    except FileNotFoundError:
        problems.append(Problem(shown, 1, 1, "", "vocabulary file is missing"))
        return {}
    except DocumentError as error:
        problems.append(error.problem(shown))
        return {}
    problems.extend(cut.problem(shown) for cut in document.cut_values)
    terms: dict[str, Term] = {}
    for slug, spec in document.data.items():
        line, col = document.position((slug, "__key__"))
        if not SLUG.match(str(slug)):
            problems.append(Problem(shown, line, col, str(slug), "slugs are lowercase ASCII words joined by '-'"))
            continue
        if (
            not isinstance(spec, dict)
            or not isinstance(spec.get("title"), str)
            or not isinstance(spec.get("description"), str)
        ):
            problems.append(Problem(shown, line, col, slug, "each term needs a `title` and a `description` string"))
            continue
        allowed = ("title", "description", *optional)
        if unknown := [str(key) for key in spec if key not in allowed]:
            problems.append(Problem(shown, line, col, slug, _unknown_fields_message(unknown, allowed)))
            continue
        package = spec.get("package")
        if package is not None and not (isinstance(package, str) and PACKAGE.match(package)):
            problems.append(Problem(shown, line, col, slug, "`package` is a PyPI project name, such as `flash-attn`"))
            continue
        terms[slug] = Term(slug, spec["title"].strip(), spec["description"].strip(), package)
    return terms


def _unknown_fields_message(unknown: list[str], allowed: tuple[str, ...]) -> str:
    # The usual way to get one: a comma inside an unquoted value of a {title: ..., description: ...}
    # mapping ends the value there, and the rest becomes a key of its own.
    fields = ", ".join(f"`{key}`" for key in unknown)
    known = ", ".join(f"`{key}`" for key in allowed)
    return f"unknown field {fields}; a term has {known} (quote a value that holds a comma)"
