"""Catalog → search/entries.json: one short search document per entry.

Entry pages are kept out of the theme's search plugin (it would parse every page's HTML and
index whole sections). Instead each entry gets one document built from its data, since pasted
error text is what people search with. The result list shows a document's `text`: the start of
the summary, the entry's first verbatim error and the fix in one line. Every other wording of the
error (and each former id) must still be found, so `words` holds the words of those that the text
lacks, once each: the worker looks for each query word's presence, so a word held twice finds
and ranks nothing more, and most wordings differ from the first in a few words only. Words are
cut as the worker cuts them, with the site's search separator from mkdocs.yml.
The site's search worker (site_overrides/assets/search/worker.js) loads these next to the
theme's index of the hand-written pages, and searches `text` and `words` as one.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from generator import markdown
from generator.catalog import Catalog
from generator.entries import LoadedEntry
from generator.page_cache import DataMemo, memoized
from generator.pages import entry_url
from generator.schema import Entry

SEARCH_DOCS = "search/entries.json"
SUMMARY_CHARS = 300  # what a result shows; keeps the index near 1 KB per entry

# What the worker's plainText() does to a document's HTML before it looks for words.
WORKER_TAG = re.compile(r"<[^>]*>")
WORKER_ENTITY = re.compile(r"&(?:amp|quot|#39|lt|gt);")
WORKER_CHARACTER = {"&amp;": "&", "&quot;": '"', "&#39;": "'", "&lt;": "<", "&gt;": ">"}
# A piece between spaces (or at either end) that holds a character beyond ASCII.
NON_ASCII_PIECE = re.compile(r"(?<![^ ])([^ ]*[^\x00-\x7f][^ ]*)")


def search_documents(catalog: Catalog, separator: re.Pattern, memo: DataMemo | None = None) -> dict:
    """Search documents of every entry, in the theme's format (title and text are HTML).

    `separator` is the site's search separator (mkdocs.yml). With a memo (kept by a long-lived
    process, or on disk by earlier builds), the document of an unchanged entry file is reused."""
    docs = [
        memoized(
            memo,
            search_document_key(item, separator),
            lambda entry=item.entry: search_document(entry, entry_url(entry.id), separator),
        )
        for item in catalog.loaded
    ]
    return {"docs": docs}


def search_document_key(item: LoadedEntry, separator: re.Pattern) -> tuple:
    """An entry's search document is made from its file alone, cut into words with `separator`."""
    return ("search", separator.pattern, item.cache_key)


def search_document(entry: Entry, location: str, separator: re.Pattern) -> dict:
    """Title and a short text to show; `words` keeps the other error wordings and aliases findable."""
    symptoms = [_code(symptom.text) if symptom.verbatim else _html_of(symptom.text) for symptom in entry.symptoms]
    shown = next((number for number, symptom in enumerate(entry.symptoms) if symptom.verbatim), 0)
    text = " ".join(
        [_html_of(markdown.shortened(entry.summary, SUMMARY_CHARS)), symptoms[shown], _html_of(entry.fix.summary)]
    )
    hidden = [html_text for number, html_text in enumerate(symptoms) if number != shown]
    if entry.aliases:
        hidden.append(_code(" ".join(entry.aliases)))
    document = {
        "location": location,
        "title": html.escape(" ".join(entry.title.split()), quote=False),
        "text": text,
    }
    words = _words_missing_from(text, hidden, separator)
    if words:
        document["words"] = words
    return document


def _words_missing_from(shown: str, hidden: Iterable[str], separator: re.Pattern) -> str:
    """The words of the hidden HTML that the shown HTML lacks, each once, space-separated, escaped."""
    seen = set(_worker_words(shown, separator))
    missing = dict.fromkeys(word for word in _worker_words(" ".join(hidden), separator) if word not in seen)
    return html.escape(" ".join(missing), quote=False)


def _worker_words(html_text: str, separator: re.Pattern) -> list[str]:
    """The words the worker finds in this HTML.

    ASCII text is cut with the separator compiled with re.ASCII, which cuts ASCII text as the
    worker's RegExp does. A piece between spaces that holds any other character is kept whole: it
    holds the same words wherever it appears, so keeping it once loses none. The ASCII text between
    such pieces is cut in one go rather than piece by piece, which gives the same words because the
    separator cuts at spaces too, with far fewer calls."""
    text = WORKER_ENTITY.sub(lambda entity: WORKER_CHARACTER[entity.group()], WORKER_TAG.sub(" ", html_text))
    words = []
    for number, part in enumerate(NON_ASCII_PIECE.split(text)):
        if number % 2:
            words.append(part)
        else:
            words += filter(None, separator.split(part.lower()))
    return words


def _html_of(markdown_text: str) -> str:
    """Entry Markdown as short HTML: code spans kept, links and emphasis reduced to their text."""
    pieces = markdown.plain_pieces(markdown_text)
    return "".join(_code(piece) if index % 2 else html.escape(piece, quote=False) for index, piece in enumerate(pieces))


def _code(text: str) -> str:
    return f"<code>{html.escape(' '.join(text.split()), quote=False)}</code>"
