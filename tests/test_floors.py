"""benchmarks/floors.py counts exactly the bytes and work it says it counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def floors(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return load_script(ROOT / "benchmarks" / "floors.py")


ENTRY = {
    "id": "tiny",
    "title": "Boom",
    "tags": ["oom"],
    "affected": {"systems": ["pytorch", "cuda"], "versions": {"pytorch": ">=2.0"}},
    "symptoms": [{"text": "Err: é", "meaning": "it broke"}],
    "diagnose": {"fingerprints": [{"contains": "Err: é"}]},
}


def test_required_bytes_counts_each_required_part_once(floors):
    counts = floors.required_bytes([ENTRY])
    # Page text: every string outside diagnose, in UTF-8 ("é" is two bytes).
    shown = ["tiny", "Boom", "oom", "pytorch", "cuda", ">=2.0", "Err: é", "it broke"]
    assert counts["page_text"] == sum(len(text.encode()) for text in shown) == 42
    assert counts["export"] == len(json.dumps(ENTRY, separators=(",", ":"), ensure_ascii=False).encode())
    # Listings: all entries, category, severity, one tag and two systems show the title.
    assert counts["listing_titles"] == (3 + 1 + 2) * len("Boom")
    assert counts["search_symptoms"] == len("Err: é".encode())


def test_figures_scale_the_fixture_entries_to_ten_thousand(floors, repo):
    figures = floors.floor_figures(repo.root)
    assert figures["measured_on"] == 4
    parts = floors.required_bytes(
        [floors.yaml.safe_load(path.read_bytes()) for path in sorted(repo.root.glob("entries/*/*.yaml"))]
    )
    assert figures["bytes_mb"]["export"] == round(parts["export"] * 10_000 / 4 / 1e6, 1)
    assert figures["bytes_mb"]["faq"] > 0
    assert figures["size_floor_mb"] == pytest.approx(sum(figures["bytes_mb"].values()), abs=0.3)
    assert figures["load_floor_s"] == pytest.approx(figures["load_cpu_s"] / figures["cores"], abs=0.01)
