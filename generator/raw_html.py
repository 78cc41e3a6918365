"""Let the generator's big HTML listing tables through MkDocs untouched.

The listing tables (all entries, each category, tag, system and severity) are HTML, written
between `<!-- raw-html -->` and `<!-- /raw-html -->` lines. Python-Markdown and then MkDocs
would each run that HTML through `html.parser`, one call per tag: at 10,000 entries the
listings hold 100,000 rows. The MkDocs hook sets each block aside before Markdown sees the page
and puts it back into the page's HTML afterwards. Without the hook the Markdown is still valid,
only slower to build.
"""

from __future__ import annotations

import re

MARKER = "<!-- raw-html -->"
BLOCK = re.compile(r"^<!-- raw-html -->\n(.*?)^<!-- /raw-html -->$", re.MULTILINE | re.DOTALL)
PLACEHOLDER = "TRAINWRECKRAWHTML{}"


def set_aside(markdown: str) -> tuple[str, list[str]]:
    """The Markdown with each raw block replaced by a placeholder paragraph, and the blocks."""
    if MARKER not in markdown:
        return markdown, []
    blocks: list[str] = []

    def placeholder(match: re.Match) -> str:
        blocks.append(match.group(1))
        return "\n" + PLACEHOLDER.format(len(blocks) - 1) + "\n"  # a paragraph of its own

    return BLOCK.sub(placeholder, markdown), blocks


def put_back(html: str, blocks: list[str]) -> str:
    """The rendered page with each placeholder paragraph replaced by its block."""
    for number, block in enumerate(blocks):
        html = html.replace(f"<p>{PLACEHOLDER.format(number)}</p>", block, 1)
    return html
