"""Entry pages as HTML, converted by cmark-gfm instead of Python-Markdown.

Python-Markdown took about 12 ms an entry page, most of a 10,000-entry `mkdocs build`; cmark-gfm,
GitHub's C converter, takes about 0.3 ms. Entry pages come from one template
(templates/entry.md.j2), and their text is read as GitHub shows it in a pull request: CommonMark
with GFM tables. cmark-gfm knows none of the three block forms the template borrows from the
site's Python-Markdown extensions, so they are found here, outside code fences, and written as
those extensions write them, for the theme's styles and scripts:

- admonitions: `!!! kind "Title"` and a body indented four spaces;
- content tabs (pymdownx.tabbed, alternate style): `=== "Label"` runs, each with an indented body;
- headings: the `toc` extension's ids (`{ #id }` or one made from the text), permalinks and the
  table of contents.

The page goes through cmark-gfm in one call: each form becomes a marker paragraph (titles and
labels ride in it as Markdown), swapped for the form's HTML afterwards. The marker is a word the
page does not hold, so entry text cannot forge one. Entry text was made safe for this dialect by
generator/markdown.py; on top of that cmark-gfm's safe mode drops raw HTML and `javascript:`
links, and images become links, as with Python-Markdown's image syntax off (markdown_syntax.py):
an entry must not make readers' browsers load a third-party URL.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from cmarkgfm.cmark import markdown_to_html_with_extensions
from markdown.extensions.toc import nest_toc_tokens, slugify, strip_tags, unique

from generator.markdown import FENCE, closing_fence

ADMONITION = re.compile(r'!!! ([\w-]+)(?: +"(.*)")?[ \t]*$')
TAB = re.compile(r'=== "(.*)"[ \t]*$')
HEADING = re.compile(r"(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
HEADING_ID = re.compile(r"[ \t]*\{:?[ \t]*#([\w:.-]+)[ \t]*\}$")
CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
BODY_INDENT = "    "
PERMALINK = '<a class="headerlink" href="#{0}" title="Permanent link">&para;</a>'
IMAGE = re.compile(r'<img src="([^"]*)" alt="([^"]*)"(?: title="([^"]*)")? />')


@dataclass
class EntryHtml:
    """What MkDocs keeps of a converted page (Page.content, toc, title and anchors)."""

    content: str
    toc_tokens: list[dict]
    title: str | None  # the first heading's text when the page opens with an h1, as MkDocs takes it
    anchor_ids: set[str]


def entry_html(markdown: str) -> EntryHtml:
    """The page's HTML, headings numbered and linked as Python-Markdown's `toc` would."""
    page = _Page(_unused_word(markdown))
    flat = "\n".join(page.flattened(markdown.split("\n")))
    converted = markdown_to_html_with_extensions(flat, extensions=["table"])
    converted = page.forms_put_back(converted)
    converted = IMAGE.sub(_image_as_link, converted)
    converted = converted.replace("<pre><code", '<pre class="highlight"><code').replace(
        "\n</code></pre>", "</code></pre>"
    )
    content, tokens = page.headings_numbered(converted)
    title = tokens[0]["name"] if tokens and tokens[0]["level"] == 1 and content.startswith("<h1") else None
    return EntryHtml(content.rstrip("\n"), nest_toc_tokens(tokens), title, page.ids)


@dataclass
class _Page:
    marker: str
    forms: list = field(default_factory=list)  # what each marker paragraph becomes, by number
    heading_ids: list[str | None] = field(default_factory=list)  # `{ #id }` of each marked heading
    ids: set[str] = field(default_factory=set)
    tab_sets: int = 0

    def flattened(self, lines: list[str]) -> list[str]:
        """The lines with each form replaced by marker paragraphs around its body."""
        out: list[str] = []
        closing = None  # the line that ends the code fence we are in
        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            if closing is not None:
                if closing.match(line):
                    closing = None
            elif opening := FENCE.match(line):
                closing = closing_fence(opening.group(2))
            elif heading := HEADING.match(line):
                line = self._marked_heading(heading.group(1), heading.group(2) or "")
            elif admonition := ADMONITION.match(line):
                body, index = _indented_body(lines, index)
                out += self._admonition(admonition.group(1), admonition.group(2), body)
                continue
            elif TAB.match(line):
                tabs, index = _tab_run(lines, index - 1)
                out += self._tab_set(tabs)
                continue
            out.append(line)
        return out

    def _paragraph(self, form, text: str = "") -> list[str]:
        self.forms.append(form)
        return ["", f"{self.marker}{len(self.forms) - 1} {text}".rstrip(), ""]

    def _marked_heading(self, hashes: str, text: str) -> str:
        explicit = HEADING_ID.search(text)
        if explicit:
            text = text[: explicit.start()]
            self.ids.add(explicit.group(1))
        self.heading_ids.append(explicit.group(1) if explicit else None)
        text = CLOSING_HASHES.sub("", text)
        return f"{hashes} {text} {self.marker}h{len(self.heading_ids) - 1}"

    def _admonition(self, kind: str, title: str | None, body: list[str]) -> list[str]:
        title = kind.capitalize() if title is None else title

        def opening(title_html: str) -> str:
            title_line = f'\n<p class="admonition-title">{title_html}</p>' if title_html else ""
            return f'<div class="admonition {kind}">{title_line}'

        return [*self._paragraph(opening, title), *self.flattened(body), *self._paragraph(lambda _: "</div>")]

    def _tab_set(self, tabs: list[tuple[str, list[str]]]) -> list[str]:
        self.tab_sets += 1
        number, labels = self.tab_sets, []
        out: list[str] = []
        for label, _ in tabs:
            out += self._paragraph(lambda label_html: labels.append(label_html) or "", label)
        ids = [f"__tabbed_{number}_{tab}" for tab in range(1, len(tabs) + 1)]
        self.ids.update(ids)

        def opening(_: str) -> str:
            inputs = "".join(_tab_input(tab_id, number, checked=tab_id == ids[0]) for tab_id in ids)
            label_html = "".join(
                f'<label for="{tab_id}">{text}</label>' for tab_id, text in zip(ids, labels, strict=True)
            )
            return (
                f'<div class="tabbed-set tabbed-alternate" data-tabs="{number}:{len(ids)}">{inputs}'
                f'<div class="tabbed-labels">{label_html}</div>\n<div class="tabbed-content">'
            )

        out += self._paragraph(opening)
        for _, body in tabs:
            out += self._paragraph(lambda _: '<div class="tabbed-block">')
            out += self.flattened(body)
            out += self._paragraph(lambda _: "</div>")
        return out + self._paragraph(lambda _: "</div>\n</div>")

    def forms_put_back(self, converted: str) -> str:
        """The HTML with each marker paragraph replaced, in page order (a tab set's labels come
        before its opening)."""
        paragraph = re.compile(rf"<p>{self.marker}(\d+)(?: (.*?))?</p>\n?", re.DOTALL)

        def replaced(found: re.Match) -> str:
            form_html = self.forms[int(found.group(1))](found.group(2) or "")
            return form_html + "\n" if form_html else ""

        return paragraph.sub(replaced, converted)

    def headings_numbered(self, converted: str) -> tuple[str, list[dict]]:
        """The HTML with ids and permalinks on its headings, and the flat table of contents.

        As in Python-Markdown's `toc`: a heading without an id gets its text slugified, made
        unique among every id on the page. A heading written by entry text (a setext one) has
        no marker and is numbered the same way."""
        heading = re.compile(rf"<h([1-6])>(.*?)(?: ?{self.marker}h(\d+))?</h\1>", re.DOTALL)
        used, counters, tokens = set(self.ids), {}, []

        def numbered(found: re.Match) -> str:
            level, inner = found.group(1), found.group(2).strip()
            marked = found.group(3)
            name = strip_tags(inner)
            given = self.heading_ids[int(marked)] if marked is not None else None
            anchor = given or unique(slugify(html.unescape(name), "-"), used, counters)
            tokens.append({"level": int(level), "id": anchor, "name": name, "html": inner, "data-toc-label": ""})
            self.ids.add(anchor)
            escaped = html.escape(anchor)
            return f'<h{level} id="{escaped}">{inner}{PERMALINK.format(escaped)}</h{level}>'

        return heading.sub(numbered, converted), tokens


def _indented_body(lines: list[str], index: int) -> tuple[list[str], int]:
    """The lines from `index` indented four spaces (blank lines included), dedented, and the
    index after them; trailing blank lines stay outside."""
    body: list[str] = []
    while index < len(lines) and (lines[index].startswith(BODY_INDENT) or not lines[index].strip()):
        body.append(lines[index][len(BODY_INDENT) :])
        index += 1
    while body and not body[-1].strip():
        body.pop()
        index -= 1
    return body, index


def _tab_run(lines: list[str], index: int) -> tuple[list[tuple[str, list[str]]], int]:
    """The labels and bodies of the tabs starting at `index` (blank lines may part them)."""
    tabs = []
    while index < len(lines) and (label := TAB.match(lines[index])):
        body, index = _indented_body(lines, index + 1)
        tabs.append((label.group(1), body))
        after = index
        while after < len(lines) and not lines[after].strip():
            after += 1
        if after < len(lines) and TAB.match(lines[after]):
            index = after
    return tabs, index


def _tab_input(tab_id: str, tab_set: int, checked: bool) -> str:
    checked_attribute = ' checked="checked"' if checked else ""
    return f'<input{checked_attribute} id="{tab_id}" name="__tabbed_{tab_set}" type="radio" />'


def _unused_word(markdown: str) -> str:
    word = "TRAINWRECKFORM"
    while word in markdown:
        word += "X"
    return word


def _image_as_link(found: re.Match) -> str:
    title = f' title="{found.group(3)}"' if found.group(3) is not None else ""
    return f'!<a href="{found.group(1)}"{title}>{found.group(2)}</a>'
