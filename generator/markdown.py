"""Make untrusted entry text safe to drop into generated Markdown.

Entry fields are Markdown written by strangers, read by cmark-gfm on entry pages
(generator/entry_html.py) and by Python-Markdown on the others. Python-Markdown passes raw HTML
through and attr_list turns `{...}` into HTML attributes, so before a field reaches a page: raw
HTML is escaped, `{` cannot open an attribute list, links may only use http(s) or relative
targets, and block syntax that would escape the field's section (headings, admonitions, tabs,
unbalanced code fences) is neutralised. Code spans and fenced code keep their text exactly.
"""

from __future__ import annotations

import html
import re

FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})", re.MULTILINE)
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
LINK_TARGET = re.compile(r"\]\(\s*<?\s*([A-Za-z][A-Za-z0-9+.-]*):")
REFERENCE_DEFINITION = re.compile(r"^( {0,3})\[([^\]]*)\]:", re.MULTILINE)
BLOCK_OPENERS = re.compile(r"^( {0,3})(#|={3}|!{3}|\?{3}|-{3,}[ \t]*$|\*{3}|\+{3})", re.MULTILINE)
NUMBERED_ITEM = re.compile(r"(\d+)[.)]\s")
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
LOOSE_CODE_SPAN = re.compile(r"`+([^`]+)`+")
EMPHASIS = re.compile(r"(?<![\w*])(\*\*|\*)(?=\S)(.+?)(?<=\S)\1(?![\w*])")
# A `*` between two parts of one token (`16*5*5`, `C*H*W`): arithmetic, never emphasis.
INNER_STAR = re.compile(r"(?<=[\w)\]])\*(?=[\w(])")
LINK_TARGET_OR_UNDERSCORE = re.compile(r"(\]\([^)]*\))|_")
SAFE_SCHEMES = {"http", "https"}
# What prose escaping replaces, in order ("&" first, so that no entity is escaped twice).
ENTITIES = (("&", "&amp;"), ("<", "&lt;"), ("{", "&#123;"), ("`", "&#96;"))
BACKSLASH_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|])")
PADDED_CODE_SPAN = re.compile(r"`+ ?([^`]*?) ?`+")
# Backslash pairs that escape in Python-Markdown too; before any other character, and before a
# character escaping turns into an entity, an entry's backslash is shown (as Python-Markdown did).
PYTHON_MARKDOWN_ESCAPES = set("\\*_}[]()>#+-.!")
LONE_BACKSLASH = re.compile(r"\\(.?)", re.DOTALL)
SPAN_LINE_BREAK = re.compile(r"[ \t]*\n[ \t]*")
BLANK_LINE = re.compile(r"\n[ \t]*\n")


def inline(text: str) -> str:
    """One-line Markdown: newlines become spaces, so nothing can start a new block."""
    return _escape_prose(" ".join(text.split()), block=False)


def inline_title(text: str) -> str:
    """A title (an entry's, or a referenced page's) as one line of Markdown: code spans stay code,
    and `*` and `_` show as typed, as on the GitHub page the title was copied from."""
    return _escape_prose(" ".join(text.split()), block=False, title=True)


