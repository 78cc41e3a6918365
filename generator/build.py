"""The spine: entries → catalog → pages → files on disk. Everything is checked before anything is written."""

from __future__ import annotations

import gc
import re
from collections.abc import Hashable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import yaml
from jinja2 import Environment

from generator import freshness
from generator.catalog import Catalog, Claims, build_catalog, claim_problems, claims_of
from generator.document import Document
from generator.entries import LoadedEntry, load_entries, load_entry
from generator.entry_cache import EntryCache, open_cache, open_cache_on_disk
from generator.errors import Problem, ProblemsFound
from generator.fingerprints import (
    canonical_json,
    entry_example_problems,
    entry_fingerprints,
    example_problems,
    fingerprint_set,
)
from generator.history import last_updated
from generator.page_cache import DataMemo, StoredMemo, memoized, open_page_cache
from generator.pages import Page, SiteInfo, make_environment, render_pages, to_json
from generator.parallel import map_in_parts, worker_count
from generator.search import SEARCH_DOCS, search_document_key, search_documents
from generator.settings import Settings
from generator.sources import Source, find_sources
from generator.vocabulary import Vocabulary, load_vocabulary
from generator.writer import WriteReport, write_output

MKDOCS_SEPARATOR = r"[\s\-]+"  # the search plugin's default (in English)
FINGERPRINTS = "api/fingerprints.json"


@dataclass(frozen=True)
class BuildReport:
    entries: int
    pages: int
    write: WriteReport | None


class Recent(MutableMapping):
    """A memo that keeps only what the last successful build used. Each edit makes new keys
    (an entry's new text; after a title edit, a new set of listings). Without forgetting the old
    ones, the memo of a `mkdocs serve` session at 1,000 entries grew by 2.5 to 3 MB per title edit."""

    def __init__(self) -> None:
        self._values: dict = {}
        self._used: set = set()

    def __getitem__(self, key: Hashable) -> object:
        value = self._values[key]
        self._used.add(key)
        return value

    def __contains__(self, key: object) -> bool:
        if key in self._values:
            self._used.add(key)
            return True
        return False

    def __setitem__(self, key: Hashable, value: object) -> None:
        self._values[key] = value
        self._used.add(key)

    def __delitem__(self, key: Hashable) -> None:
        del self._values[key]

    def __iter__(self) -> Iterator:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keep(self, key: Hashable) -> None:
        """Count `key` as used, if it is here."""
        if key in self._values:
            self._used.add(key)

    def forget_unused(self) -> None:
        """Drop what no lookup or store touched since the last call."""
        self._values = {key: value for key, value in self._values.items() if key in self._used}
        self._used = set()


@dataclass
class Memo:
    """What a long-lived process (the `mkdocs serve` hook) keeps between builds, so that one
    edited entry is parsed, checked and rendered again, not all of them. Keyed by file stat and
    by content; cleared whenever vocabularies or templates change, and trimmed to what the last
    successful build used."""

    shared_inputs: str = ""
    entries: Recent = field(default_factory=Recent)
    examples: Recent = field(default_factory=Recent)
    pages: Recent = field(default_factory=Recent)
    written: dict = field(default_factory=dict)
    environment: Environment | None = None  # compiled templates

    def keep_if(self, shared_inputs: str) -> Memo:
        if shared_inputs != self.shared_inputs:
            self.shared_inputs, self.entries, self.examples, self.pages = shared_inputs, Recent(), Recent(), Recent()
            self.environment = None
        return self

    def forget_unused(self) -> None:
        """After a successful build (a failed one may not have reached every entry's pages)."""
        for remembered in (self.entries, self.examples, self.pages):
            remembered.forget_unused()


def load_catalog(
    settings: Settings, memo: Memo | None = None, workers: int = 1, cache: EntryCache | None = None
) -> Catalog:
    """Read and check every entry; raise ProblemsFound with all problems of all files at once.

    With a cache, entries that passed in an earlier build are not parsed or checked again, and
    when all pass, the cache is updated to hold exactly this catalog's entries."""
    # Vocabulary first: every entry is checked against it.
    vocabulary = load_vocabulary(settings.vocab_dir, settings.root)
    # Each file on its own: syntax, schema, id = file name. All files, all problems.
    sources, problems = find_sources(settings.entries_dir, settings.root)
    loaded, entry_problems = load_entries(sources, vocabulary, memo.entries if memo else None, workers, cache)
    problems += entry_problems
    if problems:
        raise ProblemsFound(problems)
    # Across files: unique ids and aliases, links that resolve.
    catalog, problems = build_catalog(loaded, vocabulary)
    if problems:
        raise ProblemsFound(problems)
    # Each entry's diagnose examples against its own fingerprints.
    problems = example_problems(catalog, memo.examples if memo else None, workers)
    if problems:
        raise ProblemsFound(problems)
    if cache is not None:
        cache.save(loaded)
    return catalog


