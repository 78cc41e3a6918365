"""Per-entry work spread over the CPU cores, in order, with the same result as one process.

Workers are forked after the catalog is built, so they share it without copying or pickling
it (pickling a validated entry costs about as much as parsing it). Only the results travel
back (page text and problems), through a private temporary folder. Under `mkdocs serve` (threads running, and a memo that makes
rebuilds cheap anyway) the build runs in one process.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

Shared = TypeVar("Shared")
Result = TypeVar("Result")
# Below this many items, starting processes costs more than it saves.
MIN_ITEMS_PER_WORKER = 500
PARTS_PER_WORKER = 4

_job: tuple[Callable, object] | None = None


def worker_count() -> int:
    """The cores this process may use (fewer than the machine's under a CPU affinity mask)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def forked_workers(count: int, workers: int) -> int:
    """How many processes map_in_parts would fork for `count` items; 1 means none."""
    # Forking copies only the calling thread: with others running, a lock one of them holds
    # would stay locked in the child for ever. Then, and where fork does not exist, one process.
    if threading.active_count() > 1 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(workers, count // MIN_ITEMS_PER_WORKER))


def map_in_parts(
    function: Callable[[Shared, int, int], list[Result]], shared: Shared, count: int, workers: int
) -> list[Result]:
    """`function(shared, start, stop)` over consecutive parts of range(count), results joined in order."""
    return Parts(function, shared, count, workers).results()


class Parts:
    """`function(shared, start, stop)` over parts of range(count), computed by forked workers
    while the caller does other work; `results()` waits for them. In one process, the work is
    done as the results are asked for: all of it at once, or `part_in_one_process` items at a
    time for a caller that lets go of each result before it asks for the next."""

    def __init__(
        self,
        function: Callable[[Shared, int, int], list[Result]],
        shared: Shared,
        count: int,
        workers: int,
        part_in_one_process: int | None = None,
    ):
        self.function, self.shared, self.count = function, shared, count
        self.part_in_one_process = part_in_one_process or max(count, 1)
        self.pool = None
        workers = forked_workers(count, workers)
        if workers <= 1:
            return
        global _job
        # Results come back through files in a private folder: through the pool's pipe, 270 MB
        # of pages took 1.1 s instead of 0.4 s.
        self.folder = tempfile.mkdtemp(prefix="trainwreck-parts-")
        _job = (function, shared, self.folder)  # what the workers inherit when they fork, just below
        self.pool = multiprocessing.get_context("fork").Pool(workers)
        # Several parts per worker, so that results already travel back while the rest is computed.
        parts = workers * PARTS_PER_WORKER
        bounds = [(part, count * part // parts, count * (part + 1) // parts) for part in range(parts)]
        self.pending = self.pool.imap(_run_part, bounds)

    def results(self) -> list[Result]:
        return list(self)

    def __iter__(self) -> Iterator[Result]:
        """The results in order, each part's as soon as it is done, so that the caller can work
        on them while the workers compute the rest."""
        if self.pool is None:
            size = self.part_in_one_process
            for start in range(0, self.count, size):
                yield from self.function(self.shared, start, min(start + size, self.count))
            return
        try:
            for path in self.pending:
                yield from _load(path)
        finally:
            self.close()

    def close(self) -> None:
        """Stop the workers and remove their files (a caller that failed before asking for the
        results must)."""
        global _job
        if self.pool is not None:
            self.pool.terminate()
            shutil.rmtree(self.folder, ignore_errors=True)
            self.pool, _job = None, None


def _run_part(part: Sequence[int]) -> str:
    function, shared, folder = _job
    number, start, stop = part
    path = os.path.join(folder, f"{number}.pickle")
    with open(path, "wb") as file:
        pickle.dump(function(shared, start, stop), file, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def _load(path: str) -> list:
    """A part's results, written by the worker that made them (never anything else)."""
    with open(path, "rb") as file:
        part = pickle.load(file)
    os.unlink(path)
    return part
