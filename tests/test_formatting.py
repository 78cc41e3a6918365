"""`trainwreck fmt`: canonical layout, comments kept, meaning unchanged, idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import write_entry

from generator import formatting, parallel
from generator.cli import main
from generator.formatting import MODELINE, FormattingError, format_entries, format_entry

REPO = Path(__file__).resolve().parents[1]
REAL_ENTRIES = sorted((REPO / "entries").glob("*/*.yaml"))


@pytest.mark.parametrize("path", REAL_ENTRIES, ids=lambda path: path.stem)
def test_round_trip_keeps_meaning_and_is_idempotent(path):
    text = path.read_text(encoding="utf-8")
    once = format_entry(text)
    assert yaml.safe_load(once) == yaml.safe_load(text)
    # A committed entry is already in the layout (`make lint` checks it): then `once` is the text,
    # and formatting it again would repeat the same call.
    assert once == text or format_entry(once) == once


def test_fields_are_reordered_and_comments_kept():
    messy = (
        "created: 2026-11-30\n# why this id\nid: x-y\nfix:\n  steps:\n  - step: do it   # inline note\n  summary: s\n"
    )
    assert format_entry(messy) == (
        f"{MODELINE}\n"
        "# why this id\n"
        "id: x-y\n"
        "fix:\n"
        "  summary: s\n"
        "  steps:\n"
        "    - step: do it # inline note\n"
        "created: 2026-11-30\n"
    )


def test_block_scalars_keep_trailing_spaces():
    text = f"{MODELINE}\nid: x\nmechanism: |\n  line with trailing space \n  next\n"
    assert format_entry(text) == text


def test_folded_text_is_folded_afresh():
    words = " ".join(["word"] * 30)
    ragged = f"{MODELINE}\nid: x\nsummary: >-\n  {words} and\n  more\n  {words}\n"
    formatted = format_entry(ragged)
    lines = formatted.splitlines()[3:]
    assert all(60 < len(line) < 110 for line in lines[:-1]), lines
    assert yaml.safe_load(formatted) == yaml.safe_load(ragged)


def test_a_regex_that_folding_would_change_is_single_quoted():
    # ruamel folds this double-quoted line right after the escaped backslash of `x\\` and loses
    # the escape that continues the line: `\\)` would come back as `\\ )`.
    escaped = r"torch\\.tensor\\(x\\) z and more words to wrap around here again"  # as YAML writes it
    text = f'{MODELINE}\nid: x\nregex: "{"x" * 75} {escaped}"\n'
    formatted = format_entry(text)
    assert yaml.safe_load(formatted)["regex"].endswith(
        r" torch\.tensor\(x\) z and more words to wrap around here again"
    )
    assert formatted == (
        f"{MODELINE}\nid: x\nregex: '{'x' * 75} torch\\.tensor\\(x\\)\n  z and more words to wrap around here again'\n"
    )
    assert format_entry(formatted) == formatted
    # Where ruamel folds such a string correctly, it keeps its double quotes.
    short = f'{MODELINE}\nid: x\nregex: "{escaped}"\n'
    assert format_entry(short) == short


def test_check_mode_and_write_mode(repo, capsys):
    path = write_entry(repo, "memory", "cuda-oom", (repo.entries_dir / "memory" / "cuda-oom.yaml").read_text() + "\n\n")
    assert main(["--root", str(repo.root), "fmt", "--check"]) == 1
    assert "would reformat entries/memory/cuda-oom.yaml" in capsys.readouterr().err
    before = path.read_text()
    assert main(["--root", str(repo.root), "fmt"]) == 0
    assert path.read_text() != before
    assert main(["--root", str(repo.root), "fmt", "--check"]) == 0
    assert main(["--root", str(repo.root), "validate"]) == 0


def test_broken_yaml_is_reported_not_rewritten(repo, capsys):
    path = write_entry(repo, "memory", "broken", "id: [unclosed\n")
    assert main(["--root", str(repo.root), "fmt", str(path)]) == 1
    assert "entries/memory/broken.yaml: cannot format:" in capsys.readouterr().err
    assert path.read_text() == "id: [unclosed\n"


@pytest.fixture
def formatted(monkeypatch) -> list[str]:
    """The ids of the entries that the fmt runs of a test formatted."""
    ids: list[str] = []
    real = formatting.format_entry

    def recording(text: str) -> str:
        ids.append(yaml.safe_load(text)["id"])
        return real(text)

    monkeypatch.setattr(formatting, "format_entry", recording)
    return ids


def test_a_second_run_formats_only_the_files_changed_since(repo, capsys, formatted, monkeypatch):
    assert main(["--root", str(repo.root), "fmt"]) == 0
    every = sorted(formatted)
    assert len(every) == 4
    formatted.clear()
    assert main(["--root", str(repo.root), "fmt"]) == 0
    assert formatted == []
    assert capsys.readouterr().err.splitlines()[-1] == "0 file(s) reformatted, 4 unchanged"
    # An edit by hand, even one that leaves the file out of the canonical layout, is formatted.
    path = repo.entries_dir / "memory" / "cuda-oom.yaml"
    path.write_text(path.read_text() + "\n\n")
    assert main(["--root", str(repo.root), "fmt", "--check"]) == 1
    assert main(["--root", str(repo.root), "fmt"]) == 0
    assert formatted == ["cuda-oom", "cuda-oom"]
    assert "reformatted entries/memory/cuda-oom.yaml" in capsys.readouterr().err
    formatted.clear()
    # Another formatter (its code, or its YAML libraries) formats everything again.
    monkeypatch.setattr(formatting, "formatter_version", lambda settings: "0" * 64)
    assert main(["--root", str(repo.root), "fmt"]) == 0
    assert sorted(formatted) == every


def test_check_mode_remembers_nothing(repo, formatted):
    assert main(["--root", str(repo.root), "fmt", "--check"]) == 1  # three fixtures are not in the layout
    assert not (repo.root / "build" / formatting.CACHE_NAME).exists()
    assert main(["--root", str(repo.root), "fmt", "--check"]) == 1
    assert len(formatted) == 8


def test_forked_workers_format_as_one_process_does(repo, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_WORKER", 1)
    texts = [path.read_text() + "\n\n" for path in sorted(repo.entries_dir.glob("*/*.yaml"))]
    texts.append("id: [unclosed\n")
    results = format_entries(texts, workers=2)
    assert results[:-1] == [format_entry(text) for text in texts[:-1]]
    assert isinstance(results[-1], FormattingError)
    assert str(results[-1]).startswith("while parsing a flow sequence")


def test_a_build_folder_that_cannot_be_written_only_costs_time(repo, capsys, formatted):
    (repo.root / "build").write_text("a file where the folder should be")
    assert main(["--root", str(repo.root), "fmt"]) == 0
    assert main(["--root", str(repo.root), "fmt", "--check"]) == 0
    assert len(formatted) == 8
    assert capsys.readouterr().err.splitlines()[-1] == "0 file(s) would reformat, 4 unchanged"
