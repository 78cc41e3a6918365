"""Raw HTML blocks go around Python-Markdown, and come back where they were."""

from __future__ import annotations

import markdown as python_markdown

from generator import markdown
from generator.raw_html import put_back, set_aside

PAGE = """# Tag: oom

Entries, most severe first.

<!-- raw-html -->
<table>
<tr><td><a href="../../entries/cuda-oom/">CUDA <code>out of memory</code></a></td></tr>
</table>
<!-- /raw-html -->
Text right after the table.
"""


def rendered(text: str) -> str:
    text, blocks = set_aside(text)
    return put_back(python_markdown.markdown(text), blocks)


def test_a_raw_block_comes_back_in_place_and_untouched():
    html = rendered(PAGE)
    table = PAGE.split("<!-- raw-html -->\n")[1].split("<!-- /raw-html -->")[0]
    assert html == (
        "<h1>Tag: oom</h1>\n<p>Entries, most severe first.</p>\n" + table + "\n<p>Text right after the table.</p>"
    )


def test_markdown_without_blocks_is_left_alone():
    assert set_aside("# Title\n\n| a |\n|---|\n| b |\n") == ("# Title\n\n| a |\n|---|\n| b |\n", [])


def test_entry_text_cannot_open_a_raw_block():
    # Entry fields reach pages through generator.markdown, which escapes `<`.
    text = markdown.block("<!-- raw-html -->\n<script>alert(1)</script>\n<!-- /raw-html -->")
    assert set_aside(text) == (text, [])
    assert "<script>" not in rendered(text)
