"""Project files that are not Python: workflows, templates, editor and hook config, and the docs' commands."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from generator.build import site_info
from generator.cli import _parser
from generator.entry_cache import CACHE_NAME as ENTRY_CACHE
from generator.page_cache import CACHE_NAME as PAGE_CACHE
from generator.settings import settings_for

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def make_targets() -> set[str]:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][a-z-]*):", text, re.MULTILINE))


def cli_verbs() -> set[str]:
    actions = [a for a in _parser()._actions if a.__class__.__name__ == "_SubParsersAction"]
    return set(actions[0].choices)


def commands_in(text: str) -> list[tuple[str, str]]:
    """(kind, word) for every `make X` and `trainwreck X` in a block of shell text."""
    found = [("make", word) for word in re.findall(r"(?:^|[;&|(]\s*|\s)make ([a-z][a-z-]*)", text)]
    found += [("trainwreck", word) for word in re.findall(r"trainwreck ([a-z]+)", text)]
    return found


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.name)
def test_workflow_parses_and_runs_only_existing_commands(path):
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert workflow["jobs"], path.name
    for job in workflow["jobs"].values():
        assert job["runs-on"] == "ubuntu-latest"
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), step
            if "uses" in step:
                assert re.match(r"^actions/[a-z-]+@v[0-9]+$", step["uses"]), step["uses"]
            for kind, word in commands_in(step.get("run", "")):
                assert word in (make_targets() if kind == "make" else cli_verbs()), (path.name, kind, word)


def test_pages_workflow_uses_the_pages_actions():
    pages = (REPO / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    assert "actions/upload-pages-artifact@" in pages and "actions/deploy-pages@" in pages


def test_pages_workflow_keeps_the_generator_caches_between_deploys():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["build"]["steps"]
    names = [step.get("name") for step in steps]
    cache = next(step for step in steps if step.get("uses", "").startswith("actions/cache@"))
    assert steps.index(cache) < names.index("Build the site")
    assert cache["with"]["path"].split() == [f"build/{ENTRY_CACHE}", f"build/{PAGE_CACHE}"]
    assert cache["with"]["restore-keys"] and cache["with"]["key"].startswith(cache["with"]["restore-keys"])


def test_issue_form_collects_a_failure_report():
    form = yaml.safe_load((REPO / ".github" / "ISSUE_TEMPLATE" / "new-failure.yml").read_text(encoding="utf-8"))
    ids = [item["id"] for item in form["body"] if "id" in item]
    assert ids == ["error", "stack", "versions", "hardware", "log", "fix"]
    # The diagnose command's "report a new failure" link names this form by its file name.
    assert site_info(settings_for(REPO)).new_issue_url.endswith("/issues/new?template=new-failure.yml")


def test_pre_commit_and_editor_config_point_at_real_things():
    hooks = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [hook["entry"] for repo in hooks["repos"] for hook in repo["hooks"]]
    assert ".venv/bin/trainwreck validate" in entries and ".venv/bin/trainwreck fmt --check" in entries
    settings = json.loads((REPO / ".vscode" / "settings.json").read_text(encoding="utf-8"))
    schema_path = next(iter(settings["yaml.schemas"]))
    assert (REPO / schema_path).is_file()


@pytest.mark.parametrize("document", ["README.md", "CONTRIBUTING.md", ".pre-commit-config.yaml"])
def test_documented_commands_exist(document):
    text = (REPO / document).read_text(encoding="utf-8")
    for kind, word in commands_in(text):
        assert word in (make_targets() if kind == "make" else cli_verbs()), (document, kind, word)


def test_contributing_walkthrough_in_a_copy_of_the_repo(tmp_path):
    """CONTRIBUTING's steps, as a contributor runs them: scaffold → fill → validate → build → page."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True, check=True).stdout
    copy = tmp_path / "trainwreck"
    for name in files.splitlines():
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    trainwreck = [sys.executable, "-m", "generator", "--root", str(copy)]

    def run(*args):
        return subprocess.run([*trainwreck, *args], capture_output=True, text=True)

    assert run("new", "zz-contributed-failure", "--category", "distributed").returncode == 0
    path = copy / "entries" / "distributed" / "zz-contributed-failure.yaml"
    failed = run("validate")
    assert (
        failed.returncode == 1
        and "entries/distributed/zz-contributed-failure.yaml:4:8: title: placeholder" in failed.stderr
    )
    donor = yaml.safe_load((copy / "entries" / "distributed" / "nccl-duplicate-gpu-detected.yaml").read_text())
    donor.update(id="zz-contributed-failure", aliases=[], related=[], created="2026-11-30")
    path.write_text(yaml.safe_dump(donor, sort_keys=False, allow_unicode=True), encoding="utf-8")
    assert run("fmt").returncode == 0
    assert run("validate").returncode == 0
    assert run("build").returncode == 0
    page = copy / "build" / "docs" / "entries" / "zz-contributed-failure.md"
    assert page.is_file() and "Duplicate GPU detected" in page.read_text(encoding="utf-8")


def test_nothing_generated_is_committed():
    """build/ holds the entry cache, which builds trust (generator/entry_cache.py): a pull
    request must not be able to bring one. site/ is built output."""
    tracked = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "--", "build", "site"], capture_output=True, text=True, check=True
    )
    assert tracked.stdout == ""
