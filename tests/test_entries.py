"""Entry validation: one test per error class, each asserting the file, line, column and message."""

from __future__ import annotations

import pytest
import yaml
from conftest import fixture_text, problems_of, write_entry
from pydantic import ValidationError

from generator import entries
from generator.build import load_catalog
from generator.schema import Entry

OOM = "entries/memory/cuda-oom.yaml"


def replace_in(settings, category, entry_id, old, new):
    path = settings.entries_dir / category / f"{entry_id}.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    write_entry(settings, category, entry_id, text.replace(old, new, 1))


def line_of(category, entry_id, needle) -> int:
    lines = fixture_text(category, entry_id).splitlines()
    return next(number for number, line in enumerate(lines, 1) if needle in line)


def test_fixture_corpus_is_valid(repo):
    catalog = load_catalog(repo)
    assert [entry.id for entry in catalog.entries] == [
        "cuda-error-generic",
        "cuda-illegal-memory-access",
        "cuda-oom",
        "nccl-watchdog-timeout",
    ]


def test_unknown_field_points_at_the_key_and_suggests(repo):
    replace_in(repo, "memory", "cuda-oom", "severity: high", "severity: high\nseverty: high")
    line = line_of("memory", "cuda-oom", "severity: high") + 1
    assert problems_of(repo) == [f"{OOM}:{line}:1: severty: unknown field; did you mean 'severity'?"]


def test_nested_unknown_field(repo):
    replace_in(repo, "memory", "cuda-oom", "  effort: 10-30 minutes", "  effort: 10-30 minutes\n  efort: x")
    line = line_of("memory", "cuda-oom", "effort: 10-30") + 1
    assert problems_of(repo) == [f"{OOM}:{line}:3: fix.efort: unknown field; did you mean 'effort'?"]


def test_wrong_type(repo):
    replace_in(repo, "memory", "cuda-oom", "tags: [oom]", "tags: oom")
    line = line_of("memory", "cuda-oom", "tags: [oom]")
    assert problems_of(repo) == [f"{OOM}:{line}:7: tags: input should be a valid list"]


def test_missing_field_points_at_the_parent(repo):
    text = fixture_text("memory", "cuda-oom").replace(
        "root_cause: >-\n  Activations, weights, gradients and optimizer state need more GPU memory than the device has.\n",
        "",
    )
    write_entry(repo, "memory", "cuda-oom", text)
    assert problems_of(repo) == [f"{OOM}:2:1: root_cause: required field is missing"]


def test_id_must_equal_file_name(repo):
    replace_in(repo, "memory", "cuda-oom", "id: cuda-oom", "id: cuda-oom-2")
    assert problems_of(repo) == [f"{OOM}:2:5: id: 'cuda-oom-2' must equal the file name 'cuda-oom'"]


@pytest.mark.parametrize("bad_id", ["Cuda-oom", "cuda oom", "cuda/oom", "..", "cuda_oom", "café", "-cuda"])
def test_malformed_ids(repo, bad_id):
    replace_in(repo, "memory", "cuda-oom", "id: cuda-oom", f"id: {bad_id!r}")
    problems = problems_of(repo)
    assert problems[0].startswith(f"{OOM}:2:5: id: must be lowercase ASCII letters and digits joined by single hyphens")


def test_windows_reserved_id(repo):
    write_entry(repo, "memory", "nul", fixture_text("memory", "cuda-oom").replace("id: cuda-oom", "id: nul"))
    assert "entries/memory/nul.yaml:2:5: id: 'nul' is a reserved file name on Windows" in problems_of(repo)


