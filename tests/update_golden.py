"""Refresh the golden files (`make golden`). Review the diff before committing.

- tests/golden/: generated pages for the fixture entries;
- tests/diagnose/fingerprints.json: the fixture entries' fingerprint set;
- tests/diagnose/cases/*.json: the canonical diagnosis of each case log (by the Python engine;
  the JS engine must reproduce them byte for byte).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import make_repo
from diagnose.make_cases import CASES
from diagnose.make_cases import main as make_case_logs
from test_pages import GOLDEN, GOLDEN_PAGES, render_fixture_pages

from generator.build import load_catalog
from generator.diagnose import diagnose_stream
from generator.fingerprints import canonical_json, compile_fingerprints

FINGERPRINTS = Path(__file__).parent / "diagnose" / "fingerprints.json"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = make_repo(Path(folder) / "repo")
        pages = render_fixture_pages(settings)
        fingerprint_set = compile_fingerprints(load_catalog(settings).entries)
    GOLDEN.mkdir(exist_ok=True)
    for path in GOLDEN_PAGES:
        target = GOLDEN / path.replace("/", "__")
        target.write_text(pages[path], encoding="utf-8")
        print(f"wrote {target}")
    FINGERPRINTS.write_text(canonical_json(fingerprint_set) + "\n", encoding="utf-8")
    make_case_logs()
    for log in sorted(CASES.glob("*.log")):
        result = diagnose_stream([log.read_bytes()], fingerprint_set)
        log.with_suffix(".json").write_text(canonical_json(result) + "\n", encoding="utf-8")
    print(f"wrote {FINGERPRINTS} and {len(list(CASES.glob('*.json')))} expected diagnoses")


if __name__ == "__main__":
    main()
