"""The benchmark page states the machine's reference-loop time when the run recorded one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def run(tmp_path, monkeypatch):
    """benchmarks/run.py, writing its page into tmp_path instead of docs/."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    module = load_script(ROOT / "benchmarks" / "run.py")
    monkeypatch.setattr(module, "PAGE", tmp_path / "benchmarks.md")
    return module


def last_results() -> dict:
    """A run's results with one corpus size: all that write_page reads."""
    row = {
        "entries": 100,
        "generator_cold_s": 0.5,
        "generator_cached_s": 0.3,
        "generator_noop_s": 0.05,
        "generator_noop_written": 0,
        "generator_edit_s": 0.3,
        "generator_edit_written": 20,
        "generator_summary_edit_written": 3,
        "generator_check_s": 0.2,
        "generator_check_cold_s": 0.4,
        "mkdocs_build_s": 2.0,
        "mkdocs_peak_mb": 150,
        "site_mb": 10.0,
        "search_index_mb": 0.1,
        "search_index_gzip_mb": 0.04,
        "search_gzip_kb_per_entry": 0.4,
        "largest_entry_page_kb": 50.0,
        "largest_listing_page_kb": 50.0,
        "first_search_s": 0.2,
        "search_rank": 1,
        "serve_edit_s": 0.3,
        "serve_title_edit_s": 0.4,
    }
    return {"machine": "2 cores, CPython 3.11.7", "date": "2026-12-01", "scale": [row]}


def test_page_states_the_reference_loop_time(run, tmp_path):
    run.write_page({**last_results(), "reference_loop_s": 0.612})
    page = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    assert "a fixed pure-Python loop of 10 million additions took 0.612 s (best of 3)" in page


def test_page_without_a_reference_loop_says_nothing_about_it(run, tmp_path):
    run.write_page(last_results())
    page = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    assert "pure-Python loop" not in page.split("## What the figures mean")[0]
    assert "Measured by `make bench` on 2 cores, CPython 3.11.7 (2026-12-01)." in page


def test_the_published_page_ends_with_the_current_notes():
    """The notes are edited by hand; `python benchmarks/run.py --page-only` must follow each edit,
    or the site explains the figures with last run's words."""
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    notes = (ROOT / "benchmarks" / "notes.md").read_text(encoding="utf-8").rstrip()
    assert page.rstrip().endswith(notes), "run `python benchmarks/run.py --page-only` after editing the notes"


def test_page_only_without_results_replaces_only_the_notes(run, tmp_path, monkeypatch):
    """A clone has no benchmarks/out/results.json: --page-only keeps the published figures and
    puts the edited notes under them."""
    notes = tmp_path / "notes.md"
    monkeypatch.setattr(run, "NOTES", notes)
    notes.write_text("## What the figures mean\n\nOld words.\n", encoding="utf-8")
    run.write_page(last_results())
    figures = run.PAGE.read_text(encoding="utf-8").split(run.NOTES_MARKER)[0]
    notes.write_text("## What the figures mean\n\nNew words.\n", encoding="utf-8")

    run.refresh_notes_on_page()

    page = run.PAGE.read_text(encoding="utf-8")
    assert page == f"{figures}{run.NOTES_MARKER}\n\n## What the figures mean\n\nNew words.\n"
    assert "Old words." not in page


def test_page_only_without_results_refuses_a_page_without_the_marker(run):
    run.PAGE.write_text("# Benchmarks\n\nNo marker here.\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=re.escape(f"{run.PAGE} has no '{run.NOTES_MARKER}' line")):
        run.refresh_notes_on_page()
    assert run.PAGE.read_text(encoding="utf-8") == "# Benchmarks\n\nNo marker here.\n"


def floors(load_floor_s: float, size_floor_mb: float) -> dict:
    parts = {"page_text": 120.0, "export": 147.0, "faq": 22.2, "listing_titles": 12.8, "search_symptoms": 4.1}
    return {
        "measured_on": 1507,
        "cores": 2,
        "load_cpu_s": load_floor_s * 2,
        "load_floor_s": load_floor_s,
        "bytes_mb": parts,
        "size_floor_mb": size_floor_mb,
    }


def test_page_says_which_targets_sit_under_a_floor_of_the_design(run, tmp_path):
    run.write_page({**last_results(), "floors": floors(3.85, 306.0)})
    page = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    assert "measured on this checkout's 1,507 entries and scaled to 10,000" in page
    load_row = next(line for line in page.splitlines() if line.startswith("| Loading every entry file"))
    assert load_row.endswith(
        "| 3.85 s | cold generator ≤ 3 s | **above the target: no code can meet it under this design** |"
    )
    size_row = next(line for line in page.splitlines() if line.startswith("| Text and data the site must hold"))
    assert "per-entry exports 147.0 MB" in size_row
    assert size_row.endswith(
        "| 306.0 MB | site ≤ 300 MB | **above the target: no code can meet it under this design** |"
    )


def test_a_floor_under_its_target_is_said_to_be_under_it(run, tmp_path):
    run.write_page({**last_results(), "floors": floors(1.2, 250.0)})
    page = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    assert page.count("| under the target |") == 2
    assert "no code can meet it" not in page


def test_page_without_floors_has_no_floor_section(run, tmp_path):
    run.write_page(last_results())
    assert "## Floors the design sets" not in (tmp_path / "benchmarks.md").read_text(encoding="utf-8")


def test_page_shows_the_memory_of_the_diagnosis_with_its_workers(run, tmp_path):
    diagnose = {
        "log_mb": 10.0,
        "ranks": 8,
        "fingerprints": 3337,
        "python_seconds": 0.7,
        "chromium_seconds": 0.16,
        "chromium_first_seconds": 0.38,
        "browser_engine_seconds": 0.18,
        "stdin_100mb_peak_rss_mb": 81.5,
        "stdin_100mb_saved_set_peak_rss_mb": 74.9,
        "stdin_100mb_tree_peak_mb": 212.0,
    }
    run.write_page({**last_results(), "diagnose": diagnose})
    page = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| First run, the process and its worker"))
    assert row.endswith("| 212.0 MB | < 200 MB | **misses** |")