def block(text: str) -> str:
    """Multi-paragraph Markdown (lists, code fences); headings and section-breaking syntax neutralised."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    parts = _split_fences(text)
    out = []
    for is_code, part in parts:
        out.append(part if is_code else _escape_prose(part, block=True))
    return "".join(out)


def code_span(text: str) -> str:
    """Verbatim text as an inline code span, whatever backticks it contains."""
    text = " ".join(text.split("\n"))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") or longest else text
    return f"{fence}{padded}{fence}"


def table_cell(markdown: str) -> str:
    """Markdown that stays inside one table cell: no newlines, pipes escaped outside code spans."""
    pieces = []
    position = 0
    for span in CODE_SPAN.finditer(markdown):
        pieces.append(markdown[position : span.start()].replace("|", "\\|"))
        pieces.append(span.group(0))
        position = span.end()
    pieces.append(markdown[position:].replace("|", "\\|"))
    return " ".join("".join(pieces).split())


def gfm_table_cell(markdown: str) -> str:
    """Markdown that stays inside one cell of a GFM table (entry pages, generator/entry_html.py):
    no newlines, and every pipe escaped. GFM splits a row at a pipe inside a code span too, and
    takes the backslash off before the span is read, so the code still shows its pipe."""
    return " ".join(markdown.replace("|", "\\|").split())


def inline_html(text: str) -> str:
    """One line of entry text as HTML for the listing tables, which are raw HTML (Markdown tables
    of 10,000 rows took MkDocs seconds a page): code spans become <code>, all else is escaped
    text, so other inline Markdown shows as typed."""
    text = " ".join(text.split())
    pieces = []
    position = 0
    for span in CODE_SPAN.finditer(text):
        pieces.append(html.escape(text[position : span.start()], quote=False))
        code = span.group(0).strip("`")
        pieces.append(f"<code>{html.escape(code.strip() if code.strip() else code, quote=False)}</code>")
        position = span.end()
    pieces.append(html.escape(text[position:], quote=False))
    return "".join(pieces)


def plain_pieces(text: str) -> list[str]:
    """One line of entry Markdown as alternating prose and code (prose first): links reduced
    to their text, emphasis to its words, code spans to their content. Nothing is escaped."""
    text = MARKDOWN_LINK.sub(r"\1", " ".join(text.split()))
    pieces = LOOSE_CODE_SPAN.split(text)  # one group: prose, code, prose, ...
    return [piece if index % 2 else EMPHASIS.sub(r"\2", piece) for index, piece in enumerate(pieces)]


def plain(text: str) -> str:
    """One line of entry Markdown as plain text, for a page's meta description."""
    return "".join(plain_pieces(text))


def plain_from_escaped(escaped: str) -> str:
    """Markdown made by `inline` (or composed from its output) back to plain text, for the FAQPage
    JSON-LD: links reduced to their text, code spans to their content, escapes undone."""
    text = PADDED_CODE_SPAN.sub(r"\1", MARKDOWN_LINK.sub(r"\1", escaped))
    for character, entity in reversed(ENTITIES):
        text = text.replace(entity, character)
    return BACKSLASH_ESCAPE.sub(r"\1", text)


