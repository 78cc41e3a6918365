"""Vocabulary files: every term is read whole, and a malformed one is reported with its line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.errors import ProblemsFound
from generator.vocabulary import load_vocabulary

REPO = Path(__file__).resolve().parents[1]
FIXTURE_VOCAB = REPO / "tests" / "fixtures" / "entries" / "_vocab"


@pytest.fixture
def vocab_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "entries" / "_vocab"
    shutil.copytree(FIXTURE_VOCAB, folder)
    return folder


def problems_of(vocab_dir: Path) -> list[str]:
    with pytest.raises(ProblemsFound) as caught:
        load_vocabulary(vocab_dir, vocab_dir.parents[1])
    return [str(problem) for problem in caught.value.problems]


def add_line(path: Path, line: str) -> int:
    """Append a line; its line number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([*lines, line]) + "\n", encoding="utf-8")
    return len(lines) + 1


def test_descriptions_with_commas_are_read_whole(vocab_dir):
    vocabulary = load_vocabulary(vocab_dir, vocab_dir.parents[1])
    blackwell = vocabulary.terms("tags")["blackwell"]
    assert (
        blackwell.description
        == "NVIDIA Blackwell GPUs (sm_100, sm_120, sm_121), such as B200 and RTX 50 / RTX PRO 6000."
    )
    assert vocabulary.terms("systems")["pytorch"].package == "torch"
    assert vocabulary.terms("tags")["blackwell"].package is None


def test_an_unquoted_comma_is_reported_instead_of_cutting_the_description(vocab_dir):
    line = add_line(
        vocab_dir / "tags.yml", "labels: {title: Labels, description: Targets of a loss - range, dtype and count.}"
    )
    assert problems_of(vocab_dir) == [
        f"entries/_vocab/tags.yml:{line}:1: labels: unknown field `dtype and count.`; a term has `title`, "
        "`description` (quote a value that holds a comma)"
    ]


def test_an_unquoted_hash_is_reported_instead_of_cutting_the_description(vocab_dir):
    line = add_line(vocab_dir / "tags.yml", "labels:\n  title: Labels\n  description: Targets, see #12 for why")
    assert problems_of(vocab_dir) == [
        f"entries/_vocab/tags.yml:{line + 2}:29: labels.description: this unquoted value ends where ' #' starts a"
        " YAML comment, and the rest of the text is dropped; put the value in quotes (or a comment on a line of its"
        " own, at the key's indentation)"
    ]


def test_only_systems_have_a_package(vocab_dir):
    line = add_line(vocab_dir / "tags.yml", "wheels: {title: Wheels, package: pip, description: Binary packages.}")
    assert problems_of(vocab_dir) == [
        f"entries/_vocab/tags.yml:{line}:1: wheels: unknown field `package`; a term has `title`, `description` "
        "(quote a value that holds a comma)"
    ]


def test_a_package_must_be_a_pypi_name(vocab_dir):
    line = add_line(vocab_dir / "systems.yml", "evil: {title: Evil, package: 'x` <b>', description: Not a name.}")
    assert problems_of(vocab_dir) == [
        f"entries/_vocab/systems.yml:{line}:1: evil: `package` is a PyPI project name, such as `flash-attn`"
    ]


def test_bad_slugs_and_missing_fields_are_all_reported(vocab_dir):
    first = add_line(vocab_dir / "systems.yml", "Not_A_Slug: {title: X, description: Y.}")
    second = add_line(vocab_dir / "systems.yml", "rocm: {title: ROCm}")
    assert problems_of(vocab_dir) == [
        f"entries/_vocab/systems.yml:{first}:1: Not_A_Slug: slugs are lowercase ASCII words joined by '-'",
        f"entries/_vocab/systems.yml:{second}:1: rocm: each term needs a `title` and a `description` string",
    ]


def test_a_missing_vocabulary_file_is_reported(vocab_dir):
    (vocab_dir / "severities.yml").unlink()
    assert problems_of(vocab_dir) == ["entries/_vocab/severities.yml:1:1: vocabulary file is missing"]
