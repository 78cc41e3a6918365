"""Entry pages an earlier build rendered are read back only while everything they show is unchanged."""

from __future__ import annotations

import shutil

import pytest
from conftest import fixture_text, generated, make_repo, rebuild, write_entry

from generator import build as build_module
from generator import fingerprints, pages, search, writer
from generator.build import Memo, build
from generator.page_cache import CACHE_NAME

ENTRIES = ["cuda-error-generic", "cuda-illegal-memory-access", "cuda-oom", "nccl-watchdog-timeout"]


@pytest.fixture
def rendered(monkeypatch) -> list[str]:
    """Ids of the entries whose pages the builds of a test rendered, in order."""
    ids: list[str] = []
    render = pages.entry_pages

    def recording(catalog, env, site, memo=None, entries=None):
        ids.extend(entry.id for entry in (catalog.entries if entries is None else entries))
        return render(catalog, env, site, memo, entries)

    monkeypatch.setattr(pages, "entry_pages", recording)
    return ids


def fresh_build(settings, tmp_path) -> dict[str, bytes]:
    """What a build with no caches makes of the same entries and site files."""
    fresh = make_repo(tmp_path / "fresh", settings.entries_dir)
    shutil.copy2(settings.mkdocs_config, fresh.mkdocs_config)
    build(fresh)
    return generated(fresh)


def test_a_second_build_renders_no_entry_page_and_writes_the_same(repo, rendered):
    build(repo)
    assert sorted(rendered) == ENTRIES
    first = generated(repo)
    rendered.clear()
    rebuild(repo)
    assert rendered == []
    assert generated(repo) == first


def test_a_new_title_renders_the_entry_and_the_pages_that_show_it(repo, rendered, tmp_path):
    build(repo)
    rendered.clear()
    # cuda-oom links to nccl-watchdog-timeout, whose page lists it under "links here".
    text = fixture_text("memory", "cuda-oom").replace("title: CUDA out of memory", "title: GPU ran out of memory", 1)
    write_entry(repo, "memory", "cuda-oom", text)
    build(repo)
    assert sorted(rendered) == ["cuda-oom", "nccl-watchdog-timeout"]
    output = generated(repo)
    assert "GPU ran out of memory" in output["entries/nccl-watchdog-timeout.md"].decode()
    assert output == fresh_build(repo, tmp_path)


def test_a_template_change_renders_every_page_again(repo, rendered):
    build(repo)
    rendered.clear()
    template = repo.templates_dir / "entry.md.j2"
    template.write_text(template.read_text(encoding="utf-8") + "\nNew closing line.\n", encoding="utf-8")
    build(repo)
    assert sorted(rendered) == ENTRIES
    assert generated(repo)["entries/cuda-oom.md"].decode().endswith("New closing line.\n")


def test_a_new_repository_address_renders_every_page_again(repo, rendered, tmp_path):
    build(repo)
    rendered.clear()
    config = repo.mkdocs_config
    config.write_text(config.read_text(encoding="utf-8").replace("trainwreck-ml/", "someone-else/"), encoding="utf-8")
    build(repo)
    assert sorted(rendered) == ENTRIES
    assert "https://github.com/someone-else/trainwreck/edit/main/" in generated(repo)["entries/cuda-oom.md"].decode()
    assert generated(repo) == fresh_build(repo, tmp_path)


@pytest.fixture
def derived(monkeypatch) -> dict[str, list]:
    """What the builds of a test made again besides entry pages: ids of the entries whose search
    document and fingerprints were made, and the listing kinds rendered."""
    made: dict[str, list] = {"search": [], "fingerprints": [], "listings": []}
    search_document, entry_fingerprints = search.search_document, build_module.entry_fingerprints

    def recording(kind, function, name=lambda entry, *rest: entry.id):
        return lambda *args: made[kind].append(name(*args)) or function(*args)

    monkeypatch.setattr(search, "search_document", recording("search", search_document))
    monkeypatch.setattr(build_module, "entry_fingerprints", recording("fingerprints", entry_fingerprints))
    kinds = [recording("listings", kind, lambda *args, kind=kind: kind.__name__) for kind in pages.PAGE_KINDS]
    monkeypatch.setattr(pages, "PAGE_KINDS", tuple(kinds))
    return made


