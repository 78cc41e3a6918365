"""The real corpus in entries/: valid, self-consistent, recognises real logs, quiet on healthy runs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import load_script

from generator.build import current_fingerprint_set, load_catalog
from generator.diagnose import Patterns, diagnose_stream, diagnose_text
from generator.fingerprints import canonical_json, compile_fingerprints
from generator.jsonschema import schema_text
from generator.settings import settings_for

REPO = Path(__file__).resolve().parents[1]
REALWORLD = sorted((REPO / "tests" / "realworld").glob("*.yaml"))
HEALTHY = sorted((REPO / "tests" / "healthy").glob("*.log"))
NODE_CLI = REPO / "tests" / "js" / "diagnose_cli.js"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(settings_for(REPO))


@pytest.fixture(scope="module")
def fingerprint_set(catalog):
    return compile_fingerprints(catalog.entries)


@pytest.fixture(scope="module")
def patterns(fingerprint_set) -> Patterns:
    """The set compiled once for the module's thousands of logs, as a caller with many logs would."""
    return Patterns(fingerprint_set)


def test_corpus_size_and_breadth(catalog):
    assert len(catalog.entries) >= 60
    assert len({entry.category for entry in catalog.entries}) >= 8


def test_every_entry_has_an_upstream_source(catalog):
    for entry in catalog.entries:
        kinds = {reference.kind for reference in entry.references}
        assert kinds & {"issue", "pull-request", "docs", "source", "release-notes"}, entry.id


def test_a_diagnosis_checks_the_corpus_to_the_set_a_build_compiles(fingerprint_set):
    """At this size, with two cores or more, the entries are checked in forked workers that send back
    only their parts of the set."""
    assert current_fingerprint_set(settings_for(REPO)) == fingerprint_set


def test_committed_schema_is_current(catalog):
    committed = (REPO / "entries" / "entry.schema.json").read_text(encoding="utf-8")
    assert committed == schema_text(catalog.vocabulary), "run: trainwreck export schema > entries/entry.schema.json"


def test_every_example_is_diagnosed_as_its_entry_in_the_whole_corpus(catalog, patterns):
    for entry in catalog.entries:
        for example in entry.diagnose.examples.match:
            matched = [match["id"] for match in diagnose_text(example, patterns)["matches"]]
            assert entry.id in matched, (entry.id, example[:80])


def test_a_failure_ranks_above_every_warning_in_the_same_log(catalog, patterns):
    """Warnings print before the crash that ends a run; the crash is what the reader came for."""
    crash = next(entry for entry in catalog.entries if entry.id == "cuda-oom-training-batch")
    warnings = [entry for entry in catalog.entries if "warnings" in entry.tags]
    assert len(warnings) >= 30
    for warning in warnings:
        assert warning.diagnose.priority < 0, warning.id
        log = warning.diagnose.examples.match[0] + "\n" + crash.diagnose.examples.match[0]
        matched = [match["id"] for match in diagnose_text(log, patterns)["matches"]]
        assert matched[0] == crash.id and warning.id in matched, (warning.id, matched)


def load_realworld(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_at_least_forty_real_logs_with_sources():
    assert len(REALWORLD) >= 40
    for path in REALWORLD:
        case = load_realworld(path)
        assert case["source"].startswith("https://"), path.name
        assert path.stem.split("--")[0] == case["entry"], path.name


def test_every_entry_has_a_real_log(catalog):
    covered = {load_realworld(path)["entry"] for path in REALWORLD}
    assert [entry.id for entry in catalog.entries if entry.id not in covered] == []


def test_real_logs_of_one_entry_come_from_different_threads():
    sources: dict[str, list[str]] = {}
    for path in REALWORLD:
        case = load_realworld(path)
        sources.setdefault(case["entry"], []).append(case["source"])
    assert {entry: urls for entry, urls in sources.items() if len(set(urls)) != len(urls)} == {}


def test_every_real_log_cites_its_thread_among_its_entry_references(catalog):
    """The page names where each of its real logs was reported; a fragment (#issuecomment-...)
    may point into the same thread."""
    cited = {entry.id: {_thread(reference.url) for reference in entry.references} for entry in catalog.entries}
    uncited = []
    for path in REALWORLD:
        case = load_realworld(path)
        if _thread(case["source"]) not in cited[case["entry"]]:
            uncited.append((path.name, case["source"]))
    assert uncited == []


def _thread(url: str) -> str:
    return url.split("#")[0].rstrip("/")


@pytest.mark.parametrize("path", REALWORLD, ids=lambda path: path.stem)
def test_real_log_is_diagnosed_as_the_right_entry(path, patterns):
    case = load_realworld(path)
    result = diagnose_text(case["log"], patterns)
    assert result["confident"], path.name
    assert result["matches"][0]["id"] == case["entry"]


def test_real_logs_are_not_copies_of_entry_examples(catalog):
    examples = {" ".join(text.split()) for entry in catalog.entries for text in entry.diagnose.examples.match}
    for path in REALWORLD:
        assert " ".join(load_realworld(path)["log"].split()) not in examples, path.name


@pytest.mark.parametrize("path", HEALTHY, ids=lambda path: path.stem)
def test_healthy_runs_match_nothing(path, patterns):
    result = diagnose_stream([path.read_bytes()], patterns)
    assert result["matches"] == [], [match["id"] for match in result["matches"]]


def test_both_engines_agree_on_real_logs(tmp_path, fingerprint_set, patterns):
    fingerprints = tmp_path / "fingerprints.json"
    fingerprints.write_text(canonical_json(fingerprint_set), encoding="utf-8")
    logs = []
    for path in REALWORLD:
        log = tmp_path / f"{path.stem}.log"
        log.write_text(load_realworld(path)["log"], encoding="utf-8")
        logs.append(log)
    logs += HEALTHY
    node = shutil.which("node")
    assert node, "node is required"
    out = subprocess.run([node, str(NODE_CLI), str(fingerprints), *map(str, logs)], capture_output=True, check=True)
    python = [canonical_json(diagnose_stream([log.read_bytes()], patterns)) for log in logs]
    assert out.stdout.decode("utf-8").splitlines() == python
    assert json.loads(python[0])["matches"]


def test_readme_corpus_stats_are_current():
    corpus_stats = load_script(REPO / "scripts" / "corpus_stats.py")
    text = corpus_stats.README.read_text(encoding="utf-8")
    assert corpus_stats.readme_with_stats(text) == text, "run `make readme`"