def test_unknown_vocabulary_terms(repo):
    replace_in(repo, "memory", "cuda-oom", "tags: [oom]", "tags: [oom, made-up]")
    replace_in(repo, "distributed", "nccl-watchdog-timeout", "category: distributed", "category: networking")
    replace_in(repo, "cuda-runtime", "cuda-error-generic", "systems: [cuda]", "systems: [cudaa]")
    assert problems_of(repo) == [
        "entries/cuda-runtime/cuda-error-generic.yaml:21:12: affected.systems: unknown systems 'cudaa'; "
        "add it to entries/_vocab/systems.yml first",
        "entries/distributed/nccl-watchdog-timeout.yaml:5:11: category: unknown categories 'networking'; "
        "add it to entries/_vocab/categories.yml first",
        f"{OOM}:7:7: tags: unknown tags 'made-up'; add it to entries/_vocab/tags.yml first",
    ]


def test_category_must_match_folder(repo):
    path = repo.entries_dir / "memory" / "cuda-oom.yaml"
    target = repo.entries_dir / "numerics" / "cuda-oom.yaml"
    target.parent.mkdir()
    path.rename(target)
    assert problems_of(repo) == [
        "entries/numerics/cuda-oom.yaml:4:11: category: 'memory' does not match the folder entries/numerics/"
    ]


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,hi", "file:///etc/passwd", "ftp://x.org/a"])
def test_reference_urls_must_be_http(repo, url):
    replace_in(repo, "memory", "cuda-oom", "url: https://pytorch.org/docs/stable/notes/cuda.html", f"url: {url!r}")
    line = line_of("memory", "cuda-oom", "url: https://pytorch.org/docs/stable/notes/cuda.html")
    assert problems_of(repo) == [f"{OOM}:{line}:10: references.0.url: must be an http(s) URL with no spaces or quotes"]


@pytest.mark.parametrize(
    ("url", "branch"),
    [
        ("https://github.com/pytorch/pytorch/blob/main/torch/cuda/memory.py", "main"),
        ("https://github.com/NVIDIA/nccl/tree/master/src", "master"),
        ("https://raw.githubusercontent.com/microsoft/onnxruntime/main/docs/OperatorKernels.md", "main"),
        ("https://raw.githubusercontent.com/git-lfs/git-lfs/refs/heads/master/docs/spec.md", "master"),
    ],
)
def test_reference_urls_must_not_follow_a_branch(repo, url, branch):
    replace_in(repo, "memory", "cuda-oom", "url: https://pytorch.org/docs/stable/notes/cuda.html", f"url: {url}")
    line = line_of("memory", "cuda-oom", "url: https://pytorch.org/docs/stable/notes/cuda.html")
    assert problems_of(repo) == [
        f"{OOM}:{line}:10: references.0.url: links to the moving branch '{branch}'; pin it to a commit "
        "(.../blob/<40-hex commit>/<path>) or a release tag"
    ]


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/pytorch/pytorch/blob/v2.5.0/torch/cuda/memory.py",
        "https://github.com/pytorch/pytorch/blob/0123456789abcdef0123456789abcdef01234567/torch/cuda/memory.py",
        "https://github.com/owner/repo/blob/main-2/README.md",
        "https://github.com/pytorch/pytorch/issues/1234",
    ],
)
def test_pinned_and_non_file_urls_pass(repo, url):
    replace_in(repo, "memory", "cuda-oom", "url: https://pytorch.org/docs/stable/notes/cuda.html", f"url: {url}")
    oom = next(entry for entry in load_catalog(repo).entries if entry.id == "cuda-oom")
    assert url in [reference.url for reference in oom.references]


def test_versions_must_be_pep440(repo):
    replace_in(repo, "memory", "cuda-oom", 'versions: {pytorch: ">=2.0"}', 'versions: {pytorch: "2.x or newer"}')
    line = line_of("memory", "cuda-oom", "versions:")
    expected = f"{OOM}:{line}:13: affected.versions: pytorch: '2.x or newer' is not a PEP 440 version specifier"
    assert problems_of(repo)[0].startswith(expected)


