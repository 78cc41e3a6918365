"""Cross-entry checks: unique ids and aliases, links that resolve, backlinks."""

from __future__ import annotations

from conftest import fixture_text, problems_of, write_entry

from generator.build import load_catalog


def test_dangling_related_id(repo):
    text = fixture_text("memory", "cuda-oom").replace("  - id: nccl-watchdog-timeout\n", "  - id: no-such-entry\n")
    write_entry(repo, "memory", "cuda-oom", text)
    line = text.splitlines().index("  - id: no-such-entry") + 1
    assert problems_of(repo) == [
        f"entries/memory/cuda-oom.yaml:{line}:9: related.0.id: no entry has id 'no-such-entry'"
    ]


def test_dangling_explains_id(repo):
    text = fixture_text("memory", "cuda-oom").replace("explains: [nccl-watchdog-timeout]", "explains: [ghost]")
    write_entry(repo, "memory", "cuda-oom", text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "explains: [ghost]" in row)
    assert problems_of(repo) == [
        f"entries/memory/cuda-oom.yaml:{line}:14: diagnose.explains.0: no entry has id 'ghost'"
    ]


def test_duplicate_id_in_another_category(repo):
    text = fixture_text("memory", "cuda-oom").replace("category: memory", "category: numerics")
    write_entry(repo, "numerics", "cuda-oom", text)
    assert problems_of(repo) == [
        "entries/numerics/cuda-oom.yaml:2:5: id: 'cuda-oom' is already used by entries/memory/cuda-oom.yaml"
    ]


def test_alias_colliding_with_an_id(repo):
    text = fixture_text("memory", "cuda-oom").replace(
        "status: active", "status: active\naliases: [cuda-error-generic]", 1
    )
    write_entry(repo, "memory", "cuda-oom", text)
    assert problems_of(repo) == [
        "entries/memory/cuda-oom.yaml:7:11: aliases.0: 'cuda-error-generic' is already used by "
        "entries/cuda-runtime/cuda-error-generic.yaml"
    ]


def test_backlinks_and_queries(repo):
    catalog = load_catalog(repo)
    watchdog = catalog.get("nccl-watchdog-timeout")
    assert [link.entry.id for link in catalog.backlinks(watchdog)] == ["cuda-oom"]
    assert catalog.backlinks(catalog.get("cuda-oom")) == []
    assert [entry.id for entry in catalog.in_category("cuda-runtime")] == [
        "cuda-error-generic",
        "cuda-illegal-memory-access",
    ]
    assert [entry.id for entry in catalog.tagged("oom")] == ["cuda-oom"]
    assert [entry.id for entry in catalog.affecting("nccl")] == ["nccl-watchdog-timeout"]
    assert catalog.find("nccl-timeout") == watchdog
    assert [entry.id for entry in catalog.newest(2)] == ["cuda-illegal-memory-access", "cuda-error-generic"]


def test_examples_must_agree_with_fingerprints(repo):
    text = fixture_text("memory", "cuda-oom").replace(
        "        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
        "        torch.OutOfMemoryError: CUDA ran out of memory.",
    )
    text = text.replace(
        "        RuntimeError: DataLoader worker (pid 123) is killed by signal: Killed.",
        "        CUDA out of memory. Tried to allocate 20 MiB.",
    )
    write_entry(repo, "memory", "cuda-oom", text)
    lines = text.splitlines()
    match_line = lines.index("    match:") + 2
    no_match_line = lines.index("    no_match:") + 2
    assert problems_of(repo) == [
        f"entries/memory/cuda-oom.yaml:{match_line}:9: diagnose.examples.match.0: no fingerprint matches this example",
        f"entries/memory/cuda-oom.yaml:{no_match_line}:9: diagnose.examples.no_match.0: the fingerprints match this near-miss",
    ]


def test_every_fingerprint_must_be_shown_by_an_example_or_a_verbatim_symptom(repo):
    text = fixture_text("memory", "cuda-oom")
    text = text.replace(
        "  fingerprints:\n",
        "  fingerprints:\n    - contains: 'CUDA ran out of patience'\n",
        1,
    )
    write_entry(repo, "memory", "cuda-oom", text)
    line = text.splitlines().index("    - contains: 'CUDA ran out of patience'") + 1
    assert problems_of(repo) == [
        f"entries/memory/cuda-oom.yaml:{line}:7: diagnose.fingerprints.0: no example and no verbatim symptom "
        "shows this fingerprint: add a real excerpt that holds it"
    ]


def test_a_required_literal_counts_on_any_line_of_an_example_and_must_be_long_enough(repo):
    """`requires_any` is checked against the examples like any fingerprint: one the examples never
    satisfy is reported where it is written; a literal too short to mean anything is refused."""
    text = fixture_text("memory", "cuda-oom").replace(
        '    - template: "CUDA out of memory. Tried to allocate <NUM> <WORD>."\n',
        '    - template: "CUDA out of memory. Tried to allocate <NUM> <WORD>."\n'
        '      requires_any: ["Traceback (most recent call last)", "xy"]\n',
    )
    write_entry(repo, "memory", "cuda-oom", text)
    line = text.splitlines().index('      requires_any: ["Traceback (most recent call last)", "xy"]') + 1
    assert problems_of(repo) == [
        f"entries/memory/cuda-oom.yaml:{line}:59: diagnose.fingerprints.0.requires_any.1: "
        "string should have at least 4 characters"
    ]
    write_entry(repo, "memory", "cuda-oom", text.replace(', "xy"]', ', "two\\nlines"]'))
    assert problems_of(repo) == [
        f"entries/memory/cuda-oom.yaml:{line}:59: diagnose.fingerprints.0.requires_any.1: must be one non-empty line"
    ]
    write_entry(repo, "memory", "cuda-oom", text.replace(', "xy"]', "]"))
    match_line = text.splitlines().index("    match:") + 2
    assert problems_of(repo) == [
        f"entries/memory/cuda-oom.yaml:{line - 1}:7: diagnose.fingerprints.0: no example and no verbatim symptom "
        "shows this fingerprint: add a real excerpt that holds it",
        f"entries/memory/cuda-oom.yaml:{match_line}:9: diagnose.examples.match.0: no fingerprint matches this example",
    ]
    write_entry(
        repo,
        "memory",
        "cuda-oom",
        text.replace(', "xy"]', "]").replace(
            "        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
            "        Traceback (most recent call last):\n        torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
        ),
    )
    oom = load_catalog(repo).get("cuda-oom")
    assert oom.diagnose.fingerprints[0].requires_any == ["Traceback (most recent call last)"]
