"""Entry pages converted by cmark-gfm: the forms the template borrows come out as the site's
Python-Markdown extensions wrote them, and entry text is read as GitHub reads it."""

from __future__ import annotations

import html

import markdown as python_markdown

from generator import markdown
from generator.entry_html import entry_html

# The extensions mkdocs.yml gives Python-Markdown, which still converts the hand-written pages.
EXTENSIONS = [
    "toc",
    "tables",
    "admonition",
    "attr_list",
    "pymdownx.superfences",
    "pymdownx.tabbed",
    "pymdownx.highlight",
]
CONFIGS = {
    "toc": {"permalink": True, "marker": ""},
    "pymdownx.tabbed": {"alternate_style": True},
    "pymdownx.highlight": {"use_pygments": False},
}

TEMPLATE_SHAPED = """# Title with `code`

!!! abstract "Quick answer"

    **Root cause:** the cache *grows*.

    [Memory](../categories/memory.md) · [#oom](../tags/oom.md)

!!! warning

    A body under the default title.

## What you'll observe

- one
- two

## Symptoms

| Symptom | What it means |
|---|---|
| `RuntimeError: out of memory` | The allocator gave up. |

## How to confirm

1. Run this.

    ```bash
    nvidia-smi
    ```

    *Confirms it:* a full card.

### Code

=== "PyTorch"

    ```python
    import torch
    ```

    A note under the code.

=== "JAX (XLA)"

    ```python
    import jax
    ```

## FAQ

### What causes this failure? { #faq-cause }

An answer.

### Symptoms

Same words as an earlier heading, so its id gets a suffix.

---

[Edit this entry](https://example.org/edit) (`entries/memory/x.yaml`)
"""


def python_markdown_of(text: str) -> tuple[str, list[dict]]:
    converter = python_markdown.Markdown(extensions=EXTENSIONS, extension_configs=CONFIGS)
    return converter.convert(text), converter.toc_tokens


def test_template_forms_come_out_as_the_extensions_write_them():
    ours = entry_html(TEMPLATE_SHAPED)
    theirs, toc_tokens = python_markdown_of(TEMPLATE_SHAPED)
    assert ours.content == theirs
    assert ours.toc_tokens == toc_tokens
    assert ours.title == "Title with code"
    assert {"symptoms", "symptoms_1", "faq-cause", "__tabbed_1_1", "__tabbed_1_2"} <= ours.anchor_ids


def test_a_page_not_opening_with_a_title_has_none():
    assert entry_html("Text first.\n\n# Late title\n").title is None


def test_forms_inside_a_code_fence_stay_code():
    page = entry_html('Before.\n\n```text\n!!! note\n# not a heading\n=== "not a tab"\n```\n\nAfter.\n')
    assert (
        '<pre class="highlight"><code class="language-text">!!! note\n# not a heading\n=== &quot;not a tab&quot;</code></pre>'
        in page.content
    )
    assert page.toc_tokens == [] and "admonition" not in page.content and "tabbed" not in page.content


def test_entry_text_cannot_forge_a_form():
    field = markdown.block('TRAINWRECKFORM0\n\nTRAINWRECKFORM1 Title\n\n!!! danger\n\n=== "x"\n\n# heading')
    page = entry_html(f'!!! note "Real"\n\n    Body.\n\n{field}\n')
    assert page.content.count("<div") == 1 and page.content.count("</div>") == 1
    assert "<p>TRAINWRECKFORM0</p>" in page.content and "<p>TRAINWRECKFORM1 Title</p>" in page.content
    assert "<p>!!! danger</p>" in page.content and "<h1" not in page.content


def test_images_become_links_to_what_they_show():
    content = entry_html(markdown.block("See ![the plot](https://example.org/plot.png).")).content
    assert content == '<p>See !<a href="https://example.org/plot.png">the plot</a>.</p>'


def test_table_cells_keep_pipes_inside_and_outside_code():
    cell = markdown.gfm_table_cell(markdown.code_span("slot 0 | task 2017 || done") + " a | b")
    content = entry_html(f"| Symptom | Meaning |\n|---|---|\n| {cell} | one |\n").content
    assert "<td><code>slot 0 | task 2017 || done</code> a | b</td>\n<td>one</td>" in content


def test_backslashes_show_as_typed():
    content = entry_html(
        markdown.inline(r"cache at ...\triton\0\<hash> and \"quoted\" and C:\Users\me\ and \_x")
    ).content
    assert html.unescape(content) == r"<p>cache at ...\triton\0\<hash> and \"quoted\" and C:\Users\me\ and \_x</p>"


def test_entry_text_is_read_as_github_reads_it():
    """A list nested by three spaces under a numbered item (Python-Markdown wanted four)."""
    content = entry_html(
        markdown.block("1. How it happens:\n   - a fixed map;\n   - no map.\n2. Then it fails.")
    ).content
    assert content == (
        "<ol>\n<li>How it happens:\n<ul>\n<li>a fixed map;</li>\n<li>no map.</li>\n</ul>\n</li>\n"
        "<li>Then it fails.</li>\n</ol>"
    )
