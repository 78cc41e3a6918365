"""Validated entries → Catalog: ids resolved, links checked both ways, indexes by category, tag, system."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from generator.entries import LoadedEntry
from generator.errors import Problem
from generator.schema import Entry
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
    problems: list[Problem] = []
    by_id: dict[str, LoadedEntry] = {}
    claimed: dict[str, LoadedEntry] = {}
    for item in sorted(loaded, key=lambda item: item.entry.id):
        entry = item.entry
        for name, field in [(entry.id, ("id",))] + [(alias, ("aliases", i)) for i, alias in enumerate(entry.aliases)]:
            folded = name.casefold()
            if folded in claimed:
                other = claimed[folded]
                line, col = item.document.position(field)
                message = f"{name!r} is already used by {other.source.shown}"
                problems.append(Problem(item.source.shown, line, col, ".".join(map(str, field)), message))
            else:
                claimed[folded] = item
        by_id.setdefault(entry.id, item)
    for item in by_id.values():
        problems.extend(_dangling_links(item, by_id))
    if problems:
        return None, problems
    backlinks: dict[str, list[Backlink]] = defaultdict(list)
    for item in by_id.values():
        for link in item.entry.related:
            backlinks[link.id].append(Backlink(item.entry, link.why))
    ordered = tuple(sorted(by_id.values(), key=lambda item: item.entry.id))
    frozen = {key: tuple(sorted(value, key=lambda link: link.entry.id)) for key, value in backlinks.items()}
    entries = tuple(item.entry for item in ordered)
    return Catalog(ordered, entries, vocabulary, by_id, frozen, _members_by_term(entries)), []


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


def _dangling_links(item: LoadedEntry, by_id: dict[str, LoadedEntry]) -> list[Problem]:
    problems = []
    links = [(link.id, ("related", i, "id")) for i, link in enumerate(item.entry.related)]
    links += [(target, ("diagnose", "explains", i)) for i, target in enumerate(item.entry.diagnose.explains)]
    for target, field in links:
        if target not in by_id:
            line, col = item.document.position(field)
            problems.append(
                Problem(item.source.shown, line, col, ".".join(map(str, field)), f"no entry has id {target!r}")
            )
    return problems
