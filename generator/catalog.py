"""Validated entries → Catalog: ids resolved, links checked both ways, indexes by category, tag, system."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from generator.document import Document, Loc
from generator.entries import LoadedEntry
from generator.errors import Problem
from generator.schema import Entry
from generator.sources import Source
from generator.vocabulary import Vocabulary


@dataclass(frozen=True)
class Backlink:
    entry: Entry
    why: str


@dataclass(frozen=True)
class Catalog:
    """Every entry, queryable. Built once by `build_catalog`, never mutated afterwards."""

    loaded: tuple[LoadedEntry, ...]
    entries: tuple[Entry, ...]  # the entries of `loaded`, in the same (id) order
    vocabulary: Vocabulary
    _by_id: dict[str, LoadedEntry]
    _backlinks: dict[str, tuple[Backlink, ...]]
    # (field, term) → the entries with that term, in id order: one pass instead of one per term.
    _members: dict[tuple[str, str], tuple[Entry, ...]]

    def get(self, entry_id: str) -> Entry:
        return self._by_id[entry_id].entry

    def find(self, name: str) -> Entry | None:
        """An entry by id or by one of its former ids (aliases)."""
        if name in self._by_id:
            return self._by_id[name].entry
        return next((entry for entry in self.entries if name in entry.aliases), None)

    def source_of(self, entry_id: str) -> LoadedEntry:
        return self._by_id[entry_id]

    def in_category(self, category: str) -> list[Entry]:
        return list(self._members.get(("category", category), ()))

    def tagged(self, tag: str) -> list[Entry]:
        return list(self._members.get(("tag", tag), ()))

    def affecting(self, system: str) -> list[Entry]:
        return list(self._members.get(("system", system), ()))

    def with_severity(self, severity: str) -> list[Entry]:
        return list(self._members.get(("severity", severity), ()))

    def related(self, entry: Entry) -> list[tuple[Entry, str]]:
        return [(self.get(link.id), link.why) for link in entry.related]

    def backlinks(self, entry: Entry) -> list[Backlink]:
        """Entries that link here but are not already linked from here."""
        linked = {link.id for link in entry.related}
        return [link for link in self._backlinks.get(entry.id, ()) if link.entry.id not in linked]

    def newest(self, count: int) -> list[Entry]:
        return sorted(self.entries, key=lambda entry: (entry.created, entry.id), reverse=True)[:count]


def build_catalog(loaded: list[LoadedEntry], vocabulary: Vocabulary) -> tuple[Catalog | None, list[Problem]]:
    """Check what no single entry can check alone: unique ids and aliases, links that resolve."""
    ordered = tuple(sorted(loaded, key=lambda item: item.entry.id))
    problems = claim_problems([claims_of(item) for item in ordered])
    if problems:
        return None, problems
    by_id = {item.entry.id: item for item in ordered}
    backlinks: dict[str, list[Backlink]] = defaultdict(list)
    for item in ordered:
        for link in item.entry.related:
            backlinks[link.id].append(Backlink(item.entry, link.why))
    frozen = {key: tuple(sorted(value, key=lambda link: link.entry.id)) for key, value in backlinks.items()}
    entries = tuple(item.entry for item in ordered)
    return Catalog(ordered, entries, vocabulary, by_id, frozen, _members_by_term(entries)), []


@dataclass(frozen=True)
class Claims:
    """What the checks across files read of one entry: the names it claims and the ids it links
    to, each with its field. Small, so that a caller can check a corpus without keeping its entries
    (a diagnosis). Without a document, a problem is located by reading the file again."""

    id: str
    names: tuple[tuple[str, Loc], ...]
    links: tuple[tuple[str, Loc], ...]
    source: Source
    document: Document | None = None


def claims_of(item: LoadedEntry, keep_document: bool = True) -> Claims:
    entry = item.entry
    names = [(entry.id, ("id",))] + [(alias, ("aliases", i)) for i, alias in enumerate(entry.aliases)]
    links = [(link.id, ("related", i, "id")) for i, link in enumerate(entry.related)]
    links += [(target, ("diagnose", "explains", i)) for i, target in enumerate(entry.diagnose.explains)]
    return Claims(entry.id, tuple(names), tuple(links), item.source, item.document if keep_document else None)


def claim_problems(claims: list[Claims]) -> list[Problem]:
    """Every id and alias claimed once (case-insensitively), every link to an existing id. In id
    order, the first claim keeps a name and the later ones are the problems."""
    problems: list[Problem] = []
    claimed: dict[str, Claims] = {}
    first_by_id: dict[str, Claims] = {}
    for claim in sorted(claims, key=lambda claim: claim.id):
        for name, field in claim.names:
            if (folded := name.casefold()) in claimed:
                problems.append(_located(claim, field, f"{name!r} is already used by {claimed[folded].source.shown}"))
            else:
                claimed[folded] = claim
        first_by_id.setdefault(claim.id, claim)
    for claim in first_by_id.values():
        problems += [
            _located(claim, field, f"no entry has id {target!r}")
            for target, field in claim.links
            if target not in first_by_id
        ]
    return problems


def _located(claim: Claims, field: Loc, message: str) -> Problem:
    document = claim.document
    if document is None:
        try:
            document = Document.unparsed(claim.source.path.read_bytes())
        except OSError:
            document = Document.unparsed(b"")
    line, col = document.position(field)
    return Problem(claim.source.shown, line, col, ".".join(map(str, field)), message)


def _members_by_term(entries: tuple[Entry, ...]) -> dict[tuple[str, str], tuple[Entry, ...]]:
    members: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in entries:
        members[("category", entry.category)].append(entry)
        members[("severity", entry.severity)].append(entry)
        for tag in dict.fromkeys(entry.tags):
            members[("tag", tag)].append(entry)
        for system in dict.fromkeys(entry.affected.systems):
            members[("system", system)].append(entry)
    return {key: tuple(value) for key, value in members.items()}
