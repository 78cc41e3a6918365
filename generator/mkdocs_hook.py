"""MkDocs hook: what ties the generator into `mkdocs build` and `mkdocs serve`.

- Before every build the pages are regenerated, so `mkdocs serve` follows YAML edits. Only files
  whose content changed are rewritten, so with `--dirty` MkDocs rebuilds just those.
- `mkdocs serve` hears of saved files from the operating system, not by polling (on_serve).
- A one-off `mkdocs build`, and the first build of `mkdocs serve`, convert and render the entry
  pages on every core (mkdocs_pages.py). Generated static files are hard-linked into the site.
- The listing tables pass Markdown untouched (raw_html.py).
"""

from __future__ import annotations

import logging
import sys
import types
from pathlib import Path

import watchdog.observers
from jinja2.bccache import Bucket, BytecodeCache
from mkdocs.exceptions import Abort

from generator.build import Memo, build
from generator.errors import ProblemsFound
from generator.mkdocs_pages import convert_entry_pages, link_generated_files, render_entry_pages
from generator.raw_html import put_back, set_aside
from generator.settings import settings_for

log = logging.getLogger("mkdocs.plugins.trainwreck")
# MkDocs executes this file again each time it reloads its config (every rebuild under
# `mkdocs serve`), so what a serve session keeps lives in a module of its own, which stays for
# the whole process.
MEMO_HOLDER = "generator._mkdocs_serve_memo"
# Raw HTML blocks of the page being rendered, by page path: between on_page_markdown and
# on_page_content (see generator/raw_html.py).
_set_aside: dict[str, list[str]] = {}
_nav: list = []  # this build's navigation, from on_nav for on_env


class TemplateCode(BytecodeCache):
    """Compiled theme templates kept in memory. MkDocs makes a new template environment on every
    rebuild, and compiling the theme's templates again took about 0.1 s of each one. Jinja checks
    each template's source checksum, so an edited template is compiled afresh."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


def on_startup(command: str, dirty: bool) -> None:
    # Only `mkdocs serve` rebuilds again and again; a one-off build skips the generator
    # entirely when its output is fresh, instead of filling a memo it would never use.
    if command == "serve" and MEMO_HOLDER not in sys.modules:
        holder = sys.modules[MEMO_HOLDER] = types.ModuleType(MEMO_HOLDER)
        holder.memo, holder.template_code = Memo(), TemplateCode()


def on_env(env, config, files):
    # The theme's templates put each {% block tag %} on a line of its own; left in, those lines
    # were about 2.5 KB of blank lines and indentation in every page (25 MB at 10,000 entries).
    env.trim_blocks = env.lstrip_blocks = True
    holder = sys.modules.get(MEMO_HOLDER)
    if holder is not None:
        env.bytecode_cache = holder.template_code
    if _nav:
        render_entry_pages(env, config, files, _nav[0])
    link_generated_files(config, files)
    return env


def on_serve(server, config, builder):
    """Notice saved files as the operating system reports them (inotify on Linux) instead of
    MkDocs's scan of every watched file each 0.5 s, which was half of the edit-to-preview time.

    The generated docs_dir is not watched: the hook rewrites it during a rebuild, from the
    entries, templates and docs that mkdocs.yml's `watch:` list names, and a watch on it only
    queued a second rebuild after each edit. MkDocs watches the `watch:` list after this event,
    so those land on the new observer; what it already watches is moved there."""
    _unwatched(server, [config.docs_dir])
    moved = _unwatched(server, [config.config_file_path, *config.theme.dirs])
    server.observer = watchdog.observers.Observer()
    for path in moved:
        server.watch(path)
    return server


def _unwatched(server, paths: list[str]) -> list[str]:
    """Those of `paths` the server watched (the theme's only with --watch-theme), now unwatched."""
    stopped = []
    for path in paths:
        try:
            server.unwatch(path)
        except KeyError:
            continue
        stopped.append(path)
    return stopped


def on_pre_build(config) -> None:
    settings = settings_for(Path(config.config_file_path).parent)
    holder = sys.modules.get(MEMO_HOLDER)
    try:
        report = build(settings, memo=holder.memo if holder else None)
    except ProblemsFound as found:
        for problem in found.problems:
            log.error(str(problem))
        raise Abort(f"{len(found.problems)} problem(s) in entries; the previous pages were kept") from None
    if report.write and report.write.written:
        log.info(f"trainwreck: {report.write.written} page(s) regenerated, {report.write.removed} removed")


def on_nav(nav, config, files):
    # Entry pages are converted and rendered on every core (on_env renders them) in a one-off
    # build and in the first build of `mkdocs serve`, which runs before the server's threads
    # start. Later serve rebuilds run beside those threads, where nothing may fork
    # (parallel.forked_workers), and redo only the edited pages, in one process.
    convert_entry_pages(config, files)
    _nav[:] = [nav]
    return nav


def on_page_markdown(markdown, page, config, files):
    markdown, blocks = set_aside(markdown)
    if blocks:
        _set_aside[page.file.src_uri] = blocks
    return markdown


def on_page_content(html, page, config, files):
    return put_back(html, _set_aside.pop(page.file.src_uri, []))
