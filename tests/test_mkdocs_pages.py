"""Entry pages converted in worker processes give the same site as MkDocs converting them itself."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from conftest import files_under, fixture_text, write_entry
from mkdocs.structure.files import File, Files

from generator.build import build
from generator.mkdocs_pages import link_generated_files

pytestmark = pytest.mark.slow

# `mkdocs build --strict` in a fresh process (no threads, so the workers may fork), with every
# entry page worth a worker when `per_worker` is 1. Prints how many pages the workers converted
# and rendered.
BUILD = """
import logging
import sys
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort
from generator import mkdocs_pages, parallel

logging.basicConfig(format="%(levelname)s %(message)s")
parallel.MIN_ITEMS_PER_WORKER = int(sys.argv[2])
counts = {"converted": [], "rendered": []}
convert, render = mkdocs_pages.convert_entry_pages, mkdocs_pages.render_entry_pages
mkdocs_pages.convert_entry_pages = lambda *a: counts["converted"].append(convert(*a)) or counts["converted"][-1]
mkdocs_pages.render_entry_pages = lambda *a: counts["rendered"].append(render(*a)) or counts["rendered"][-1]
config = load_config(sys.argv[1], strict=True)
config.plugins.on_startup(command="build", dirty=False)
try:
    build(config)
except Abort as stopped:
    sys.exit(f"Abort: {stopped}")
finally:
    print("converted in workers:", sum(counts["converted"]), "rendered in workers:", sum(counts["rendered"]))
"""


def mkdocs_build(settings, per_worker: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    config = str(settings.root / "mkdocs.yml")
    command = [sys.executable, "-c", BUILD, config, str(per_worker)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def site_files(settings) -> dict[str, bytes]:
    return files_under(settings.site_dir)


def test_pages_converted_in_workers_equal_mkdocs_own(repo):
    # A list nested by three spaces: CommonMark (cmark-gfm) nests it, Python-Markdown did not.
    text = (
        fixture_text("memory", "cuda-oom")
        .replace("  - Larger batches", "  1. Two causes:\n     - Larger batches")
        .replace("  - Optimizer state", "     - Optimizer state")
    )
    write_entry(repo, "memory", "cuda-oom", text)
    build(repo)
    alone = mkdocs_build(repo, per_worker=10_000)
    assert alone.returncode == 0, alone.stderr
    assert "converted in workers: 0 rendered in workers: 0" in alone.stdout
    one_process = site_files(repo)

    forked = mkdocs_build(repo, per_worker=1)
    assert forked.returncode == 0, forked.stderr
    assert "converted in workers: 4 rendered in workers: 4" in forked.stdout
    assert site_files(repo) == one_process
    page = one_process["entries/cuda-oom/index.html"].decode()
    assert '<h2 id="the-fix">' in page
    assert "<ol>\n<li>Two causes:\n<ul>\n<li>Larger batches" in page


def test_a_warning_in_a_worker_fails_a_strict_build(repo):
    text = fixture_text("memory", "cuda-oom").replace(
        "raises an out-of-memory error.", "raises an out-of-memory error. See [the notes](notes.md)."
    )
    write_entry(repo, "memory", "cuda-oom", text)
    build(repo)
    forked = mkdocs_build(repo, per_worker=1)
    assert forked.returncode != 0
    assert "converted in workers: 4" in forked.stdout
    assert "WARNING Doc file 'entries/cuda-oom.md' contains a link 'notes.md'" in forked.stderr
    assert forked.stderr.endswith("Abort: Aborted with 1 warnings in strict mode!\n")


# Two builds of one `mkdocs serve` session: the first before the server's threads start, the
# second beside a running thread, as every later rebuild runs. Prints what each converted.
SERVE = """
import sys
import threading
from mkdocs.commands.build import build
from mkdocs.config import load_config
from generator import mkdocs_pages, parallel

parallel.MIN_ITEMS_PER_WORKER = 1
converted = []
convert = mkdocs_pages.convert_entry_pages
mkdocs_pages.convert_entry_pages = lambda *a: converted.append(convert(*a)) or converted[-1]
config = load_config(sys.argv[1])
config.plugins.on_startup(command="serve", dirty=True)
build(config, dirty=True)
threading.Thread(target=threading.Event().wait, daemon=True).start()
build(load_config(sys.argv[1]), dirty=True)
print("converted in workers, by build:", converted)
"""


def test_only_the_first_build_of_mkdocs_serve_uses_workers(repo):
    build(repo)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-c", SERVE, str(repo.root / "mkdocs.yml")]
    served = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert served.returncode == 0, served.stderr
    assert "converted in workers, by build: [4, 0]" in served.stdout
    assert '<h2 id="the-fix">' in site_files(repo)["entries/cuda-oom/index.html"].decode()


def test_exports_are_linked_and_a_dirty_rebuild_in_workers_redoes_only_the_edited_entry(repo):
    """A `--dirty` build leaves unchanged pages unread; the workers must skip them too."""
    build(repo)
    assert mkdocs_build(repo, per_worker=1).returncode == 0
    export = "api/entries/cuda-oom.json"
    docs_file, site_file = repo.generated_dir / export, repo.site_dir / export
    assert os.path.samefile(docs_file, site_file)
    theme_file = "assets/diagnose/page.js"  # not generated: MkDocs copies it
    assert not os.path.samefile(repo.root / "site_overrides" / theme_file, repo.site_dir / theme_file)

    text = fixture_text("memory", "cuda-oom").replace("raises an out-of-memory error.", "raises an OOM error.")
    write_entry(repo, "memory", "cuda-oom", text)
    build(repo)
    edited = docs_file.read_bytes()
    assert b"raises an OOM error." in edited
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-c", SERVE, str(repo.root / "mkdocs.yml")]
    assert subprocess.run(command, capture_output=True, text=True, env=env, timeout=300).returncode == 0
    assert site_file.read_bytes() == edited
    assert docs_file.read_bytes() == edited
    assert "raises an OOM error." in (repo.site_dir / "entries" / "cuda-oom" / "index.html").read_text()


def test_linking_stops_where_the_file_system_refuses(tmp_path, monkeypatch):
    docs, site = tmp_path / "docs", tmp_path / "site"
    (docs / "api").mkdir(parents=True)
    (docs / "api" / "a.json").write_text("{}", encoding="utf-8")
    (docs / "api" / "b.json").write_text("[]", encoding="utf-8")
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    files = Files([File(path, str(docs), str(site), True) for path in ("index.md", "api/a.json", "api/b.json")])
    config = SimpleNamespace(docs_dir=str(docs))

    assert link_generated_files(config, files) == 2
    assert os.path.samefile(docs / "api" / "a.json", site / "api" / "a.json")
    assert not (site / "index.md").exists()
    assert link_generated_files(config, files) == 0  # already there: left to MkDocs
    # A --dirty rebuild: the first destination already there stops linking; MkDocs copies the new file.
    (docs / "api" / "c.json").write_text("null", encoding="utf-8")
    files.append(File("api/c.json", str(docs), str(site), True))
    assert link_generated_files(config, files) == 0
    assert not (site / "api" / "c.json").exists()

    def refuse(source, target):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", refuse)
    other_site = tmp_path / "other"
    files = Files([File("api/a.json", str(docs), str(other_site), True)])
    assert link_generated_files(config, files) == 0
    files.copy_static_files()
    assert (other_site / "api" / "a.json").read_text(encoding="utf-8") == "{}"
    assert not os.path.samefile(docs / "api" / "a.json", other_site / "api" / "a.json")