def test_every_problem_in_every_file_is_reported_at_once(repo):
    replace_in(repo, "memory", "cuda-oom", "severity: high", "severity: urgent")
    replace_in(repo, "memory", "cuda-oom", "layer: configuration", "layer: firmware")
    replace_in(repo, "distributed", "nccl-watchdog-timeout", "stages: [training]", "stages: []")
    problems = problems_of(repo)
    assert len(problems) == 3
    assert problems[0] == (
        "entries/distributed/nccl-watchdog-timeout.yaml:9:9: stages: list should have at least 1 item after validation, not 0"
    )
    assert (
        problems[1]
        == f"{OOM}:5:11: severity: unknown severities 'urgent'; add it to entries/_vocab/severities.yml first"
    )
    assert problems[2] == f"{OOM}:9:8: layer: must be 'software', 'hardware', 'configuration' or 'mixed'"


def test_yaml_problems_are_reported_with_schema_problems_of_other_files(repo):
    write_entry(repo, "memory", "broken", "id: broken\ntitle: [unclosed\n")
    replace_in(repo, "distributed", "nccl-watchdog-timeout", "severity: high", "severity: 3")
    problems = problems_of(repo)
    assert (
        problems[0] == "entries/distributed/nccl-watchdog-timeout.yaml:6:11: severity: input should be a valid string"
    )
    assert problems[1].startswith("entries/memory/broken.yaml:3:1: YAML syntax error")


def test_placeholders_from_the_scaffold_fail(repo):
    replace_in(repo, "memory", "cuda-oom", "title: CUDA out of memory during training", 'title: "TODO: the failure"')
    assert problems_of(repo) == [f"{OOM}:3:8: title: placeholder from `trainwreck new` is not filled in"]


def test_output_that_itself_says_todo_is_not_a_placeholder(repo):
    """Quoted output is verbatim, and PyTorch's CUDA graph trees raise `RuntimeError: TODO: ...`."""
    quoted = "RuntimeError: TODO: graph recording observed an input tensor deallocate during graph recording"
    replace_in(
        repo, "memory", "cuda-oom", "RuntimeError: DataLoader worker (pid 123) is killed by signal: Killed.", quoted
    )
    replace_in(
        repo,
        "memory",
        "cuda-oom",
        "  - text: Other ranks stop",
        f'  - text: "{quoted}"\n    meaning: Not an OOM.\n  - text: Other ranks stop',
    )
    replace_in(repo, "memory", "cuda-oom", "summary: >-\n", f"summary: >-\n  Unlike `{quoted}`,")
    oom = next(entry for entry in load_catalog(repo).entries if entry.id == "cuda-oom")
    assert oom.symptoms[1].text == quoted and oom.diagnose.examples.no_match == [quoted]
    replace_in(repo, "memory", "cuda-oom", "meaning: Not an OOM.", 'meaning: "Not an OOM. TODO: say what it is"')
    replace_in(repo, "memory", "cuda-oom", f'  - text: "{quoted}"', '  - text: "TODO: an error line"')
    line = line_of("memory", "cuda-oom", "  - text: Other ranks stop")
    assert problems_of(repo) == [
        f"{OOM}:{line}:11: symptoms.1.text: placeholder from `trainwreck new` is not filled in",
        f"{OOM}:{line + 1}:14: symptoms.1.meaning: placeholder from `trainwreck new` is not filled in",
    ]


def test_values_cut_short_by_a_comment_are_reported_with_schema_problems(repo):
    replace_in(repo, "memory", "cuda-oom", "severity: high", "severity: urgent")
    replace_in(repo, "memory", "cuda-oom", "    kind: docs\n", "    kind: docs\n    note: see #42 for why\n")
    line = line_of("memory", "cuda-oom", "kind: docs") + 1
    assert problems_of(repo) == [
        f"{OOM}:5:11: severity: unknown severities 'urgent'; add it to entries/_vocab/severities.yml first",
        f"{OOM}:{line}:15: references.0.note: this unquoted value ends where ' #' starts a YAML comment, and the"
        " rest of the text is dropped; put the value in quotes (or a comment on a line of its own, at the key's"
        " indentation)",
    ]


