"""Entries checked by an earlier build are taken from the cache; anything else is checked in full."""

from __future__ import annotations

import zlib

import pytest
from conftest import fixture_text, generated, rebuild, write_entry

from generator.build import Memo, build, load_catalog
from generator.entry_cache import CACHE_NAME, CachedEntry, open_cache, open_cache_on_disk
from generator.errors import ProblemsFound
from generator.schema import Entry
from generator.vocabulary import load_vocabulary

ENTRIES = ["cuda-error-generic", "cuda-illegal-memory-access", "cuda-oom", "nccl-watchdog-timeout"]


def cached_ids(settings) -> list[str]:
    """Ids of the entries the next build takes from the cache (and does not check again)."""
    catalog = load_catalog(settings, cache=open_cache(settings, read_only=True))
    return sorted(item.entry.id for item in catalog.loaded if item.from_cache)


def problems_with_cache(settings) -> list[str]:
    with pytest.raises(ProblemsFound) as caught:
        load_catalog(settings, cache=open_cache(settings, read_only=True))
    return [str(problem) for problem in caught.value.problems]


def test_a_second_build_takes_every_entry_from_the_cache_and_writes_the_same(repo):
    assert cached_ids(repo) == []
    build(repo)
    assert (repo.root / "build" / CACHE_NAME).is_file()
    first = generated(repo)
    assert cached_ids(repo) == ENTRIES
    rebuild(repo)
    assert generated(repo) == first


