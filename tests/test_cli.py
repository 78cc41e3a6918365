"""The command line as a user runs it: exit codes, messages on stderr, output on stdout."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from conftest import fixture_text, write_entry

from generator.cli import main


def run(repo, capsys, *args) -> tuple[int, str, str]:
    code = main(["--root", str(repo.root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_ok(repo, capsys):
    assert run(repo, capsys, "validate") == (0, "", "4 entries valid\n")


def test_validate_reports_and_exits_1(repo, capsys):
    write_entry(repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("tags: [oom]", "tags: [nope]"))
    code, out, err = run(repo, capsys, "validate")
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "entries/memory/cuda-oom.yaml:7:7: tags: unknown tags 'nope'; add it to entries/_vocab/tags.yml first",
        "1 problem(s) found; nothing was written",
    ]


def test_validate_github_annotations(repo, capsys):
    write_entry(repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("tags: [oom]", "tags: [nope]"))
    code, _, err = run(repo, capsys, "validate", "--format", "github")
    assert code == 1
    assert err.splitlines()[0] == (
        "::error file=entries/memory/cuda-oom.yaml,line=7,col=7::tags: unknown tags 'nope'; "
        "add it to entries/_vocab/tags.yml first"
    )


def test_export_schema_needs_only_the_vocabularies(repo, capsys):
    from generator.jsonschema import schema_text
    from generator.vocabulary import load_vocabulary

    write_entry(repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("tags: [oom]", "tags: [nope]"))
    code, out, err = run(repo, capsys, "export", "schema")
    assert (code, err) == (0, "")
    assert out == schema_text(load_vocabulary(repo.vocab_dir, repo.root))
    assert json.loads(out)["title"]


def test_misuse_exits_2(repo, capsys):
    assert run(repo, capsys, "no-such-command")[0] == 2
    assert run(repo, capsys)[0] == 2
    code, _, err = run(repo, capsys, "diagnose", "missing.log")
    assert (code, err) == (2, "trainwreck: missing.log: no such file\n")


def test_a_folder_that_is_no_checkout_is_misuse(tmp_path, capsys, monkeypatch):
    (tmp_path / "train.log").write_text("RuntimeError: CUDA error: out of memory\n")
    assert main(["--root", str(tmp_path), "diagnose", str(tmp_path / "train.log")]) == 2
    assert capsys.readouterr().err == (
        f"trainwreck: --root {tmp_path.resolve()} holds no entries/_vocab folder; pass the repository root\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("generator.settings.INSTALLED_ROOT", tmp_path / "site-packages")
    assert main(["validate"]) == 2
    assert capsys.readouterr().err == (
        f"trainwreck: no Trainwreck checkout found: neither {tmp_path.resolve()}, a folder above it,"
        f" nor {tmp_path / 'site-packages'} holds entries/_vocab; pass --root with the repository root\n"
    )


def test_build_then_noop(repo, capsys):
    code, _, err = run(repo, capsys, "build")
    assert code == 0 and err.startswith("4 entries → build/docs/: ") and " 0 removed" in err
    code, _, err = run(repo, capsys, "build")
    assert code == 0 and " 0 written," in err


def test_noop_build_answers_from_the_stamp_without_loading_the_stages(repo):
    """Importing the validator and the renderers had been most of a no-op rerun's time."""
    heavy = ("jinja2", "pydantic", "yaml")
    script = (
        "import sys; from generator.cli import main; code = main(sys.argv[1:]); "
        f"print(code, [name for name in {heavy!r} if name in sys.modules])"
    )
    command = [sys.executable, "-c", script, "--root", str(repo.root), "build"]
    first = subprocess.run(command, capture_output=True, text=True, check=True)
    again = subprocess.run(command, capture_output=True, text=True, check=True)
    assert first.stdout == "0 ['jinja2', 'pydantic', 'yaml']\n"
    assert again.stdout == "0 []\n"
    pages = first.stderr.split(": ", 1)[1].split(" written")[0]
    assert again.stderr == f"4 entries → build/docs/: 0 written, {pages} unchanged, 0 removed\n"


