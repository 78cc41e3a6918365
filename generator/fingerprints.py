"""Catalog → FingerprintSet: the one pattern file both diagnose engines read (site/api/fingerprints.json).

Everything an engine needs is precomputed here (regex source, anchor, specificity), so the
Python and JavaScript engines only follow the same steps; neither interprets the dialect.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import MutableMapping, Sequence
from functools import cache
from pathlib import Path

from generator import dialect
from generator.catalog import Catalog
from generator.diagnose import Matcher, fingerprints_hit, split_lines
from generator.entries import LoadedEntry
from generator.errors import Problem
from generator.parallel import map_in_parts
from generator.schema import Entry, Fingerprint

SCHEMA_VERSION = 4
ERROR_HINTS_FILE = Path(__file__).with_name("error_hints.json")
LOG_PREFIXES_FILE = Path(__file__).with_name("log_prefixes.json")


def compile_fingerprints(entries: Sequence[Entry]) -> dict:
    """The fingerprint set as plain data, entries sorted by id, with a hash of its content."""
    return fingerprint_set([entry_fingerprints(entry) for entry in sorted(entries, key=lambda entry: entry.id)])


def fingerprint_set(compiled: list[dict]) -> dict:
    """The set of these compiled entries (`entry_fingerprints`, in id order), with a hash of its
    content. A caller may keep each entry's part from one build to the next."""
    body = {
        "schema_version": SCHEMA_VERSION,
        "error_hints": _data_file(ERROR_HINTS_FILE),
        "log_prefixes": _data_file(LOG_PREFIXES_FILE),
        "size_units": dict(dialect.SIZE_UNITS),
        "entries": compiled,
    }
    digest = hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()
    return {**body, "hash": digest[:16]}


@cache
def _read_data_file(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _data_file(path: Path) -> object:
    """A fresh copy of a shared data file (read once per process; callers may mutate the copy)."""
    return json.loads(_read_data_file(path))


def entry_fingerprints(entry: Entry) -> dict:
    """One entry's part of the fingerprint set: its patterns ready for both engines."""
    diagnose = entry.diagnose
    return {
        "id": entry.id,
        "title": entry.title,
        "url": f"entries/{entry.id}/",
        "fix": entry.fix.summary,
        "match": diagnose.match,
        "priority": diagnose.priority,
        "explains": sorted(diagnose.explains),
        "exclude": list(diagnose.exclude),
        "fingerprints": [_fingerprint(index, fp) for index, fp in enumerate(diagnose.fingerprints)],
    }


def _fingerprint(index: int, fp: Fingerprint) -> dict:
    if fp.kind == "contains":
        anchor, regex, specificity = fp.contains, None, len(fp.contains)
    elif fp.kind == "template":
        anchor = dialect.template_anchor(fp.template)
        regex = dialect.template_to_regex(fp.template)
        specificity = len(dialect.HOLE.sub("", fp.template))
    else:
        anchor, regex, specificity = fp.anchor, fp.regex, dialect.literal_length(fp.regex)
    return {
        "index": index,
        "kind": fp.kind,
        "pattern": fp.pattern,
        "role": fp.role,
        "anchor": anchor,
        "regex": regex,
        "exclude": list(fp.exclude),
        "requires_any": list(fp.requires_any),
        "size_at_least": None if fp.size_at_least is None else list(fp.size_at_least),
        "specificity": specificity,
    }


def example_problems(catalog: Catalog, memo: MutableMapping | None = None, workers: int = 1) -> list[Problem]:
    """Each entry's own examples must agree with its own fingerprints: `match` matches, `no_match`
    does not, and every fingerprint fires on one of the examples or verbatim symptoms.

    An entry that passed in an earlier build (see entry_cache) is not checked again. With a memo,
    neither is one whose content this process already checked; without one, the others are
    checked on `workers` cores.
    """
    unchecked = [item for item in catalog.loaded if not item.from_cache]
    if memo is None:
        return map_in_parts(_part_example_problems, unchecked, len(unchecked), workers)
    problems = []
    for item in unchecked:
        key = (item.source.shown, item.document.raw)
        if key not in memo:
            memo[key] = entry_example_problems(item)
        problems += memo[key]
    return problems


def _part_example_problems(loaded: Sequence[LoadedEntry], start: int, stop: int) -> list[Problem]:
    return [problem for item in loaded[start:stop] for problem in entry_example_problems(item)]


def entry_example_problems(item: LoadedEntry) -> list[Problem]:
    """One entry's examples against its own fingerprints, as `example_problems` checks each."""
    entry = item.entry
    alone = compile_fingerprints([entry])
    cases = [("match", index, text, True) for index, text in enumerate(entry.diagnose.examples.match)]
    cases += [("no_match", index, text, False) for index, text in enumerate(entry.diagnose.examples.no_match)]
    problems = []
    shown: set[tuple[str, int]] = set()
    for kind, index, text, expected in cases:
        matcher = Matcher(alone)
        matcher.feed_text(split_lines([text]))
        # A symptom fingerprint alone makes the entry a candidate, not a diagnosis: near-misses may hold one.
        found = any(match["id"] == entry.id and match["role"] == "root" for match in matcher.result()["matches"])
        if expected:
            shown |= matcher.fingerprints_hit()
        if found != expected:
            field = ("diagnose", "examples", kind, index)
            line, col = item.document.position(field)
            message = "no fingerprint matches this example" if expected else "the fingerprints match this near-miss"
            problems.append(Problem(item.source.shown, line, col, ".".join(map(str, field)), message))
    return problems + _unshown_fingerprint_problems(item, alone, shown)


def _unshown_fingerprint_problems(item: LoadedEntry, alone: dict, shown: set[tuple[str, int]]) -> list[Problem]:
    """Every fingerprint must fire on a line the entry itself quotes (an example or a verbatim
    symptom): one that nothing shows may never match real output, and no test would notice."""
    entry = item.entry
    keys = [(entry.id, index) for index in range(len(entry.diagnose.fingerprints))]
    if not shown.issuperset(keys):
        symptoms = "\n".join(symptom.text for symptom in entry.symptoms if symptom.verbatim)
        shown = shown | fingerprints_hit(symptoms, alone)
    problems = []
    for _, index in [key for key in keys if key not in shown]:
        field = ("diagnose", "fingerprints", index)
        line, col = item.document.position(field)
        message = "no example and no verbatim symptom shows this fingerprint: add a real excerpt that holds it"
        problems.append(Problem(item.source.shown, line, col, ".".join(map(str, field)), message))
    return problems


def canonical_json(data: object) -> str:
    """The exact bytes both engines produce: sorted keys, no spaces, non-ASCII kept."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
