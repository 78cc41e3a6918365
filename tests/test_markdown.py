"""Untrusted field text cannot inject HTML, attributes, links or page structure."""

from __future__ import annotations

from html.parser import HTMLParser

import markdown as python_markdown
import pytest

from generator import markdown
from generator.entry_html import entry_html

EXTENSIONS = ["attr_list", "tables", "admonition", "pymdownx.superfences", "pymdownx.tabbed", "md_in_html"]


def html(text: str) -> str:
    return python_markdown.markdown(text, extensions=EXTENSIONS)


@pytest.mark.parametrize(
    "payload",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        '<iframe src="https://evil.example"></iframe>',
        "[click](javascript:alert(1))",
        "[click]( JAVASCRIPT:alert(1))",
        "[click](<javascript:alert(1)>)",
        "![x](data:text/html;base64,PHNjcmlwdD4=)",
        "<javascript:alert(1)>",
        'A paragraph\n{: onclick="alert(1)" }',
        "text { onmouseover=alert(1) }",
    ],
)
@pytest.mark.parametrize("render", [markdown.inline, markdown.block])
@pytest.mark.parametrize("convert", [html, lambda text: entry_html(text).content], ids=["python-markdown", "cmark-gfm"])
def test_no_active_content_survives(payload, render, convert):
    """On the hand-written pages' converter and on the entry pages' (generator/entry_html.py)."""
    tags = TagCollector()
    tags.feed(convert(render(payload)))
    assert not {"script", "img", "iframe"} & {tag for tag, _ in tags.seen}
    for _, attrs in tags.seen:
        for name, value in attrs:
            assert not name.startswith("on"), (name, value)
            assert not (value or "").strip().lower().startswith(("javascript:", "data:")), (name, value)


class TagCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.seen: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.seen.append((tag, attrs))


def test_code_keeps_its_text():
    assert html(markdown.inline("use `a<b>` here")) == "<p>use <code>a&lt;b&gt;</code> here</p>"
    block = markdown.block("Run:\n\n```\necho '<x>' {y}\n```\n")
    assert "echo '&lt;x&gt;' {y}" in html(block)


def test_one_line_fields_cannot_open_blocks():
    assert html(markdown.inline("# Heading")) == "<p># Heading</p>"
    assert html(markdown.inline("line one\n\n## two")) == "<p>line one ## two</p>"
    assert "<h2" not in html(markdown.block("para\n\n## Injected section\n"))
    assert "admonition" not in html(markdown.block('!!! danger "x"\n    boom'))


def test_unbalanced_fence_cannot_swallow_the_page():
    rendered = markdown.block("before\n```python\nnever closed")
    page = rendered + "\n\n## Next section\n"
    assert "<h2" in html(page)


def test_a_code_span_over_two_lines_cannot_open_an_html_block():
    # The second line of the span starts with `<`: Markdown took it for raw HTML, up to the next
    # blank line, and the rest of the list showed as typed (and hid the table after it).
    text = "1. It raises `ValueError: keys:\n   <output keys>. Done.` and stops.\n2. The next step"
    rendered = html(markdown.block(text))
    assert "<code>ValueError: keys: &lt;output keys&gt;. Done.</code>" in rendered
    assert rendered.count("<li>") == 2
    # Backticks in two paragraphs stay two paragraphs.
    assert html(markdown.block("a `b\n\nc` d")) == "<p>a `b</p>\n<p>c` d</p>"


def test_http_links_still_work():
    assert (
        html(markdown.inline("[docs](https://pytorch.org/docs)"))
        == '<p><a href="https://pytorch.org/docs">docs</a></p>'
    )


def test_table_cells_escape_pipes_outside_code():
    cell = markdown.table_cell(markdown.inline("a | b") + " " + markdown.code_span("x | y"))
    table = html(f"| h |\n|---|\n| {cell} |\n")
    assert "a | b" in table and "<code>x | y</code>" in table and table.count("<td>") == 1


def test_code_span_survives_backticks():
    assert html(markdown.code_span("a ``b`` c")) == "<p><code>a ``b`` c</code></p>"


def test_listing_titles_are_escaped_html_with_code_spans():
    assert (
        markdown.inline_html("OOM in `torch.cuda.<alloc>` & co")
        == "OOM in <code>torch.cuda.&lt;alloc&gt;</code> &amp; co"
    )
    assert (
        markdown.inline_html('</a><script>alert("x")</script>') == '&lt;/a&gt;&lt;script&gt;alert("x")&lt;/script&gt;'
    )
    # An unbalanced backtick stays text; a double-backtick span may hold one; lines are joined.
    assert markdown.inline_html("GLIBCXX_3.4.xx' not found `") == "GLIBCXX_3.4.xx' not found `"
    assert markdown.inline_html("``a`b``\nnext") == "<code>a`b</code> next"


