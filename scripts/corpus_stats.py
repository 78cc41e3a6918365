"""The README's corpus line, generated from entries/ (`make readme` rewrites it; a test checks it).

Usage: python scripts/corpus_stats.py [--write]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from generator.build import load_catalog
from generator.settings import settings_for

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- corpus-stats -->\n).*?(\n<!-- /corpus-stats -->)", re.DOTALL)


def stats_text() -> str:
    catalog = load_catalog(settings_for(ROOT))
    categories = catalog.vocabulary.terms("categories")
    systems = catalog.vocabulary.terms("systems")
    used = sorted({s for e in catalog.entries for s in e.affected.systems}, key=lambda s: systems[s].title.casefold())
    counts = ", ".join(
        f"{term.title.lower() if not term.title[:4].isupper() else term.title} ({len(catalog.in_category(slug))})"
        for slug, term in categories.items()
    )
    return (
        f"**{len(catalog.entries)} entries** in {len(categories)} categories: {counts}.\n\n"
        f"Systems covered: {', '.join(systems[s].title for s in used)}."
    )


def readme_with_stats(text: str) -> str:
    return BLOCK.sub(lambda match: match.group(1) + stats_text() + match.group(2), text)


def main() -> None:
    current = README.read_text(encoding="utf-8")
    updated = readme_with_stats(current)
    if "--write" in sys.argv:
        README.write_text(updated, encoding="utf-8")
    elif updated != current:
        sys.exit("README.md corpus stats are stale: run `make readme`")


if __name__ == "__main__":
    main()