def test_an_edited_entry_is_checked_again(repo):
    build(repo)
    text = fixture_text("memory", "cuda-oom").replace(
        "RuntimeError: DataLoader worker", "CUDA out of memory. Tried to allocate 2 MiB."
    )
    write_entry(repo, "memory", "cuda-oom", text)
    assert problems_with_cache(repo)[0].endswith("diagnose.examples.no_match.0: the fingerprints match this near-miss")
    with pytest.raises(ProblemsFound):
        build(repo)
    # A failed build leaves the cache as it was: the old bytes are still known.
    write_entry(repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom"))
    assert cached_ids(repo) == ENTRIES


def test_the_same_bytes_in_another_folder_are_checked_again(repo):
    build(repo)
    (repo.entries_dir / "memory" / "cuda-oom.yaml").rename(repo.entries_dir / "distributed" / "cuda-oom.yaml")
    assert problems_with_cache(repo) == [
        "entries/distributed/cuda-oom.yaml:4:11: category: 'memory' does not match the folder entries/distributed/"
    ]


def test_a_vocabulary_change_checks_every_entry_again(repo):
    build(repo)
    tags = repo.vocab_dir / "tags.yml"
    tags.write_text(tags.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert cached_ids(repo) == []


@pytest.mark.parametrize("damage", ["garbage", "other version", "truncated", "bad lines"])
def test_a_damaged_or_foreign_cache_is_ignored(repo, damage):
    build(repo)
    first = generated(repo)
    path = repo.root / "build" / CACHE_NAME
    version, *lines = path.read_text(encoding="utf-8").splitlines()
    content = {
        "garbage": "not a cache",
        "other version": "\n".join(["0" * 64, *lines]),
        "truncated": "\n".join([version, *(line[:100] for line in lines)]),
        "bad lines": "\n".join([version, *(line.replace(" ", "", 1) for line in lines), "x {}"]),
    }[damage]
    path.write_text(content, encoding="utf-8")
    assert cached_ids(repo) == []
    rebuild(repo)
    assert generated(repo) == first
    assert cached_ids(repo) == ENTRIES


def test_a_cached_line_changed_by_hand_is_parsed_again(repo):
    # Its checksum no longer holds.
    build(repo)
    path = repo.root / "build" / CACHE_NAME
    path.write_text(path.read_text(encoding="utf-8").replace('"severity":"high"', '"severity":"apocalyptic"'))
    rebuilt = load_catalog(repo, cache=open_cache(repo)).loaded
    assert "apocalyptic" not in [item.entry.severity for item in rebuilt]
    parsed_again = ["cuda-illegal-memory-access", "cuda-oom", "nccl-watchdog-timeout"]
    assert sorted(item.entry.id for item in rebuilt if not item.from_cache) == parsed_again


def test_a_cached_header_that_does_not_validate_is_parsed_again(repo):
    build(repo)
    path = repo.root / "build" / CACHE_NAME
    version, *lines = path.read_bytes().split(b"\n")
    damaged = []
    for line in lines:
        key, _, record = line.split(b" ", 2) if line else (b"", b"", b"")
        if b'"id":"cuda-oom"' in record:
            record = record.replace(b'"created":"', b'"created":"not a date ', 1)
            line = b"%s %08x %s" % (key, zlib.crc32(record), record)
        damaged.append(line)
    path.write_bytes(b"\n".join([version, *damaged]))
    assert cached_ids(repo) == ["cuda-error-generic", "cuda-illegal-memory-access", "nccl-watchdog-timeout"]


def test_a_cached_entry_reads_as_the_entry_it_stands_for(repo):
    build(repo)
    parsed = {item.entry.id: item.entry for item in load_catalog(repo).loaded}
    for item in load_catalog(repo, cache=open_cache(repo, read_only=True)).loaded:
        assert isinstance(item.entry, CachedEntry)
        entry = parsed[item.entry.id]
        assert {name: getattr(item.entry, name) for name in Entry.model_fields} == dict(entry)
        assert item.entry.model_dump(mode="json") == entry.model_dump(mode="json")


def test_a_build_with_every_page_cached_validates_no_whole_model(repo, monkeypatch):
    # Only the headers: what listings, links and the page cache's keys read.
    build(repo)
    first = generated(repo)
    monkeypatch.setattr(CachedEntry, "_entry", property(lambda entry: pytest.fail(f"{entry.id} validated whole")))
    rebuild(repo)
    assert generated(repo) == first


def test_check_only_builds_leave_the_cache_alone(repo):
    build(repo, write=False)
    assert not (repo.root / "build" / CACHE_NAME).exists()


def test_a_problem_in_a_cached_entry_still_points_at_its_line(repo):
    # cuda-oom comes from the cache; the entry it links to disappears.
    build(repo)
    (repo.entries_dir / "distributed" / "nccl-watchdog-timeout.yaml").unlink()
    assert problems_with_cache(repo) == [
        "entries/memory/cuda-oom.yaml:65:14: diagnose.explains.0: no entry has id 'nccl-watchdog-timeout'",
        "entries/memory/cuda-oom.yaml:81:9: related.0.id: no entry has id 'nccl-watchdog-timeout'",
    ]


def test_the_first_build_of_a_serve_session_starts_from_the_cache(repo):
    build(repo)
    first = generated(repo)
    memo = Memo()
    rebuild_with_memo = build(repo, memo=memo)
    assert rebuild_with_memo.entries == len(ENTRIES)
    assert sorted(entry.entry.id for entry, _ in memo.entries.values() if entry.from_cache) == ENTRIES
    # An edit under serve is checked in full, and the cache is left as it was.
    cache = (repo.root / "build" / CACHE_NAME).read_bytes()
    text = fixture_text("memory", "cuda-oom").replace(
        "RuntimeError: DataLoader worker", "CUDA out of memory. Tried to allocate 2 MiB."
    )
    write_entry(repo, "memory", "cuda-oom", text)
    with pytest.raises(ProblemsFound):
        build(repo, memo=memo)
    assert (repo.root / "build" / CACHE_NAME).read_bytes() == cache
    write_entry(repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom"))
    build(repo, memo=memo)
    assert generated(repo) == first


def test_a_diagnosis_reads_each_cached_line_from_the_file_and_checks_it_then(repo):
    build(repo)
    on_disk = open_cache_on_disk(repo)
    assert dict(on_disk.lines) == open_cache(repo).lines
    assert (
        sorted(on_disk.cached_entry(key, load_vocabulary(repo.vocab_dir, repo.root)).id for key in on_disk.lines)
        == ENTRIES
    )
    # Changed after it was opened: the same length, so only the checksum tells.
    path = repo.root / "build" / CACHE_NAME
    path.write_text(path.read_text(encoding="utf-8").replace('"severity":"high"', '"severity":"hihg"'))
    damaged = [key for key in on_disk.lines if on_disk.lines.get(key) is None]
    assert len(damaged) == 3
    # Replaced by a build of other entries: what was at the old places is not taken.
    write_entry(
        repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("during training", "in training")
    )
    build(repo)
    assert [key for key in on_disk.lines if on_disk.lines.get(key) is not None] != list(on_disk.lines)
    assert all(line[:64].decode() == key for key, line in open_cache_on_disk(repo).lines.items())
