"""Refresh tests/golden/ from the fixture entries (`make golden`). Review the diff before committing."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import make_repo  # noqa: E402
from test_pages import GOLDEN, GOLDEN_PAGES, render_fixture_pages  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        pages = render_fixture_pages(make_repo(Path(folder) / "repo"))
    GOLDEN.mkdir(exist_ok=True)
    for path in GOLDEN_PAGES:
        target = GOLDEN / path.replace("/", "__")
        target.write_text(pages[path], encoding="utf-8")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
