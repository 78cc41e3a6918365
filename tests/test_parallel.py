"""Work spread over forked workers gives exactly what one process gives, in the same order."""

from __future__ import annotations

import os
import tempfile

import pytest
from conftest import fixture_text, write_entry

from generator import parallel
from generator.build import load_catalog, site_info
from generator.catalog import build_catalog
from generator.entries import load_entries
from generator.fingerprints import example_problems
from generator.pages import make_environment, render_pages
from generator.sources import find_sources
from generator.vocabulary import load_vocabulary


@pytest.fixture
def tiny_parts(monkeypatch):
    # The fixture corpus has 4 entries; let each worker take one.
    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_WORKER", 1)


def test_parts_come_back_in_order(tiny_parts):
    squares = parallel.map_in_parts(lambda base, start, stop: [base + n * n for n in range(start, stop)], 100, 9, 3)
    assert squares == [100 + n * n for n in range(9)]


def test_pages_rendered_on_two_cores_equal_one_core(repo, tiny_parts):
    catalog = load_catalog(repo)
    env, site = make_environment(repo.templates_dir), site_info(repo)
    one = render_pages(catalog, env, site, workers=1)
    two = render_pages(catalog, env, site, workers=2)
    assert [page.path for page in two] == [page.path for page in one]
    assert two == one


def test_example_problems_found_on_two_cores_equal_one_core(repo, tiny_parts):
    text = fixture_text("memory", "cuda-oom").replace(
        "    no_match:\n      - |\n",
        "    no_match:\n      - |\n        CUDA out of memory. Tried to allocate 1 GiB.\n",
        1,
    )
    write_entry(repo, "memory", "cuda-oom", text)
    vocabulary = load_vocabulary(repo.vocab_dir, repo.root)
    loaded, problems = load_entries(find_sources(repo.entries_dir, repo.root)[0], vocabulary)
    catalog, more = build_catalog(loaded, vocabulary)
    assert problems == more == []
    one = example_problems(catalog, workers=1)
    assert [str(problem) for problem in one] == [
        "entries/memory/cuda-oom.yaml:71:9: diagnose.examples.no_match.0: the fingerprints match this near-miss"
    ]
    assert example_problems(catalog, workers=2) == one


def test_entries_parsed_on_two_cores_equal_one_core(repo, tiny_parts):
    write_entry(repo, "memory", "broken", "id: broken\ntitle: [unclosed\n")
    write_entry(repo, "memory", "dup", "id: dup\nid: dup\n")
    vocabulary = load_vocabulary(repo.vocab_dir, repo.root)
    sources = find_sources(repo.entries_dir, repo.root)[0]
    one_loaded, one_problems = load_entries(sources, vocabulary, workers=1)
    two_loaded, two_problems = load_entries(sources, vocabulary, workers=2)
    assert [item.entry for item in two_loaded] == [item.entry for item in one_loaded]
    assert len(two_loaded) == 4
    assert two_problems == one_problems
    assert [str(problem).split(": ", 1)[0] for problem in one_problems] == [
        "entries/memory/broken.yaml:3:1",
        "entries/memory/dup.yaml:2:1",
    ]


def test_no_fork_while_other_threads_run(tiny_parts, monkeypatch):
    pids = parallel.map_in_parts(lambda _, start, stop: [os.getpid()] * (stop - start), None, 4, 2)
    assert os.getpid() not in pids  # done by forked workers
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 2)
    assert parallel.map_in_parts(lambda _, start, stop: [os.getpid()] * (stop - start), None, 4, 2) == [os.getpid()] * 4


def test_results_travel_through_files_that_are_removed(tiny_parts, monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    parts = parallel.Parts(lambda base, start, stop: [base + "x" * n for n in range(start, stop)], "a", 6, 2)
    assert [path.name[:17] for path in tmp_path.iterdir()] == ["trainwreck-parts-"]
    assert parts.results() == ["a" + "x" * n for n in range(6)]
    assert list(tmp_path.iterdir()) == []


def test_workers_stop_when_the_caller_fails_before_asking_for_results(repo, tiny_parts, monkeypatch, tmp_path):
    import multiprocessing

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "parts"))
    (tmp_path / "parts").mkdir()

    catalog = load_catalog(repo)
    env, site = make_environment(repo.templates_dir), site_info(repo)

    def failing() -> list:
        assert len(multiprocessing.active_children()) == 2  # the entry pages are being made
        raise RuntimeError("a listing failed")

    with pytest.raises(RuntimeError, match="a listing failed"):
        render_pages(catalog, env, site, workers=2, meanwhile=failing)
    assert multiprocessing.active_children() == []
    assert list((tmp_path / "parts").iterdir()) == []


def test_one_process_computes_each_part_only_when_its_results_are_asked_for():
    calls = []

    def numbers(shared, start, stop):
        calls.append((start, stop))
        return list(range(start, stop))

    parts = iter(parallel.Parts(numbers, None, 5, workers=1, part_in_one_process=2))
    assert next(parts) == 0
    assert calls == [(0, 2)]
    assert list(parts) == [1, 2, 3, 4]
    assert calls == [(0, 2), (2, 4), (4, 5)]
    calls.clear()
    assert parallel.map_in_parts(numbers, None, 5, 1) == [0, 1, 2, 3, 4]
    assert calls == [(0, 5)]
    assert parallel.map_in_parts(numbers, None, 0, 1) == []
