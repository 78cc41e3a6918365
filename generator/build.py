"""The spine: entries → catalog → pages → files on disk. Everything is checked before anything is written."""

from __future__ import annotations

from generator.catalog import Catalog, build_catalog
from generator.entries import load_entries
from generator.errors import ProblemsFound
from generator.settings import Settings
from generator.sources import find_sources
from generator.vocabulary import load_vocabulary


def load_catalog(settings: Settings) -> Catalog:
    """Read and check every entry; raise ProblemsFound with all problems of all files at once."""
    # Vocabulary first: every entry is checked against it.
    vocabulary = load_vocabulary(settings.vocab_dir, settings.root)
    # Each file on its own: syntax, schema, id = file name. All files, all problems.
    sources, problems = find_sources(settings.entries_dir, settings.root)
    loaded, entry_problems = load_entries(sources, vocabulary)
    problems += entry_problems
    if problems:
        raise ProblemsFound(problems)
    # Across files: unique ids and aliases, links that resolve.
    catalog, problems = build_catalog(loaded, vocabulary)
    if problems:
        raise ProblemsFound(problems)
    return catalog