def current_fingerprint_set(settings: Settings) -> dict:
    """The fingerprint set of the entries as they are now, for diagnosing a log.

    Every entry is checked as a build checks it (a broken entry is reported, not diagnosed with),
    on every core, but one at a time: of each, only its part of the set and its claims are kept,
    so the memory does not grow with the entries' text. Holding them all, the first diagnosis at
    1,414 entries peaked at 130 MB (168 MB with the entry cache), one at a time at 53 MB. Entries
    unchanged since the last build come from its cache, which is not updated."""
    with _no_cyclic_collection():
        return _current_fingerprint_set(settings)


@contextmanager
def _no_cyclic_collection() -> Iterator[None]:
    """Parsing and checking create millions of objects and no cycles; the cyclic collector, left
    on, would rescan the growing heap again and again (half the load time at 10,000 entries)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class CheckedForDiagnosis(NamedTuple):
    """What a diagnosis keeps of one entry file once it is checked."""

    problems: list[Problem]  # its own, as a build reports them
    unmatched_examples: list[Problem]  # its examples against its own fingerprints
    part: dict | None  # its part of the fingerprint set, if it passed
    claims: Claims | None  # what the checks across files need, if it passed


def _current_fingerprint_set(settings: Settings) -> dict:
    vocabulary = load_vocabulary(settings.vocab_dir, settings.root)
    sources, problems = find_sources(settings.entries_dir, settings.root)
    shared = (sources, vocabulary, open_cache_on_disk(settings))
    checked = map_in_parts(_part_for_diagnosis, shared, len(sources), worker_count())
    problems += [problem for item in checked for problem in item.problems]
    unmatched_examples = [problem for item in checked for problem in item.unmatched_examples]
    claims = [item.claims for item in checked if item.claims is not None]
    # In the order a build reports them: each file's own problems, then those across files.
    for found in (problems, claim_problems(claims), unmatched_examples):
        if found:
            raise ProblemsFound(found)
    return fingerprint_set(sorted((item.part for item in checked if item.part), key=lambda part: part["id"]))


def _part_for_diagnosis(
    shared: tuple[list[Source], Vocabulary, EntryCache], start: int, stop: int
) -> list[CheckedForDiagnosis]:
    sources, vocabulary, cache = shared
    return [_checked_for_diagnosis(source, vocabulary, cache) for source in sources[start:stop]]


def _checked_for_diagnosis(source: Source, vocabulary: Vocabulary, cache: EntryCache) -> CheckedForDiagnosis:
    item, found = load_entry(source, vocabulary, cache)
    if item is None:
        return CheckedForDiagnosis(found, [], None, None)
    unmatched_examples = [] if item.from_cache else entry_example_problems(item)
    part, claims = entry_fingerprints(item.entry), claims_of(item, keep_document=False)
    return CheckedForDiagnosis(found, unmatched_examples, part, claims)


def build(
    settings: Settings, *, write: bool = True, memo: Memo | None = None, stale_inputs: dict | None = None
) -> BuildReport:
    """Validate everything, render every page in memory, then write them all at once (or not at all).

    `stale_inputs` is the inputs stamp of a caller that already found the output out of date
    (the command line checks that before importing this module), so it is not checked twice."""
    with _no_cyclic_collection():
        return _build(settings, write=write, memo=memo, stale_inputs=stale_inputs)


def _build(settings: Settings, *, write: bool, memo: Memo | None, stale_inputs: dict | None) -> BuildReport:
    # 0. Nothing changed since the last build: nothing to do (unless an empty memo needs filling).
    if stale_inputs is not None:
        inputs = stale_inputs
    else:
        inputs = freshness.inputs_stamp(settings) if write else {}
        if write and (memo is None or memo.entries) and (counts := freshness.fresh_counts(settings, inputs)):
            return BuildReport(counts[0], counts[1], WriteReport(written=0, unchanged=counts[1], removed=0))
    if memo is not None:
        memo.keep_if(freshness.shared_inputs_stamp(settings))
    # 1. Entries → catalog. Raises with every problem before anything is rendered.
    # A long-lived process (mkdocs serve) keeps a memo and rebuilds little; others use every core.
    workers = 1 if memo is not None else worker_count()
    cache = None
    if memo is None:
        # A one-off build keeps what it checked for the next one (`--check` only reads the cache).
        cache = open_cache(settings, read_only=not write)
    elif not memo.entries:
        # The first build of a `mkdocs serve` session starts from what earlier builds checked.
        cache = open_cache(settings, read_only=True)
    catalog = load_catalog(settings, memo, workers, cache)
    # 2. Catalog → pages, in memory.
    mkdocs = read_mkdocs(settings)
    addresses = site_info(settings, mkdocs)
    separator = search_separator(settings, mkdocs)
    site = replace(addresses, last_updated=last_updated(settings.root))
    stored = None
    if memo is None:
        env, remembered = make_environment(settings.templates_dir), None
        # Entry pages of an earlier build whose inputs did not change are not rendered again.
        stored = open_page_cache(settings, cache.version, repr(addresses), read_only=not write)
    else:
        env = memo.environment = memo.environment or make_environment(settings.templates_dir)
        remembered = memo.pages
        if cache is not None:
            # The first build of a `mkdocs serve` session also starts from the pages earlier builds rendered.
            stored = open_page_cache(settings, cache.version, repr(addresses), read_only=True)

    # What is made from each entry file alone is kept by the memo, or else in the page cache.
    derived = remembered if remembered is not None else StoredMemo(stored) if stored is not None else None

    def catalog_pages() -> list[Page]:
        # The same entry files make the same two files: then they are read back whole.
        files = tuple(item.cache_key for item in catalog.loaded)
        fingerprints = memoized(
            derived,
            (FINGERPRINTS, files),
            lambda: fingerprints_json(catalog, derived),
            parts=[fingerprints_key(item) for item in catalog.loaded],
        )
        search = memoized(
            derived,
            (SEARCH_DOCS, separator.pattern, files),
            lambda: to_json(search_documents(catalog, separator, derived)),
            parts=[search_document_key(item, separator) for item in catalog.loaded],
        )
        return [Page(FINGERPRINTS, fingerprints), Page(SEARCH_DOCS, search)]

    pages = render_pages(
        catalog, env, site, remembered, workers, meanwhile=catalog_pages, stored=stored, derived=derived
    )
    # 3. Hand-written pages from docs/ join the generated ones.
    pages += static_pages(settings.docs_dir, {page.path for page in pages})
    if not write:
        return BuildReport(len(catalog.entries), len(pages), None)
    # 4. One atomic swap of the whole output folder, then a stamp of what produced it.
    report = write_output(pages, settings.generated_dir, memo.written if memo else None)
    if memo is not None:
        memo.forget_unused()
    if stored is not None:
        stored.save()
    freshness.record(settings, inputs, len(catalog.entries), len(pages))
    return BuildReport(len(catalog.entries), len(pages), report)


def fingerprints_json(catalog: Catalog, memo: DataMemo | None = None) -> str:
    """api/fingerprints.json, the pattern set both diagnose engines read. With a memo, an
    unchanged entry file's fingerprints are not compiled again."""
    compiled = [
        memoized(memo, fingerprints_key(item), lambda entry=item.entry: entry_fingerprints(entry))
        for item in catalog.loaded
    ]
    return canonical_json(fingerprint_set(compiled)) + "\n"