def test_search_documents_fingerprints_and_listings_are_made_again_only_when_their_inputs_change(
    repo, derived, tmp_path
):
    build(repo)
    assert sorted(derived["search"]) == sorted(derived["fingerprints"]) == ENTRIES
    assert derived["listings"] == ["redirect_pages", "index_pages", "listing_pages"]
    first = generated(repo)
    for made in derived.values():
        made.clear()
    rebuild(repo)
    assert derived == {"search": [], "fingerprints": [], "listings": []}
    assert generated(repo) == first
    # A summary is in the entry's search document, not in any listing.
    text = fixture_text("memory", "cuda-oom").replace("for a new tensor", "for another tensor")
    write_entry(repo, "memory", "cuda-oom", text)
    build(repo)
    assert derived == {"search": ["cuda-oom"], "fingerprints": ["cuda-oom"], "listings": []}
    # A title is listed.
    write_entry(repo, "memory", "cuda-oom", text.replace("title: CUDA out of memory", "title: GPU ran out of memory"))
    build(repo)
    assert derived["listings"] == ["redirect_pages", "index_pages", "listing_pages"]
    assert generated(repo) == fresh_build(repo, tmp_path)


@pytest.mark.parametrize("damage", ["garbage", "other version", "cut short", "length too long", "empty"])
def test_a_damaged_or_foreign_cache_is_ignored(repo, rendered, damage):
    build(repo)
    first = generated(repo)
    path = repo.root / "build" / CACHE_NAME
    data = path.read_bytes()
    records = data.split(b"\n", 1)[1]
    path.write_bytes(
        {
            "garbage": b"not a cache",
            "other version": b"0" * 64 + b"\n" + records,
            "cut short": data[: len(data) - 100],
            "length too long": data.replace(b" ", b" 9", 1),
            "empty": b"",
        }[damage]
    )
    rendered.clear()
    rebuild(repo)
    assert sorted(rendered) == ENTRIES
    assert generated(repo) == first
    # The damaged file was replaced by a good one.
    rendered.clear()
    rebuild(repo)
    assert rendered == []


def test_check_only_builds_read_the_cache_but_never_write_it(repo, rendered):
    build(repo, write=False)
    assert not (repo.root / "build" / CACHE_NAME).exists()
    build(repo)
    rendered.clear()
    before = (repo.root / "build" / CACHE_NAME).read_bytes()
    # A new summary shows on the entry's own page only.
    text = fixture_text("memory", "cuda-oom").replace("for a new tensor", "for another tensor")
    write_entry(repo, "memory", "cuda-oom", text)
    build(repo, write=False)
    assert sorted(rendered) == ["cuda-oom"]
    assert (repo.root / "build" / CACHE_NAME).read_bytes() == before


def test_a_build_that_fails_to_write_leaves_the_cache_as_it_was(repo, monkeypatch):
    build(repo)
    path = repo.root / "build" / CACHE_NAME
    before = path.read_bytes()
    text = fixture_text("memory", "cuda-oom").replace("for a new tensor", "for another tensor")
    write_entry(repo, "memory", "cuda-oom", text)

    def disk_full(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer, "_write_file", disk_full)
    with pytest.raises(OSError, match="No space left"):
        build(repo)
    assert path.read_bytes() == before


def test_the_first_serve_build_reads_pages_back_and_skips_checked_examples(repo, monkeypatch, tmp_path):
    build(repo)
    first = generated(repo)
    made, checked = [], []
    faq_for, check = pages.faq_for, fingerprints.entry_example_problems
    monkeypatch.setattr(pages, "faq_for", lambda entry, catalog: made.append(entry.id) or faq_for(entry, catalog))
    monkeypatch.setattr(
        fingerprints, "entry_example_problems", lambda item: checked.append(item.entry.id) or check(item)
    )
    memo = Memo()
    build(repo, memo=memo)  # an empty memo always builds in full, as `mkdocs serve` starts
    assert (made, checked) == ([], [])
    assert generated(repo) == first
    write_entry(
        repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("during training", "in training")
    )
    build(repo, memo=memo)
    # The title changed, so the page that lists cuda-oom under "links here" is made again too.
    assert (made, checked) == (["cuda-oom", "nccl-watchdog-timeout"], ["cuda-oom"])
    assert generated(repo) == fresh_build(repo, tmp_path)
