"""Search documents: a short text to show, and every other wording still findable."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from conftest import fixture_text, write_entry

from generator import markdown
from generator.build import load_catalog, search_separator
from generator.errors import ProblemsFound
from generator.search import SUMMARY_CHARS, _code, _html_of, _worker_words, search_document
from generator.settings import settings_for

REPO = Path(__file__).resolve().parents[1]
WORDINGS = """\
symptoms:
  - text: Other ranks stop with NCCL watchdog timeouts a few minutes later
    verbatim: false
    meaning: They wait in a collective for the rank that died.
  - text: "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    meaning: The allocation that failed, and how big it was.
  - text: "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 14.75 GiB total capacity)"
    meaning: The same error in PyTorch before 2.1.
"""


def test_a_document_shows_the_first_verbatim_error_and_keeps_only_new_words_of_the_others(repo):
    text = fixture_text("memory", "cuda-oom")
    start, end = text.index("symptoms:"), text.index("affected:")
    write_entry(repo, "memory", "cuda-oom", text[:start] + WORDINGS + text[end:])
    entry = next(entry for entry in load_catalog(repo).entries if entry.id == "cuda-oom")

    document = search_document(entry, "entries/cuda-oom/", search_separator(repo))

    assert document["text"] == (
        "The caching allocator cannot find a free block for a new tensor and raises an out-of-memory error. "
        "<code>torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.</code> "
        "Lower the per-GPU batch size and use gradient accumulation to keep the effective batch."
    )
    # The other wordings' words that the text lacks, once each, lowercased as the worker reads them.
    assert document["words"] == (
        "other ranks stop with nccl watchdog timeouts few minutes later runtimeerror 20.00 mib 0 14.75 total capacity"
    )


def test_former_ids_are_findable_and_a_document_without_new_words_has_none(repo):
    text = fixture_text("distributed", "nccl-watchdog-timeout").replace(
        "aliases: [nccl-timeout]", "aliases: [nccl-timeout, allreduce-hang]"
    )
    write_entry(repo, "distributed", "nccl-watchdog-timeout", text)
    separator = search_separator(repo)
    documents = {entry.id: search_document(entry, "", separator) for entry in load_catalog(repo).entries}
    # "nccl", "timeout" and "allreduce" (from OpType=ALLREDUCE) are in its text already.
    assert documents["nccl-watchdog-timeout"]["words"] == "hang"
    assert "words" not in documents["cuda-illegal-memory-access"]


def test_text_and_words_hold_the_same_words_as_every_symptom_of_every_real_entry():
    """Word for word what the full document (summary, every symptom, fix, aliases, as HTML) holds,
    as the worker cuts it: Unicode-aware and lowercased, with the separator from mkdocs.yml."""
    settings = settings_for(REPO)
    separator = search_separator(settings)
    worker_separator = re.compile(separator.pattern)
    for entry in load_catalog(settings, workers=2).entries:
        document = search_document(entry, "", separator)
        full = [_html_of(markdown.shortened(entry.summary, SUMMARY_CHARS)), _html_of(entry.fix.summary)]
        full += [_code(symptom.text) if symptom.verbatim else _html_of(symptom.text) for symptom in entry.symptoms]
        full += [_code(alias) for alias in entry.aliases]
        expected = _words(" ".join(full), worker_separator)
        assert _words(document["text"] + " " + document.get("words", ""), worker_separator) == expected, entry.id


def test_words_are_cut_as_the_worker_cuts_them_and_a_piece_beyond_ascii_is_kept_whole():
    separator = search_separator(settings_for(REPO))
    html_text = "CUDA→OOM at x.5 <code>a/b</code> “quoted” end. x.→y &lt;init&gt; é&amp;b"
    assert _worker_words(html_text, separator) == [
        "CUDA→OOM",
        "at",
        "x.5",
        "a",
        "b",
        "“quoted”",
        "end",
        "x.→y",
        "init",
        "é&b",
    ]
    assert _worker_words("Plain ASCII: cudaErrorNoDevice.", separator) == ["plain", "ascii", "cudaerrornodevice"]


@pytest.mark.parametrize(
    ("separator", "message"),
    [
        ("'[\\-_]+'", "must match a space, which separates words in the search data"),
        ("'[\\s'", "not a regular expression (unterminated character set at position 0)"),
    ],
)
def test_a_separator_the_search_data_cannot_use_is_refused_where_it_is_set(repo, separator, message):
    config = repo.mkdocs_config.read_text(encoding="utf-8")
    line = re.search(r"^ +separator: .*$", config, re.MULTILINE).group()
    repo.mkdocs_config.write_text(config.replace(line, f"      separator: {separator}"), encoding="utf-8")
    with pytest.raises(ProblemsFound) as caught:
        search_separator(repo)
    assert [str(problem) for problem in caught.value.problems] == [
        f"mkdocs.yml:37:18: plugins.search.separator: {message}"
    ]


def _words(html_text: str, separator: re.Pattern) -> set[str]:
    text = html.unescape(re.sub(r"<[^>]*>", " ", html_text)).lower()
    return {word for word in separator.split(text) if word}
