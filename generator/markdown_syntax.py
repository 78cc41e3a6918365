"""A Python-Markdown extension that turns off inline syntax the site never uses.

Every text node of every page Python-Markdown converts (all but the entry pages, which
generator/entry_html.py converts) is tried against every inline pattern, so each unused one
costs time. Images are off for safety as well as speed: an entry written by
a stranger must not make readers' browsers load a third-party URL. Reference-style links are
already neutralised in entries (generator/markdown.py) and unused on hand-written pages.
Listed in mkdocs.yml under markdown_extensions.
"""

from __future__ import annotations

from markdown import Markdown
from markdown.extensions import Extension

UNUSED_INLINE_PATTERNS = (
    "reference",
    "image_link",
    "image_reference",
    "short_reference",
    "short_image_ref",
    "automail",
    "linebreak",
)


class UnusedSyntaxOff(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        for name in UNUSED_INLINE_PATTERNS:
            md.inlinePatterns.deregister(name, strict=False)


def makeExtension(**kwargs) -> UnusedSyntaxOff:
    return UnusedSyntaxOff(**kwargs)
