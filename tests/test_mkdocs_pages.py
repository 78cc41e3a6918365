"""Entry pages converted in worker processes give the same site as MkDocs converting them itself."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import files_under, fixture_text, write_entry

from generator.build import build

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
    build(repo)
    alone = mkdocs_build(repo, per_worker=10_000)
    assert alone.returncode == 0, alone.stderr
    assert "converted in workers: 0 rendered in workers: 0" in alone.stdout
    one_process = site_files(repo)

    forked = mkdocs_build(repo, per_worker=1)
    assert forked.returncode == 0, forked.stderr
    assert "converted in workers: 4 rendered in workers: 4" in forked.stdout
    assert site_files(repo) == one_process
    assert '<h2 id="the-fix">' in one_process["entries/cuda-oom/index.html"].decode()


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