def test_escaped_markdown_reads_back_as_the_plain_text_written():
    escaped = markdown.inline("# Set `a<b && {x}` & {y} <br> per the [docs](https://x.y/z)")
    assert escaped == "\\# Set `a<b && {x}` &amp; &#123;y} &lt;br> per the [docs](https://x.y/z)"
    assert markdown.plain_from_escaped(escaped) == "# Set a<b && {x} & {y} <br> per the docs"
    # A neutralised link stays text; an entity the writer typed is not decoded twice.
    assert markdown.plain_from_escaped(markdown.inline("[x](javascript:y) &lt;")) == "[x](javascript:y) &lt;"


def test_names_and_arithmetic_are_not_read_as_emphasis():
    text = "torch/cuda/__init__.py on <module '__main__'>, the _saved_ tensors and view(-1, 16*5*5)"
    assert html(markdown.inline(text)) == (
        "<p>torch/cuda/__init__.py on &lt;module '__main__'&gt;, the _saved_ tensors and view(-1, 16*5*5)</p>"
    )
    assert markdown.plain(text) == text
    # Words between stars are still emphasis, code is untouched, and link targets keep their underscores.
    assert html(markdown.inline("a **b** *c* `__d__` [e_f](https://x.y/g_h)")) == (
        '<p>a <strong>b</strong> <em>c</em> <code>__d__</code> <a href="https://x.y/g_h">e_f</a></p>'
    )


def test_titles_show_stars_and_underscores_as_typed():
    title = "'cublas runtime error' for (not so large) *fp16* matrix `a*b` in __init__"
    assert html(markdown.inline_title(title)) == (
        "<p>'cublas runtime error' for (not so large) *fp16* matrix <code>a*b</code> in __init__</p>"
    )


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        (
            "stops with `ImportError: Using the `Trainer` with `PyTorch` requires`.",
            ["ImportError: Using the", "with", "requires"],
        ),
        (
            "raises `ValueError: training with AMP (`--fp16`) can only be used on CUDA.`",
            [") can only be used on CUDA."],
        ),
        ("prints `version `GLIBCXX_3.4.30' not found` here", ["version"]),
        ("`a` and `b`, `int`s, `` Use `x` instead. `` and ``x``", []),
        ("Steps:\n\n```python\nx = f` y `\n```\n\nthen `z`.", []),
    ],
)
def test_code_spans_cut_by_a_backtick_inside_are_found(text, cut):
    assert markdown.cut_code_spans(text) == cut


@pytest.mark.parametrize(
    ("title", "text"),
    [
        (
            "[Question]: How to use PYTORCH_MPS_HIGH_WATERMARK_RATIO?",
            "[Question]: How to use PYTORCH_MPS_HIGH_WATERMARK_RATIO?",
        ),
        ("[Bug]: crash in `f[0]`", "[Bug]: crash in <code>f[0]</code>"),
        ("a ] b [c", "a ] b [c"),
        ("[x](javascript:alert(1))", "[x](javascript:alert(1))"),
    ],
)
def test_titles_with_brackets_stay_whole_inside_a_link(title, text):
    assert html(f"[{markdown.inline_title(title)}](https://example.org/1)") == (
        f'<p><a href="https://example.org/1">{text}</a></p>'
    )


def test_a_title_piece_after_a_code_span_keeps_its_space():
    assert html(markdown.inline_title("`torch.load` - a warning")) == "<p><code>torch.load</code> - a warning</p>"


@pytest.mark.parametrize("convert", [html, lambda text: entry_html(text).content], ids=["python-markdown", "cmark-gfm"])
def test_a_number_that_could_start_a_list_shows_without_a_backslash(convert):
    """A backslash before a digit escapes nothing in either dialect: it would show on the page."""
    assert convert(markdown.inline("2. is the default")) == "<p>2. is the default</p>"
    assert (
        convert(markdown.inline("`head_dim_v` 128) in training")) == "<p><code>head_dim_v</code> 128) in training</p>"
    )
    assert (
        markdown.plain_from_escaped(markdown.inline("`head_dim_v` 128) in training")) == "head_dim_v 128) in training"
    )