def test_new_scaffold_fails_until_filled_then_builds(repo, capsys):
    code, out, _ = run(repo, capsys, "new", "nccl-timeout-after-oom", "--category", "distributed")
    assert code == 0 and out.startswith("wrote entries/distributed/nccl-timeout-after-oom.yaml")
    path = repo.entries_dir / "distributed" / "nccl-timeout-after-oom.yaml"
    assert path.read_text().startswith("# yaml-language-server: $schema=../entry.schema.json\n")
    assert run(repo, capsys, "fmt", "--check", str(path))[0] == 0, "the skeleton is already in fmt's layout"
    code, _, err = run(repo, capsys, "validate")
    assert code == 1 and "placeholder from `trainwreck new` is not filled in" in err
    filled = yaml.safe_load(fixture_text("distributed", "nccl-watchdog-timeout"))
    filled.update(id="nccl-timeout-after-oom", aliases=[], created="2026-11-30")
    path.write_text(yaml.safe_dump(filled, sort_keys=False))
    assert run(repo, capsys, "validate")[0] == 0
    assert run(repo, capsys, "build")[0] == 0
    assert (repo.generated_dir / "entries" / "nccl-timeout-after-oom.md").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["new", "Bad_Id", "--category", "memory"], "'Bad_Id' is not a valid id"),
        (["new", "fine-id", "--category", "nope"], "unknown category 'nope'; choose one of:"),
        (["new", "nccl-timeout", "--category", "memory"], "an entry with id or alias 'nccl-timeout' already exists"),
    ],
)
def test_new_refuses(repo, capsys, args, message):
    code, _, err = run(repo, capsys, *args)
    assert code == 2 and message in err


def test_explain(repo, capsys):
    code, out, _ = run(repo, capsys, "explain", "nccl-timeout")
    assert code == 0
    assert out.startswith("NCCL watchdog caught collective operation timeout\n")
    assert "Root cause\n----------\nOne rank stopped reaching the collective" in out
    code, _, err = run(repo, capsys, "explain", "ghost")
    assert code == 1 and "no entry 'ghost'" in err and "issues/new" in err


def diagnose_log(repo, capsys, tmp_path, text: str, *options: str) -> tuple[int, str, str]:
    log = tmp_path / "train.log"
    log.write_text(text)
    return run(repo, capsys, "diagnose", str(log), *options)


def test_diagnose_names_a_symptom_whose_cause_line_is_missing(repo, capsys, tmp_path):
    text = fixture_text("cuda-runtime", "cuda-illegal-memory-access").replace("  match: all\n", "")
    text = text.replace(
        '- "RuntimeError: CUDA error: an illegal memory access was encountered"', '- "Step ten finished"'
    )
    write_entry(repo, "cuda-runtime", "cuda-illegal-memory-access", text)
    code, out, _ = diagnose_log(repo, capsys, tmp_path, "Step 10 finished\n")
    assert code == 1
    assert out.startswith("No confident match. Possible symptoms only:\n\n1. CUDA error: an illegal memory access")
    assert "why: a symptom; the line that names its cause is not in this log (it is often printed above, or cut" in out


def test_diagnose_match_and_json(repo, capsys, tmp_path):
    text = (
        "step 10\n"
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79 GiB\n"
        "[rank0]:[E ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)\n"
    )
    code, out, _ = diagnose_log(repo, capsys, tmp_path, text)
    assert code == 0
    assert out.splitlines()[:3] == [
        "2 matching entries, best first:",
        "",
        "1. CUDA out of memory during training",
    ]
    assert "First failing rank: 1" in out
    # The cause's one-line fix comes under its link; the watchdog timeout it explains gets none.
    assert "   fix: Lower the per-GPU batch size and use gradient accumulation to keep the effective batch.\n" in out
    assert out.count("   fix: ") == 1
    # Both of cuda-oom's fingerprints match line 2: the line is quoted once, with both roles.
    assert out.count("   line 2: torch.OutOfMemoryError") == 1
    assert "      root fingerprint #0, rank 1; context fingerprint #1, rank 1\n" in out
    code, out, _ = diagnose_log(repo, capsys, tmp_path, text, "--json")
    result = json.loads(out)
    assert code == 0 and [m["id"] for m in result["matches"]] == ["cuda-oom", "nccl-watchdog-timeout"]
    assert result["matches"][1]["role"] == "symptom" and result["matches"][1]["explained_by"] == ["cuda-oom"]


