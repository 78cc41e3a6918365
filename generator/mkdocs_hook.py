"""MkDocs hook: regenerate the pages before every build, so `mkdocs serve` follows YAML edits.

Only files whose content changed are rewritten, so with `--dirty` MkDocs rebuilds just those.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.exceptions import Abort

from generator.build import Memo, build
from generator.errors import ProblemsFound
from generator.settings import settings_for

log = logging.getLogger("mkdocs.plugins.trainwreck")
# Lives as long as the MkDocs process: under `mkdocs serve`, each rebuild parses, checks and
# renders only the entries whose files changed.
MEMO = Memo()


def on_pre_build(config) -> None:
    settings = settings_for(Path(config.config_file_path).parent)
    try:
        report = build(settings, memo=MEMO)
    except ProblemsFound as found:
        for problem in found.problems:
            log.error(str(problem))
        raise Abort(f"{len(found.problems)} problem(s) in entries; the previous pages were kept") from None
    if report.write and report.write.written:
        log.info(f"trainwreck: {report.write.written} page(s) regenerated, {report.write.removed} removed")
