"""Entry pages in `mkdocs build`: converted by cmark-gfm, and converted and rendered on every core.

An entry page is an `EntryPage`: its Markdown goes through generator/entry_html.py instead of
Python-Markdown (about 1 ms a page instead of 11), and MkDocs's own code makes its links
relative and records the links to anchors it checks, as for any page.

MkDocs 1.6 builds pages one after another on one core, and the theme's templates take about
2 ms an entry page. The MkDocs hook hands the entry pages to forked workers twice, doing what
MkDocs would do at that point:

1. From `on_nav` (MkDocs has listed the files, and reads no page before this returns), workers
   read each entry page, run the plugins' `page_markdown` event and convert it. Each entry
   file gets a `ConvertedPage` holding the result, which MkDocs reads instead of converting.
2. From `on_env` (every page is converted; no page is rendered yet), workers render each entry
   page through the theme. The page's template becomes `trainwreck-rendered.html`, which
   prints the HTML already made, so MkDocs's own loop only runs the plugin events and writes.

Everything else (plugin events, the anchor check, writing, the other pages) stays MkDocs's, in
the main process. Warnings a worker logs are logged again here, so `--strict` counts them.
Two things take load off that one-core loop: the workers also make each entry page's output
folder, and the generated static files (the JSON exports) are hard-linked into the site
instead of copied (`link_generated_files`).
"""

from __future__ import annotations

import html
import logging
import os
import re
from dataclasses import dataclass

from mkdocs.commands.build import get_context
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page, _RelativePathTreeprocessor
from mkdocs.structure.toc import TableOfContents, get_toc

from generator.entry_html import entry_html
from generator.pages import ENTRY_DIR
from generator.parallel import forked_workers, map_in_parts, worker_count

MKDOCS_LOG = logging.getLogger("mkdocs")
RENDERED_TEMPLATE = "trainwreck-rendered.html"  # in site_overrides: prints page.rendered_html
PAGES_LOG = logging.getLogger("mkdocs.structure.pages")  # whose level decides if anchors are checked
LINK = re.compile(r'(<a\b[^>]*?\shref=")([^"]*)"')


class EntryPage(Page):
    """An entry page, converted by cmark-gfm (generator/entry_html.py) instead of Python-Markdown."""

    def render(self, config, files: Files) -> None:
        converted = entry_html(self.markdown)
        links = _RelativePathTreeprocessor(self.file, files, config)

        def relative(found: re.Match) -> str:
            url = links.path_to_url(html.unescape(found.group(2)))
            return f'{found.group(1)}{html.escape(url)}"'

        self.content = LINK.sub(relative, converted.content)
        self.toc = get_toc(converted.toc_tokens)
        self._title_from_render = converted.title
        self.present_anchor_ids = converted.anchor_ids
        if PAGES_LOG.getEffectiveLevel() > logging.DEBUG:
            self.links_to_anchors = links.links_to_anchors


@dataclass
class Converted:
    """What MkDocs's Page.read_source and Page.render produce for one page; picklable."""

    markdown: str  # as read, before plugins' page_markdown events (MkDocs runs those again)
    meta: dict
    content: str
    toc: TableOfContents
    title_from_render: str | None
    present_anchor_ids: set[str]
    links_to_anchors: dict[str, dict[str, str]] | None  # by the linked file's src_uri
    log: list[tuple[str, int, str]]  # (logger name, level, message)


class ConvertedPage(EntryPage):
    """A page whose source was read and converted in a worker; MkDocs uses it like any page."""

    def __init__(self, file: File, config, converted: Converted) -> None:
        self.converted = converted
        super().__init__(None, file, config)

    def read_source(self, config) -> None:
        self.markdown, self.meta = self.converted.markdown, dict(self.converted.meta)

    def render(self, config, files: Files) -> None:
        done = self.converted
        self.content, self.toc = done.content, done.toc
        self._title_from_render = done.title_from_render
        self.present_anchor_ids = done.present_anchor_ids
        if done.links_to_anchors is not None:
            self.links_to_anchors = {
                files.get_file_from_path(uri): links for uri, links in done.links_to_anchors.items()
            }
        _log_again(done.log)


def convert_entry_pages(config, files: Files, workers: int | None = None) -> int:
    """Convert the entry pages in worker processes; how many were converted.

    With one core, or too few pages to pay for the workers, each entry file gets an `EntryPage`
    here, and MkDocs converts the ones it builds (under `--dirty`, only the edited ones)."""
    entry_files = [file for file in files.documentation_pages() if file.src_uri.startswith(f"{ENTRY_DIR}/")]
    workers = forked_workers(len(entry_files), workers or worker_count())
    if workers <= 1:
        for file in entry_files:
            EntryPage(None, file, config)
        return 0
    results = map_in_parts(_converted_part, (config, files, entry_files), len(entry_files), workers)
    for file, converted in zip(entry_files, results, strict=True):
        ConvertedPage(file, config, converted)
    return len(results)