def test_diagnose_lists_unexplained_errors_under_a_low_priority_match(repo, capsys, tmp_path):
    # The watchdog entry ranks below other failures (priority -10): the crash that no entry
    # explains may be the real cause, so the report shows it too. Under cuda-oom (priority 0)
    # the same unexplained line is left out.
    text = (
        "[rank0]:[E ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)\n"
        "Traceback (most recent call last):\n"
        "ValueError: a crash no entry knows\n"
    )
    code, out, _ = diagnose_log(repo, capsys, tmp_path, text)
    assert code == 0
    assert out.startswith("1 matching entry, best first:\n\n1. NCCL watchdog caught collective operation timeout\n")
    assert (
        "Error-looking lines that matched no entry:\n  line 2: Traceback (most recent call last):\n"
        "  line 3: ValueError: a crash no entry knows\n"
    ) in out
    # The report is titled with the exception, not with the traceback's header.
    assert "issues/new?template=new-failure.yml&title=New+failure%3A+ValueError" in out
    # A traceback's header alone is no lead: the exception under it is the matched line.
    code, out, _ = diagnose_log(repo, capsys, tmp_path, "Traceback (most recent call last):\n" + text.splitlines()[0])
    assert code == 0 and "1. NCCL watchdog caught collective operation timeout" in out
    assert "matched no entry" not in out and "issues/new" not in out
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\nValueError: later\n"
    code, out, _ = diagnose_log(repo, capsys, tmp_path, oom)
    assert code == 0 and "1. CUDA out of memory during training" in out
    assert "matched no entry" not in out and "issues/new" not in out


def test_a_bare_exception_titles_the_report(repo, capsys, tmp_path):
    text = 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    assert ok\nAssertionError\n'
    code, out, _ = diagnose_log(repo, capsys, tmp_path, text)
    assert code == 1
    assert "  line 1: Traceback (most recent call last):\n  line 4: AssertionError\n" in out
    assert "issues/new?template=new-failure.yml&title=New+failure%3A+AssertionError&error=AssertionError" in out


def test_diagnose_reuses_the_saved_fingerprint_set_until_an_entry_changes(repo, capsys, tmp_path):
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79 GiB\n"
    )
    saved = repo.root / "build" / ".trainwreck-fingerprints.json"
    code, out, _ = diagnose_log(repo, capsys, tmp_path, oom)
    assert code == 0 and out.splitlines()[2] == "1. CUDA out of memory during training"
    # The second run answers from the saved set: a title changed only there shows.
    record = json.loads(saved.read_text(encoding="utf-8"))
    oom_entry = next(entry for entry in record["set"]["entries"] if entry["id"] == "cuda-oom")
    oom_entry["title"] = "Title from the saved set"
    saved.write_text(json.dumps(record), encoding="utf-8")
    assert diagnose_log(repo, capsys, tmp_path, oom)[1].splitlines()[2] == "1. Title from the saved set"
    # Editing the entry makes the saved set stale: the entry as it is now is used, and saved.
    text = fixture_text("memory", "cuda-oom").replace("title: CUDA out of memory during training", "title: Edited")
    write_entry(repo, "memory", "cuda-oom", text)
    assert diagnose_log(repo, capsys, tmp_path, oom)[1].splitlines()[2] == "1. Edited"
    assert "Title from the saved set" not in saved.read_text(encoding="utf-8")
    # A damaged file is ignored and replaced.
    saved.write_text('{"stamp": ', encoding="utf-8")
    assert diagnose_log(repo, capsys, tmp_path, oom)[1].splitlines()[2] == "1. Edited"
    assert json.loads(saved.read_text(encoding="utf-8"))["set"]["entries"][0]["id"] == "cuda-error-generic"


def test_diagnose_reports_a_broken_entry_even_with_a_saved_set(repo, capsys, tmp_path):
    oom = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79 GiB\n"
    )
    assert diagnose_log(repo, capsys, tmp_path, oom)[0] == 0
    write_entry(repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("tags: [oom]", "tags: [nope]"))
    code, out, err = diagnose_log(repo, capsys, tmp_path, oom)
    assert code == 1 and out == ""
    assert err.splitlines()[0] == (
        "entries/memory/cuda-oom.yaml:7:7: tags: unknown tags 'nope'; add it to entries/_vocab/tags.yml first"
    )


def test_diagnose_no_match_from_stdin(repo, capsys, monkeypatch, tmp_path):
    import io
    import sys

    stream = io.TextIOWrapper(io.BytesIO(b"loading\nValueError: something new broke\n"))
    monkeypatch.setattr(sys, "stdin", stream)
    code, out, _ = run(repo, capsys, "diagnose", "-")
    assert code == 1
    assert "No confident match." in out
    assert "  line 2: ValueError: something new broke" in out
    assert "issues/new?template=new-failure.yml&title=New+failure%3A+ValueError" in out
