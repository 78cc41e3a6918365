"""Lower bounds under three of issue 6's targets: `python benchmarks/floors.py [REPO]`.

A target below its floor cannot be met by faster or leaner code, only by changing what the design
asks for. Each floor counts work or bytes that DESIGN.md requires, and nothing else:

- Reading the entries. A cold build must turn every YAML file into Python data before it can
  validate anything, with PyYAML's C safe loader. The floor is that loading alone, spread evenly
  over every core: no validation, rendering or writing.
- The site's bytes, each counted once and as plain text:
    - the text each entry's page shows (every field but `diagnose`);
    - its JSON export (`api/entries/<id>.json`), at least its data as compact JSON;
    - its FAQ questions and answers, once (the page shows them and repeats them in the FAQPage
      JSON-LD);
    - its title on each listing that must show it: all entries, its category, its severity, each
      of its tags and each of its systems;
    - its symptom texts in the search index (a pasted error must find its entry).
  No markup, page shell, navigation, table of contents, link, asset or sitemap is counted.

REPO is a checkout or a corpus of `make_corpus.py` (default: this checkout's own entries). The
figures are scaled to 10,000 entries.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SCALE_TO = 10_000
sys.path.insert(0, str(ROOT))

from generator.build import load_catalog  # noqa: E402
from generator.faq import faq_for  # noqa: E402
from generator.parallel import worker_count  # noqa: E402
from generator.settings import settings_for  # noqa: E402


def floor_figures(repo: Path) -> dict:
    """The floors for `repo`'s entries, scaled to 10,000 entries (seconds, and bytes in MB)."""
    texts = [path.read_bytes() for path in sorted(repo.glob("entries/*/*.yaml"))]
    if not texts:
        raise SystemExit(f"{repo} has no entries/<category>/<id>.yaml files")
    scale = SCALE_TO / len(texts)
    cores = worker_count()  # the cores a build would spread its work over
    load_seconds = load_cpu_seconds(texts) * scale
    parts = required_bytes([yaml.load(text, Loader=yaml.CSafeLoader) for text in texts])
    parts["faq"] = faq_bytes(repo)
    return {
        "measured_on": len(texts),
        "cores": cores,
        "load_cpu_s": round(load_seconds, 2),
        "load_floor_s": round(load_seconds / cores, 2),
        "bytes_mb": {name: round(count * scale / 1e6, 1) for name, count in parts.items()},
        "size_floor_mb": round(sum(parts.values()) * scale / 1e6, 1),
    }


def load_cpu_seconds(texts: list[bytes], runs: int = 3) -> float:
    """CPU time to load every file with the C safe loader, the files already in memory: the
    best of `runs`, as other work on the machine only ever adds to it."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        for text in texts:
            yaml.load(text, Loader=yaml.CSafeLoader)
        best = min(best, time.process_time() - started)
    return best


def required_bytes(entries: list[dict]) -> dict[str, int]:
    counts = dict.fromkeys(("page_text", "export", "listing_titles", "search_symptoms"), 0)
    for entry in entries:
        counts["export"] += utf8_length(json.dumps(entry, separators=(",", ":"), ensure_ascii=False, default=str))
        counts["page_text"] += sum(
            utf8_length(text) for key, value in entry.items() if key != "diagnose" for text in strings_in(value)
        )
        listings = 3 + len(entry.get("tags", [])) + len(entry.get("affected", {}).get("systems", []))
        counts["listing_titles"] += listings * utf8_length(entry["title"])
        counts["search_symptoms"] += sum(utf8_length(symptom["text"]) for symptom in entry.get("symptoms", []))
    return counts


def faq_bytes(repo: Path) -> int:
    """Bytes of every entry's FAQ questions and plain-text answers, as the pages' JSON-LD has them."""
    catalog = load_catalog(settings_for(repo))
    return sum(
        utf8_length(item.question) + utf8_length(item.plain)
        for entry in catalog.entries
        for item in faq_for(entry, catalog)
    )


def strings_in(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def utf8_length(text: str) -> int:
    return len(text.encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo", type=Path, nargs="?", default=ROOT)
    figures = floor_figures(parser.parse_args().repo)
    print(json.dumps(figures, indent=1))
    print(
        f"Loading {SCALE_TO:,} entries: {figures['load_cpu_s']} CPU-s, at best {figures['load_floor_s']} s "
        f"on {figures['cores']} cores (target for the whole cold build: 3 s).\n"
        f"Bytes the design requires: {figures['size_floor_mb']} MB (target for the whole site: 300 MB)."
    )


if __name__ == "__main__":
    main()
