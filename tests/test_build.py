"""The build spine: a no-op rerun stops at once; a long-lived process redoes only what changed."""

from __future__ import annotations

import json
import shutil
import weakref

import pytest
from conftest import fixture_text, write_entry

from generator import build as build_module
from generator import entries as entries_module
from generator.build import Memo, build, current_fingerprint_set
from generator.errors import ProblemsFound

FIXTURE_IDS = ["cuda-error-generic", "cuda-illegal-memory-access", "cuda-oom", "nccl-watchdog-timeout"]


def test_noop_rerun_reads_no_entry(repo, monkeypatch):
    first = build(repo)
    assert first.write.written > 0
    monkeypatch.setattr(build_module, "load_catalog", lambda *args, **kwargs: pytest.fail("entries were read"))
    again = build(repo)
    assert (again.entries, again.pages, again.write.written, again.write.removed) == (4, first.pages, 0, 0)


@pytest.mark.parametrize("change", ["entry", "output", "template"])
def test_any_change_means_a_real_build(repo, change):
    build(repo)
    if change == "entry":
        write_entry(
            repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("during training", "in training")
        )
    elif change == "output":
        (repo.generated_dir / "all.md").write_text("tampered", encoding="utf-8")
    else:
        template = repo.templates_dir / "all.md.j2"
        template.write_text(template.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    report = build(repo)
    assert report.write.written >= 1
    assert (repo.generated_dir / "all.md").read_text(encoding="utf-8") != "tampered"


def test_memo_reparses_only_the_edited_entry(repo, monkeypatch):
    memo = Memo()
    build(repo, memo=memo)
    reads = []
    real = entries_module.load_entry
    monkeypatch.setattr(
        entries_module, "load_entry", lambda source, *rest: reads.append(source.stem) or real(source, *rest)
    )
    write_entry(
        repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("during training", "in training")
    )
    report = build(repo, memo=memo)
    assert reads == ["cuda-oom"]
    page = (repo.generated_dir / "entries" / "cuda-oom.md").read_text(encoding="utf-8")
    assert "# CUDA out of memory in training" in page
    assert report.write.written >= 1


def test_memo_output_equals_a_fresh_build(repo, tmp_path):
    memo = Memo()
    build(repo, memo=memo)
    write_entry(
        repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("during training", "in training")
    )
    build(repo, memo=memo)
    remembered = {
        p.relative_to(repo.generated_dir): p.read_bytes() for p in repo.generated_dir.rglob("*") if p.is_file()
    }
    (repo.generated_dir.parent / ".trainwreck-stamp.json").unlink()
    shutil.rmtree(repo.generated_dir)
    build(repo)
    fresh = {p.relative_to(repo.generated_dir): p.read_bytes() for p in repo.generated_dir.rglob("*") if p.is_file()}
    assert remembered == fresh


def test_memo_follows_a_new_and_a_dropped_former_id(repo):
    # Former ids are not among the listed fields, but each one has a redirect page.
    memo = Memo()
    build(repo, memo=memo)
    original = fixture_text("memory", "cuda-oom")
    redirect = repo.generated_dir / "entries" / "old-oom-name" / "index.html"
    write_entry(repo, "memory", "cuda-oom", original.replace("\ntitle:", "\naliases: [old-oom-name]\ntitle:", 1))
    build(repo, memo=memo)
    assert 'href="../cuda-oom/"' in redirect.read_text(encoding="utf-8")
    write_entry(repo, "memory", "cuda-oom", original)
    build(repo, memo=memo)
    assert not redirect.exists()


def test_memo_keeps_only_what_the_last_build_used(repo):
    memo = Memo()
    build(repo, memo=memo)
    sizes = (len(memo.entries), len(memo.examples), len(memo.pages))
    original = fixture_text("memory", "cuda-oom")
    for wording in ("in training", "while training", "mid-training"):
        write_entry(repo, "memory", "cuda-oom", original.replace("during training", wording))
        build(repo, memo=memo)
    assert (len(memo.entries), len(memo.examples), len(memo.pages)) == sizes
    kept_texts = "\n".join(key[1].decode("utf-8") for key in memo.examples)
    assert "mid-training" in kept_texts
    assert "while training" not in kept_texts


def test_a_failed_build_forgets_nothing(repo):
    memo = Memo()
    build(repo, memo=memo)
    pages = len(memo.pages)
    assert pages > 4
    write_entry(
        repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("severity: high", "severity: huge")
    )
    with pytest.raises(ProblemsFound):
        build(repo, memo=memo)
    assert len(memo.pages) == pages
    write_entry(repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom"))
    report = build(repo, memo=memo)
    assert report.write.written == 0


def test_the_set_for_a_diagnosis_is_the_one_a_build_publishes(repo):
    uncached = current_fingerprint_set(repo)
    build(repo)
    published = json.loads((repo.generated_dir / "api" / "fingerprints.json").read_text(encoding="utf-8"))
    assert [entry["id"] for entry in published["entries"]] == sorted(FIXTURE_IDS)
    assert uncached == published
    assert current_fingerprint_set(repo) == published  # now from the entry cache


def test_a_diagnosis_keeps_no_checked_entry(repo, monkeypatch):
    """Holding every checked entry raised a first diagnosis's peak from 53 to 130 MB at 1,414 entries."""
    alive_before_each = []
    seen: list[weakref.ref] = []
    compile_one = build_module.entry_fingerprints

    def watched(entry):
        alive_before_each.append(sum(ref() is not None for ref in seen))
        seen.append(weakref.ref(entry))
        return compile_one(entry)

    monkeypatch.setattr(build_module, "entry_fingerprints", watched)
    for _ in ("without the cache", "with it"):
        alive_before_each.clear()
        current_fingerprint_set(repo)
        assert alive_before_each == [0, 0, 0, 0]
        build(repo)


@pytest.mark.parametrize("cached", [False, True])
def test_a_diagnosis_reports_the_problems_a_build_reports(repo, cached):
    if cached:
        build(repo)
    text = fixture_text("memory", "cuda-oom").replace("  - id: nccl-watchdog-timeout\n", "  - id: no-such-entry\n")
    write_entry(
        repo, "memory", "cuda-oom", text.replace("status: active", "status: active\naliases: [cuda-error-generic]")
    )
    with pytest.raises(ProblemsFound) as by_build:
        build(repo)
    with pytest.raises(ProblemsFound) as by_diagnosis:
        current_fingerprint_set(repo)
    line = text.splitlines().index("  - id: no-such-entry") + 2
    assert [str(problem) for problem in by_diagnosis.value.problems] == [
        "entries/memory/cuda-oom.yaml:7:11: aliases.0: 'cuda-error-generic' is already used by "
        "entries/cuda-runtime/cuda-error-generic.yaml",
        f"entries/memory/cuda-oom.yaml:{line}:9: related.0.id: no entry has id 'no-such-entry'",
    ]
    assert by_diagnosis.value.problems == by_build.value.problems