def render_entry_pages(env, config, files: Files, nav, workers: int | None = None) -> int:
    """Render the converted entry pages through the theme in worker processes; how many were.

    Each page keeps its HTML and gets the template that prints it as is. A `--dirty` build
    skips the pages whose output is newer than their source (MkDocs neither reads nor writes
    them), and so does this."""
    pages = [
        file.page
        for file in files.documentation_pages()
        if isinstance(file.page, ConvertedPage) and file.page.content is not None
    ]
    workers = forked_workers(len(pages), workers or worker_count())
    if workers <= 1:
        return 0
    results = map_in_parts(_rendered_part, (env, config, files, nav, pages), len(pages), workers)
    for page, (page_html, log) in zip(pages, results, strict=True):
        _log_again(log)
        page.rendered_html = page_html
        page.meta["template"] = RENDERED_TEMPLATE
        # Printed already: MkDocs's loop would only run the search plugin's clean-up over it
        # again (3 s at 10,000 entries), and the site's articles stay out of memory.
        page.content = ""
    return len(results)


def link_generated_files(config, files: Files) -> int:
    """Hard-link the static files in docs_dir into the site; how many were linked.

    Copying the 10,000 JSON exports took MkDocs 3 to 4 s. Finding the destination is already
    its source file, MkDocs leaves it (shutil.SameFileError, which MkDocs lets pass for plugins
    that write into the site themselves). The generator never rewrites a file in place, so a
    link cannot change under the site. Where linking fails (docs_dir and the site on different
    file systems), MkDocs copies the rest as before. A destination already there means a
    `--dirty` rebuild (each edit under `mkdocs serve`): MkDocs copies only what changed, so
    linking stops at once instead of trying every file on every rebuild."""
    docs_dir = os.path.join(os.path.abspath(config.docs_dir), "")
    folders: set[str] = set()  # the 10,000 exports share one folder: make it once
    linked = 0
    for file in files:
        source = file.abs_src_path
        if file.is_documentation_page() or not source or not source.startswith(docs_dir):
            continue
        folder = os.path.dirname(file.abs_dest_path)
        if folder not in folders:
            os.makedirs(folder, exist_ok=True)
            folders.add(folder)
        try:
            os.link(source, file.abs_dest_path)
        except OSError:  # FileExistsError included
            break
        linked += 1
    return linked


def _converted_part(job: tuple, start: int, stop: int) -> list[Converted]:
    config, files, entry_files = job
    collected = _collect_log_here()
    return [_converted(file, config, files, collected) for file in entry_files[start:stop]]


def _rendered_part(job: tuple, start: int, stop: int) -> list[tuple[str, list]]:
    env, config, files, nav, pages = job
    collected = _collect_log_here()
    doc_files = files.documentation_pages()
    rendered = []
    for page in pages[start:stop]:
        collected.records = []
        rendered.append((_rendered(page, env, config, doc_files, nav), collected.records))
        # MkDocs's one-core loop writes the page; making its folder was half of that time.
        os.makedirs(os.path.dirname(page.file.abs_dest_path), exist_ok=True)
    return rendered


def _rendered(page: Page, env, config, doc_files, nav) -> str:
    """The page's HTML as MkDocs's build would render it, before the `post_page` event."""
    page.active = True
    try:
        context = get_context(nav, doc_files, config, page)
        template = env.get_template(page.meta.get("template", "main.html"))
        context = config.plugins.on_page_context(context, page=page, config=config, nav=nav)
        return template.render(context)
    except Exception as error:
        error.add_note(f"while rendering {page.file.src_uri}")
        raise
    finally:
        page.active = False


def _collect_log_here() -> _Collect:
    """In a worker: its log records go back to the main process instead of being printed here."""
    collected = _Collect()
    MKDOCS_LOG.handlers, MKDOCS_LOG.propagate = [collected], False
    return collected


def _log_again(records: list[tuple[str, int, str]]) -> None:
    for name, level, message in records:
        logging.getLogger(name).log(level, message)


def _converted(file: File, config, files: Files, collected: _Collect) -> Converted:
    collected.records = []
    page = EntryPage(None, file, config)
    try:
        page = config.plugins.on_pre_page(page, config=config, files=files)
        page.read_source(config)
        source = page.markdown
        page.markdown = config.plugins.on_page_markdown(page.markdown, page=page, config=config, files=files)
        page.render(config, files)
    except Exception as error:
        error.add_note(f"while converting {file.src_uri}")
        raise
    links = page.links_to_anchors
    return Converted(
        markdown=source,
        meta=page.meta,
        content=page.content,
        toc=page.toc,
        title_from_render=page._title_from_render,
        present_anchor_ids=page.present_anchor_ids,
        links_to_anchors=None if links is None else {linked.src_uri: anchors for linked, anchors in links.items()},
        log=collected.records,
    )


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.name, record.levelno, record.getMessage()))