def shortened(text: str, limit: int) -> str:
    """The text on one line, cut at a word boundary before `limit` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " …"


def fence(code: str, language: str = "") -> str:
    """A fenced code block that no backtick run inside `code` can close early."""
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
    marker = "`" * (longest + 1)
    return f"{marker}{language}\n{code.rstrip()}\n{marker}"


def closing_fence(marker: str) -> re.Pattern:
    """The line that closes a fence opened by `marker` (CommonMark's rule): the same character, at
    least as many, up to three spaces before and nothing but spaces after. Escaping and the entry
    page converter (generator/entry_html.py) must agree on where code ends."""
    return re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$", re.MULTILINE)


def _split_fences(text: str) -> list[tuple[bool, str]]:
    """Split into (is_code, text) parts at balanced fences; an unclosed fence is treated as prose."""
    parts: list[tuple[bool, str]] = []
    position = 0
    while True:
        opening = FENCE.search(text, position)
        if opening is None:
            break
        marker = opening.group(2)
        closing = closing_fence(marker)
        line_end = text.find("\n", opening.end())
        close = closing.search(text, line_end + 1) if line_end != -1 else None
        if close is None:
            break
        parts.append((False, text[position : opening.start()]))
        parts.append((True, text[opening.start() : close.end()]))
        position = close.end()
    parts.append((False, text[position:]))
    return parts


def _escape_prose(text: str, block: bool, title: bool = False) -> str:
    if "`" not in text:
        return _escape_plain(text, block, title)
    pieces = []
    position = 0
    for span in CODE_SPAN.finditer(text):
        pieces.append(_escape_plain(text[position : span.start()], block, title))
        # A code span's line break is a space; left in, a continuation line that starts with
        # `<` (`<output keys>`) opens a raw HTML block that swallows the rest of the section.
        # Backticks a blank line apart are no span: Markdown ends the paragraph between them.
        code = span.group(0)
        pieces.append(code if BLANK_LINE.search(code) else SPAN_LINE_BREAK.sub(" ", code))
        position = span.end()
    pieces.append(_escape_plain(text[position:], block, title))
    return "".join(pieces)


def _escape_plain(text: str, block: bool, title: bool = False) -> str:
    if "\\" in text:
        text = LONE_BACKSLASH.sub(_backslash_as_typed, text)
    for character, entity in ENTITIES:
        text = text.replace(character, entity)
    if title:
        # A title holds no links, and it often sits inside a link's text: an issue titled
        # `[Bug]: crash` would otherwise read as a reference definition and end the link early.
        return _escape_line_start(_literal_underscores_and_stars(_literal_brackets(text), all_stars=True))
    text = _literal_underscores_and_stars(text, all_stars=False)
    if "](" in text:
        text = LINK_TARGET.sub(_neutralise_link, text)
    if "]:" in text:
        text = REFERENCE_DEFINITION.sub(r"\1\\[\2]:", text)
    if block:
        return BLOCK_OPENERS.sub(lambda match: match.group(1) + "\\" + match.group(2), text)
    return _escape_line_start(text)


def _backslash_as_typed(pair: re.Match) -> str:
    """A backslash pair kept where both dialects read it as an escape; otherwise the backslash
    doubled, so that CommonMark (which escapes any punctuation) shows it as well."""
    return pair.group(0) if pair.group(1) in PYTHON_MARKDOWN_ESCAPES else "\\" + pair.group(0)


def _escape_line_start(text: str) -> str:
    """Text that could open a block where it starts, with that opener escaped; the space before
    it stays, since this piece may follow a code span inside the line."""
    stripped = text.lstrip()
    indent = text[: len(text) - len(stripped)]
    if stripped.startswith(("#", "=", "!!!", "???", "-", "+", "*", ">")):
        return indent + "\\" + stripped
    # A backslash before a digit escapes nothing and would show: a list number keeps its digits
    # and escapes the `.` or `)` after them.
    if number := NUMBERED_ITEM.match(stripped):
        return indent + number.group(1) + "\\" + stripped[number.end(1) :]
    return text


def _literal_brackets(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]")


def _literal_underscores_and_stars(text: str, all_stars: bool) -> str:
    """Underscores and in-word stars escaped, outside link targets. In this corpus `__init__`,
    `_saved_` and `16*5*5` are names and arithmetic, and Markdown had made them bold or italic
    (and dropped the marks); entries emphasise with `*` or `**` around words, if at all."""
    if "_" in text:
        if "](" in text:
            text = LINK_TARGET_OR_UNDERSCORE.sub(lambda match: match.group(1) or "\\_", text)
        else:
            text = text.replace("_", "\\_")
    if "*" in text:
        text = text.replace("*", "\\*") if all_stars else INNER_STAR.sub(r"\\*", text)
    return text


def _neutralise_link(match: re.Match) -> str:
    if match.group(1).lower() in SAFE_SCHEMES:
        return match.group(0)
    return "]\\(" + match.group(0)[2:]


def cut_code_spans(text: str) -> list[str]:
    """Code spans that look like one span cut in two by backticks inside it.

    An error message quoted between single backticks ends its code span at the message's own
    first backtick (`Use `x` instead.` renders as code, text, code). Such a piece starts or ends
    with a space but not both, or opens right after a letter or digit. Fenced blocks (three or
    more backticks) are skipped. Every prose field of every entry is checked, so the common case
    (single backticks only: the spans are every other piece between them) avoids the regex.
    """
    if "``" in text:
        spans = [
            (span.group(1), span.group(2), text[span.start() - 1 : span.start()]) for span in CODE_SPAN.finditer(text)
        ]
    else:
        pieces = text.split("`")
        spans = [("`", pieces[i], pieces[i - 1][-1:]) for i in range(1, len(pieces) - 1, 2)]
    return [
        code.strip()
        for ticks, code, before in spans
        if (code[:1].isspace() != code[-1:].isspace() or before.isalnum() or before == "_")
        and len(ticks) < 3
        and not code.isspace()
    ]
