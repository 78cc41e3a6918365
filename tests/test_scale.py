"""Scale properties that do not depend on timing (the timings themselves are in benchmarks/)."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from conftest import REPO, load_script
from test_site import broken_links, mkdocs_build

from generator.build import build
from generator.pages import LISTING_PAGE_SIZE
from generator.settings import settings_for

make_corpus = load_script(REPO / "benchmarks" / "make_corpus.py").make_corpus

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    built = {}
    for count in (30, 300):
        settings = settings_for(make_corpus(count, tmp_path_factory.mktemp("scale") / f"corpus-{count}"))
        first = build(settings)
        assert first.write.written > count
        second = build(settings)
        assert (second.write.written, second.write.removed) == (0, 0), "a no-op rerun must write nothing"
        result = mkdocs_build(settings)
        assert result.returncode == 0, result.stderr[-2000:]
        built[count] = settings.site_dir
    return built


def test_entry_pages_do_not_grow_with_the_corpus(sites):
    small = (sites[30] / "entries" / "synthetic-00000" / "index.html").stat().st_size
    large = (sites[300] / "entries" / "synthetic-00000" / "index.html").stat().st_size
    assert large <= small * 1.05, (small, large)


def test_entry_page_shell_stays_small(sites):
    """The theme's markup around an entry's article is paid 10,000 times: no blank-line runs
    from its template tags, no colour toggle for a single scheme, about 16 KB in all."""
    html = (sites[300] / "entries" / "synthetic-00150" / "index.html").read_text(encoding="utf-8")
    article = html.split("<article", 1)[1].split("</article>", 1)[0]
    jsonld = html.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0]
    assert "\n\n\n" not in html.replace(article, "")
    assert 'data-md-component="palette"' not in html
    assert "Font Awesome" not in html
    assert len(html) - len(article) - len(jsonld) < 18_000


def test_long_listings_are_split_into_pages_whose_links_resolve(sites):
    """A listing never grows past one page's worth of rows: 10,000 rows took 6 s to open."""
    site = sites[300]
    first = (site / "all" / "index.html").read_text(encoding="utf-8")
    second = (site / "all" / "2" / "index.html").read_text(encoding="utf-8")
    rows = [re.findall(r'<tr><td><a href="[./]*entries/([^/"]+)/"', page) for page in (first, second)]
    assert [len(found) for found in rows] == [LISTING_PAGE_SIZE, 300 - LISTING_PAGE_SIZE]
    assert not (site / "all" / "3").exists()
    assert sorted(rows[0] + rows[1]) == [f"synthetic-{number:05d}" for number in range(300)]
    for page in site.glob("*/**/index.html"):
        if not page.is_relative_to(site / "entries"):
            assert page.read_text(encoding="utf-8").count("<tr><td>") <= LISTING_PAGE_SIZE, page
    broken, checked = broken_links(site)
    assert broken == [] and checked > 50 * 300


def test_nav_lists_no_entries(sites):
    html = (sites[300] / "entries" / "synthetic-00150" / "index.html").read_text(encoding="utf-8")
    nav = html.split('<nav class="md-nav md-nav--primary"', 1)[1].split("</nav>", 1)[0]
    assert "synthetic-" not in nav


def test_one_edit_rewrites_only_the_pages_that_show_it(tmp_path):
    settings = settings_for(make_corpus(60, tmp_path / "corpus"))
    build(settings)
    path = next(settings.entries_dir.glob("*/synthetic-00007.yaml"))
    entry = yaml.safe_load(path.read_text(encoding="utf-8"))
    entry["observe"][0] = "Edited. " + entry["observe"][0]
    path.write_text(yaml.safe_dump(entry, sort_keys=False, allow_unicode=True), encoding="utf-8")
    report = build(settings)
    assert 1 <= report.write.written <= 2, report  # the entry page and its JSON export


def test_search_data_grows_only_by_one_small_document_per_entry(sites):
    """Entry N copies the same real entry in both corpora, so its document must be the same size,
    and the file must be little more than its documents."""
    files = {count: (site / "search" / "entries.json").read_bytes() for count, site in sites.items()}
    sizes = {count: _search_document_sizes(data) for count, data in files.items()}
    shared = sorted(sizes[30])
    assert len(shared) == 30
    assert sum(sizes[300][location] for location in shared) <= sum(sizes[30][location] for location in shared) * 1.02
    assert len(files[300]) <= sum(sizes[300].values()) + 300 * 4 + 1000, "overhead beyond the documents"
    assert len(files[300]) / 300 < 1500  # about 1 KB raw per entry at any size
    # The theme's own index holds only the hand-written pages: ten times the entries, same size.
    theme = {count: len((site / "search" / "search_index.json").read_bytes()) for count, site in sites.items()}
    assert theme[300] < theme[30] * 1.5, theme


def _search_document_sizes(data: bytes) -> dict[str, int]:
    """Each entry document's size in the search data, as compact JSON, by its page."""
    docs = json.loads(data)["docs"]
    return {doc["location"]: len(json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()) for doc in docs}
