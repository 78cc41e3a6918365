"""YAML reading: every refusal is located at the offending line and column."""

from __future__ import annotations

import time

import pytest

from generator.document import MAX_BYTES, DocumentError, read_document


def error_of(raw: bytes) -> DocumentError:
    with pytest.raises(DocumentError) as caught:
        read_document(raw)
    return caught.value


def test_positions_point_at_each_value():
    document = read_document(b"id: x\nfix:\n  steps:\n    - step: one\n")
    assert document.position(("id",)) == (1, 5)
    assert document.position(("fix", "steps", 0, "step")) == (4, 13)
    assert document.position(("fix", "steps", 0, "missing")) == (4, 7)


@pytest.mark.parametrize(
    ("raw", "line", "col", "message"),
    [
        (b"a: 1\nb: [1, 2\n", 3, 1, "YAML syntax error"),
        (b"a:\n\tb: 1\n", 2, 1, "a tab; YAML indents with spaces only"),
        (b"a: 1\nb: 2\na: 3\n", 3, 1, "duplicate key 'a' (first on line 1)"),
        (b"a: &x 1\nb: *x\n", 1, 4, "anchors (&name) are not allowed"),
        (
            b"a: !!python/object/apply:os.system [ls]\n",
            1,
            4,
            "explicit tags like tag:yaml.org,2002:python/object/apply:os.system",
        ),
        (b"a: !custom x\n", 1, 4, "explicit tags like !custom"),
        (b"\xef\xbb\xbfa: 1\n", 1, 1, "byte-order mark"),
        (b"a: 1\nb: caf\xe9\n", 2, 7, "not valid UTF-8"),
        (b"", 1, 1, "file is empty"),
        (b"  \n\n", 1, 1, "file is empty"),
        (b"- a\n- b\n", 1, 1, "must be a mapping of fields, not a list"),
        (b"just text\n", 1, 1, "must be a mapping of fields, not a string"),
        (b"a: 1\n---\nb: 2\n", 2, 1, "expected a single document in the stream"),
        (b"? [a, b]\n: 1\n", 1, 3, "keys must be plain strings"),
    ],
)
def test_refusals_are_located(raw, line, col, message):
    error = error_of(raw)
    assert (error.line, error.col) == (line, col)
    assert message in error.message


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        (b"a:\n  note: fixed in PR #123.\n", [(2, 21, "a.note")]),
        (b"a:\n  - fixed #1\n", [(2, 11, "a.0")]),
        (b"a:\n  b: one line\n    #2 is lost\n", [(3, 5, "a.b")]),
        (
            b"id: x\nfix:\n  steps:\n    - step: see #12\n    - step: and #13\n",
            [(4, 17, "fix.steps.0.step"), (5, 17, "fix.steps.1.step")],
        ),
    ],
)
def test_every_unquoted_value_a_comment_cuts_short_is_located(raw, where):
    document = read_document(raw)
    assert [(cut.line, cut.col, cut.field) for cut in document.cut_values] == where
    assert all("where ' #' starts a YAML comment" in cut.message for cut in document.cut_values)


@pytest.mark.parametrize(
    "raw",
    [
        b"a: 'fixed in PR #123.'\n",
        b'a: "fixed in PR #123."\n',
        b"a: >-\n  fixed in PR #123.\n",
        b"a: issue#123 has no space before the hash\n",
        b"a:\n  b: one\n  # a comment at the key's indentation\n  c: two\n",
        b"a:\n  - one\n  # a comment before the next item\n  - two\n",
    ],
)
def test_quoted_values_and_comments_on_their_own_lines_are_kept(raw):
    assert read_document(raw).cut_values == []


def test_billion_laughs_is_refused_quickly():
    lines = [b'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for index in range(1, 10):
        name, previous = chr(97 + index).encode(), chr(96 + index).encode()
        lines.append(name + b": &" + name + b" [" + b",".join([b"*" + previous] * 9) + b"]")
    started = time.perf_counter()
    error = error_of(b"\n".join(lines) + b"\n")
    assert time.perf_counter() - started < 0.5
    assert error.line == 1 and "anchors" in error.message


def test_oversized_file_is_refused_before_parsing():
    error = error_of(b"a: " + b"x" * (MAX_BYTES + 1))
    assert error.line == 1 and "the limit is 1,000,000" in error.message


def test_deep_nesting_is_refused():
    raw = b"a: " + b"[" * 50 + b"]" * 50 + b"\n"
    error = error_of(raw)
    assert "nesting deeper than 20 levels" in error.message


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",
        "a: !!python/object:os.system x\n",
        "--- !!map\na: 1\n",
        "- &a x\n- *a\n",
        "a:\n  - - *a\n",
        "a: {b: *x}\n",
        "a: [1,*x]\n",
        "? &k a\n: b\n",
        "a:\t&x 1\n",
        "&top\na: 1\n",
        "a: !tag x\n",
        "a:\n  &x b: 1\n",
        "--- &a\nb: 1\n",
        "a: {? &k x : y}\n",
    ],
)
def test_every_place_an_anchor_alias_or_tag_can_start_is_scanned(text):
    # The quick text check decides whether the event scan runs; a miss would let one through.
    with pytest.raises(DocumentError, match="not allowed"):
        read_document(text.encode())


def test_a_validated_document_keeps_its_bytes_and_decodes_its_text_only_when_asked():
    """A loaded entry keeps its document to locate later problems; its decoded text took 40%
    more memory than its bytes, for a first diagnosis that never looks at it."""
    raw = "id: café\ntitle: Café au lait\n".encode()
    kept = read_document(raw).without_data()
    assert kept.data is None
    assert kept.raw is raw
    assert vars(kept)["_text"] is None
    assert kept.position(("title",)) == (2, 8)
    assert kept.text == raw.decode("utf-8")