def fingerprints_key(item: LoadedEntry) -> tuple:
    return ("fingerprints", item.cache_key)


@dataclass(frozen=True)
class MkdocsFile:
    """mkdocs.yml, read and parsed once: its text locates a bad setting, its mapping holds the settings."""

    text: str
    config: dict


def read_mkdocs(settings: Settings) -> MkdocsFile:
    text = settings.mkdocs_config.read_text(encoding="utf-8")
    config = yaml.load(text, Loader=yaml.CSafeLoader)
    return MkdocsFile(text, config if isinstance(config, dict) else {})


def site_info(settings: Settings, mkdocs: MkdocsFile | None = None) -> SiteInfo:
    """Site and repository addresses, from the one place they are set: mkdocs.yml."""
    config = (mkdocs or read_mkdocs(settings)).config
    repo_url = str(config.get("repo_url", "")).rstrip("/")
    return SiteInfo(
        repo_url=repo_url,
        edit_base=f"{repo_url}/edit/main/",
        site_url=str(config.get("site_url", "")),
        new_issue_url=f"{repo_url}/issues/new?template=new-failure.yml",
    )


def search_separator(settings: Settings, mkdocs: MkdocsFile | None = None) -> re.Pattern:
    """The word separator of the site's search (mkdocs.yml, `plugins: - search: separator:`),
    for cutting the search documents into words as the search worker does."""
    mkdocs = mkdocs or read_mkdocs(settings)
    pattern, loc = MKDOCS_SEPARATOR, ("plugins",)
    for number, plugin in enumerate(mkdocs.config.get("plugins") or []):
        if isinstance(plugin, dict) and isinstance(plugin.get("search"), dict) and "separator" in plugin["search"]:
            pattern, loc = plugin["search"]["separator"], ("plugins", number, "search", "separator")
    try:
        separator = re.compile(str(pattern), re.ASCII)
    except re.error as error:
        message = f"not a regular expression ({error})"
    else:
        if separator.fullmatch(" "):
            return separator
        message = "must match a space, which separates words in the search data"
    line, col = Document(None, mkdocs.text).position(loc)
    path = settings.mkdocs_config.relative_to(settings.root).as_posix()
    raise ProblemsFound([Problem(path, line, col, "plugins.search.separator", message)])


def static_pages(docs_dir: Path, generated: set[str]) -> list[Page]:
    """Copies of the hand-written files in docs/; a name clash with a generated page is an error."""
    pages = []
    for path in sorted(docs_dir.rglob("*")):
        if path.is_file() and not path.is_symlink():
            relative = path.relative_to(docs_dir).as_posix()
            if relative in generated:
                raise ProblemsFound([_clash(relative)])
            pages.append(Page(relative, path.read_bytes()))
    return pages


def _clash(relative: str) -> Problem:
    return Problem(f"docs/{relative}", 1, 1, "", "this hand-written page has the path of a generated page; rename it")
