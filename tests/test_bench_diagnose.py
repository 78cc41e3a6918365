"""benchmarks/bench_diagnose.py counts the memory of a process with its forked workers once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parents[1]

# Touches 60 MB, forks, and both processes wait: the pages are shared, not copied.
FORKING_CHILD = """
import os, time
block = b"x" * 60_000_000
os.fork()
print("ready", flush=True)
time.sleep(30)
"""


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return load_script(ROOT / "benchmarks" / "bench_diagnose.py")


@pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="needs Linux's /proc")
def test_tree_memory_counts_pages_shared_through_fork_once(bench):
    process = subprocess.Popen([sys.executable, "-c", FORKING_CHILD], stdout=subprocess.PIPE, text=True)
    children: list[str] = []
    try:
        assert process.stdout.readline() == "ready\n"
        time.sleep(0.2)  # the fork has happened: the parent's list of children is settled
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        assert len(children) == 1
        megabytes = bench.tree_pss_kb(process.pid) / 1024
        # Each process holds the 60 MB block: counted once (57 MiB), not twice, plus two interpreters.
        assert 57 < megabytes < 57 + 30
    finally:
        for child in children:
            os.kill(int(child), signal.SIGKILL)
        process.kill()
        process.wait()


def test_tree_memory_of_a_process_that_ended_is_zero(bench):
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    assert process.wait() == 0
    assert bench.tree_pss_kb(process.pid) == 0
