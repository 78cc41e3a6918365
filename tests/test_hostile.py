"""Hostile and broken input: clear located errors, nothing executed, nothing written, no hang."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import fixture_text, problems_of, write_entry
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import dialect
from generator.build import build, load_catalog
from generator.cli import main
from generator.diagnose import diagnose_text
from generator.entries import load_entry
from generator.fingerprints import canonical_json, compile_fingerprints
from generator.settings import settings_for
from generator.sources import Source
from generator.vocabulary import load_vocabulary

REPO = Path(__file__).resolve().parents[1]
OOM_TEXT = fixture_text("memory", "cuda-oom")


def test_fifty_megabyte_file_is_refused_by_size(repo, capsys):
    path = repo.entries_dir / "memory" / "huge.yaml"
    with path.open("wb") as stream:
        stream.write(b"id: huge\ntitle: " + b"x" * (50 * 1024 * 1024) + b"\n")
    assert main(["--root", str(repo.root), "build"]) == 1
    err = capsys.readouterr().err
    assert "entries/memory/huge.yaml:1:1: file is 52,428,817 bytes; the limit is 1,000,000" in err
    assert "Traceback" not in err
    assert not repo.generated_dir.exists()


def test_jinja_in_fields_is_text_not_template(repo):
    hostile = OOM_TEXT.replace(
        "title: CUDA out of memory during training", 'title: "{{ 7*7 }} {% for x in range(3) %}x{% endfor %}"'
    ).replace(
        "  summary: Lower the per-GPU batch size and use gradient accumulation to keep the effective batch.",
        '  summary: "{{ config.__class__ }} Lower the per-GPU batch size."',
    )
    write_entry(repo, "memory", "cuda-oom", hostile)
    build(repo)
    page = (repo.generated_dir / "entries" / "cuda-oom.md").read_text(encoding="utf-8")
    assert "# &#123;&#123; 7\\*7 }} &#123;% for x in range(3) %}x&#123;% endfor %}" in page
    assert "49" not in page.split("---\n", 2)[2].split("## What")[0]
    assert "&#123;&#123; config.\\_\\_class\\_\\_ }}" in page


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w+\s?)*", r"a.*b.*c", r"(?=x)abcdef", r"(x)\1abcdef"])
def test_catastrophic_and_banned_patterns_are_refused(repo, pattern):
    hostile = OOM_TEXT.replace(
        '    - template: "CUDA out of memory. Tried to allocate <NUM> <WORD>."',
        f"    - regex: {json.dumps(pattern)}\n      anchor: abcdef",
    )
    write_entry(repo, "memory", "cuda-oom", hostile)
    problems = problems_of(repo)
    assert problems and problems[0].startswith("entries/memory/cuda-oom.yaml:")
    assert "diagnose.fingerprints.0" in problems[0]
    assert dialect.regex_problems(pattern, "abcdef")


def test_control_characters_and_html_in_a_log_stay_text(repo):
    fingerprint_set = compile_fingerprints(load_catalog(repo).entries)
    log = "\x00\x07<script>alert(1)</script>\x1b[31m\nRuntimeError: CUDA error: unspecified launch failure\x08\x7f\n"
    result = diagnose_text(log, fingerprint_set)
    assert result["matches"][0]["evidence"][0]["text"] == "RuntimeError: CUDA error: unspecified launch failure"
    assert "\x00" not in canonical_json(result) and "\x1b" not in canonical_json(result)


def adversarial_line(fingerprint_set: dict, size: int = 20_000) -> str:
    """Near-misses of every anchor and template, packed into one line of about `size` characters."""
    pieces = []
    for entry in fingerprint_set["entries"]:
        for fp in entry["fingerprints"]:
            anchor = fp["anchor"]
            pieces += [anchor[:-1], anchor + " " * 50, anchor + "9" * 60, anchor + "x" * 30]
    line = " ".join(pieces)
    while len(line) < size:
        line += " " + line
    return line[:size]


def test_adversarial_line_runs_in_both_engines_with_equal_results(tmp_path):
    fingerprint_set = compile_fingerprints(load_catalog(settings_for(REPO)).entries)
    line = adversarial_line(fingerprint_set)
    python = canonical_json(diagnose_text(line, fingerprint_set))
    fingerprints = tmp_path / "fingerprints.json"
    fingerprints.write_text(canonical_json(fingerprint_set), encoding="utf-8")
    log = tmp_path / "adversarial.log"
    log.write_text(line, encoding="utf-8")
    node = shutil.which("node")
    assert node
    out = subprocess.run(
        [node, str(REPO / "tests" / "js" / "diagnose_cli.js"), str(fingerprints), str(log)],
        capture_output=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.decode("utf-8").rstrip("\n") == python


VOCABULARY = load_vocabulary(REPO / "tests" / "fixtures" / "entries" / "_vocab", REPO)
VALID = OOM_TEXT.encode("utf-8")


def _mutations():
    byte_edit = st.tuples(st.integers(0, len(VALID)), st.integers(0, 40), st.binary(max_size=12))
    return st.lists(byte_edit, min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=_mutations())
def test_fuzzed_entries_give_entries_or_located_errors(tmp_path_factory, edits):
    data = bytearray(VALID)
    for position, delete, insert in edits:
        position = min(position, len(data))
        data[position : position + delete] = insert
    folder = tmp_path_factory.mktemp("fuzz") / "memory"
    folder.mkdir()
    path = folder / "cuda-oom.yaml"
    path.write_bytes(bytes(data))
    entry, problems = load_entry(Source(path, "entries/memory/cuda-oom.yaml", "memory", "cuda-oom"), VOCABULARY)
    assert (entry is None) == bool(problems)
    for problem in problems:
        assert problem.path == "entries/memory/cuda-oom.yaml" and problem.line >= 1 and problem.col >= 1
        assert problem.message


@settings(max_examples=100, deadline=None)
@given(
    value=st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=30),
        st.lists(st.text(max_size=5), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    ),
    field=st.sampled_from(["id", "title", "tags", "affected", "fix", "diagnose", "references", "created", "related"]),
)  # fmt: skip
def test_fuzzed_field_values_give_located_errors(tmp_path_factory, value, field):
    document = yaml.safe_load(OOM_TEXT)
    document[field] = value
    folder = tmp_path_factory.mktemp("fuzz") / "memory"
    folder.mkdir()
    path = folder / "cuda-oom.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    entry, problems = load_entry(Source(path, "entries/memory/cuda-oom.yaml", "memory", "cuda-oom"), VOCABULARY)
    assert (entry is None) == bool(problems)
    assert all(problem.line >= 1 for problem in problems)


HOSTILE_FILES = {
    "syntax": (b"id: x\ntitle: [unclosed\n", "entries/memory/hostile.yaml:3:1: YAML syntax error"),
    "tab": (b"id: x\n\ttitle: y\n", "entries/memory/hostile.yaml:2:1: YAML syntax error"),
    "duplicate-key": (b"id: x\nid: y\n", "entries/memory/hostile.yaml:2:1: id: duplicate key 'id' (first on line 1)"),
    "alias": (b"a: &x [1]\nb: *x\n", "entries/memory/hostile.yaml:1:4: anchors (&name) are not allowed"),
    "python-tag": (
        b"id: !!python/object/apply:os.system [touch pwned]\n",
        "entries/memory/hostile.yaml:1:5: explicit tags",
    ),
    "invalid-utf8": (b"id: x\ntitle: \xc3\x28\n", "entries/memory/hostile.yaml:2:8: file is not valid UTF-8"),
    "bom": (b"\xef\xbb\xbfid: x\n", "entries/memory/hostile.yaml:1:1: file starts with a byte-order mark"),
    "empty": (b"", "entries/memory/hostile.yaml:1:1: file is empty"),
    "list": (b"- id: x\n", "entries/memory/hostile.yaml:1:1: the document must be a mapping of fields, not a list"),
    "scalar": (b"hello\n", "entries/memory/hostile.yaml:1:1: the document must be a mapping of fields, not a string"),
    "deep": (b"a: " + b"[" * 40 + b"]" * 40 + b"\n", "entries/memory/hostile.yaml:1:"),
    "nul": (b"id: x\x00\n", "entries/memory/hostile.yaml:1:6: character '\\x00' is not allowed in YAML"),
    "id-dotdot": (
        OOM_TEXT.replace("id: cuda-oom", "id: ../../etc").encode(),
        "entries/memory/hostile.yaml:2:5: id: must be lowercase",
    ),
    "id-reserved": (
        OOM_TEXT.replace("id: cuda-oom", "id: con").encode(),
        "entries/memory/hostile.yaml:2:5: id: 'con' is a reserved file name",
    ),
    "javascript-url": (
        OOM_TEXT.replace("url: https://pytorch.org/docs/stable/notes/cuda.html", "url: javascript:alert(1)").encode(),
        "references.0.url: must be an http(s) URL",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_FILES))
def test_hostile_file_is_located_and_nothing_is_written(repo, capsys, case):
    assert main(["--root", str(repo.root), "build"]) == 0
    before = {path: path.read_bytes() for path in repo.generated_dir.rglob("*") if path.is_file()}
    capsys.readouterr()
    data, expected = HOSTILE_FILES[case]
    (repo.entries_dir / "memory" / "hostile.yaml").write_bytes(data)
    assert main(["--root", str(repo.root), "build"]) == 1
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
    assert not (repo.root / "pwned").exists()
    after = {path: path.read_bytes() for path in repo.generated_dir.rglob("*") if path.is_file()}
    assert after == before
