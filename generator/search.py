"""Catalog → search/entries.json: one short search document per entry.

Entry pages are kept out of the theme's search plugin (it would parse every page's HTML and
index whole sections). Instead each entry gets one document built from its data: the title,
the summary, every symptom string and the fix in one line, since pasted error text is what people search with.
The site's search worker (site_overrides/assets/search/worker.js) loads these next to the
theme's index of the hand-written pages.
"""

from __future__ import annotations

import html
from collections.abc import MutableMapping

from generator import markdown
from generator.catalog import Catalog
from generator.pages import entry_url
from generator.schema import Entry

SEARCH_DOCS = "search/entries.json"
SUMMARY_CHARS = 300  # what a result shows; keeps the index near 1 KB per entry


def search_documents(catalog: Catalog, memo: MutableMapping | None = None) -> dict:
    """Search documents of every entry, in the theme's format (title and text are HTML).

    With a memo (kept by a long-lived process), the document of an unchanged entry is reused."""
    docs = []
    for entry in catalog.entries:
        key = ("search", catalog.source_of(entry.id).document.text)
        doc = memo.get(key) if memo is not None else None
        if doc is None:
            doc = search_document(entry, entry_url(entry.id))
            if memo is not None:
                memo[key] = doc
        docs.append(doc)
    return {"docs": docs}


def search_document(entry: Entry, location: str) -> dict:
    """Title, summary, symptom strings and the fix in one line; aliases make old ids findable too."""
    parts = [_html_of(markdown.shortened(entry.summary, SUMMARY_CHARS))]
    parts += [_html_of(symptom.text) if not symptom.verbatim else _code(symptom.text) for symptom in entry.symptoms]
    parts.append(_html_of(entry.fix.summary))
    if entry.aliases:
        parts.append(_code(" ".join(entry.aliases)))
    return {
        "location": location,
        "title": html.escape(" ".join(entry.title.split()), quote=False),
        "text": " ".join(parts),
    }


def _html_of(markdown_text: str) -> str:
    """Entry Markdown as short HTML: code spans kept, links and emphasis reduced to their text."""
    pieces = markdown.plain_pieces(markdown_text)
    return "".join(_code(piece) if index % 2 else html.escape(piece, quote=False) for index, piece in enumerate(pieces))


def _code(text: str) -> str:
    return f"<code>{html.escape(' '.join(text.split()), quote=False)}</code>"