def test_stray_files_and_symlinks_outside(repo, tmp_path):
    (repo.entries_dir / "memory" / "notes.txt").write_text("x")
    (repo.entries_dir / "memory" / "old.yml").write_text("x")
    outside = tmp_path / "secret.yaml"
    outside.write_text(fixture_text("memory", "cuda-oom"))
    (repo.entries_dir / "memory" / "linked.yaml").symlink_to(outside)
    assert problems_of(repo) == [
        "entries/memory/linked.yaml:1:1: symlink points outside entries/; entries must be real files",
        "entries/memory/notes.txt:1:1: only .yaml entry files belong under entries/<category>/",
        "entries/memory/old.yml:1:1: entry files end in .yaml, not .yml",
    ]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "severity: high",
            "severity: high\nseverity: low",
            "6:1: severity: duplicate key 'severity' (first on line 5)",
        ),
        ("tags: [oom]", "tags: &t [oom]\nstages_copy: *t", "7:7: anchors (&name) are not allowed in entries"),
        ("layer: configuration", "layer: [configuration", "10:8: YAML syntax error: while parsing a flow sequence"),
        ("layer: configuration", "layer: !!python/name:os.system configuration", "9:8: explicit tags like"),
        ("status: active", "status: active\n\tbad: tab", "7:1: YAML syntax error"),
    ],
)
def test_yaml_level_errors_name_file_and_line(repo, old, new, expected):
    replace_in(repo, "memory", "cuda-oom", old, new)
    problems = problems_of(repo)
    assert len(problems) == 1 and problems[0].startswith(f"{OOM}:{expected}"), problems


def test_prose_with_a_code_span_cut_in_two_is_refused(repo):
    """A quoted message's own backticks end the code span early: the page shows code, text, code."""
    replace_in(
        repo,
        "memory",
        "cuda-oom",
        "  The caching allocator cannot find a free block",
        "  It prints `Use `x` instead.` when the caching allocator cannot find a free block",
    )
    line = line_of("memory", "cuda-oom", "summary: >-")
    assert problems_of(repo) == [
        f"{OOM}:{line}:10: summary: code span `Use` looks cut in two by a backtick inside it; put text that holds "
        "backticks between double backticks and spaces: `` like `this` ``"
    ]


def test_cached_entries_are_not_checked_for_cut_code_spans_again():
    """The entry cache holds only entries that passed every check; re-running this one on each
    cached build nearly doubled the time to rebuild an entry from the cache."""
    data = yaml.safe_load(fixture_text("memory", "cuda-oom"))
    data["summary"] = "It prints `Use `x` instead.` when the allocator cannot find a block."
    with pytest.raises(ValidationError, match="looks cut in two"):
        Entry.model_validate(data)
    assert Entry.model_validate(data, context={"from_cache": True}).summary == data["summary"]


def test_cached_entries_are_not_checked_against_the_pattern_dialect_again():
    """Checking each regex against the dialect was a tenth of rebuilding 10,000 cached headers."""
    data = yaml.safe_load(fixture_text("memory", "cuda-oom"))
    data["diagnose"]["fingerprints"][0] = {"regex": "CUDA out of (?=memory)", "anchor": "CUDA out of "}
    with pytest.raises(ValidationError, match="look-around"):
        Entry.model_validate(data)
    cached = Entry.model_validate(data, context={"from_cache": True})
    assert cached.diagnose.fingerprints[0].regex == "CUDA out of (?=memory)"


def test_in_one_process_each_entry_is_validated_before_the_next_is_parsed(repo, monkeypatch):
    """Holding every parsed tree until all were parsed raised a first diagnosis's peak memory by more than a quarter."""
    events = []
    parse_part, validated = entries._parse_part, entries._validated
    monkeypatch.setattr(entries, "_parse_part", lambda *args: events.append("parse") or parse_part(*args))
    monkeypatch.setattr(entries, "_validated", lambda *args: events.append("validate") or validated(*args))
    catalog = load_catalog(repo)
    assert len(catalog.entries) == 4
    assert events == ["parse", "validate"] * 4
