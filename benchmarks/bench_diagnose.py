"""Diagnose benchmarks (issue targets): a 10 MB, 8-rank log against 200+ fingerprints.

- CPython engine: wall time, target < 1 s.
- Browser engine (the same engine.js, run by Node's V8 as a stand-in for Chromium's): target < 0.3 s.
- 100 MB through stdin of `trainwreck diagnose -`: peak memory, target < 200 MB; measured on the
  first run (which checks every entry in worker processes) and again with the fingerprint set it
  saved, for the main process and for it with its workers.

Writes benchmarks/out/diagnose.json. Run through `make bench` (benchmarks/run.py).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))

from generator.build import load_catalog  # noqa: E402
from generator.diagnose import diagnose_stream  # noqa: E402
from generator.fingerprints import canonical_json, compile_fingerprints  # noqa: E402
from generator.freshness import FINGERPRINTS_NAME  # noqa: E402
from generator.settings import settings_for  # noqa: E402

RANKS = 8
HEALTHY_LINES = [
    "epoch {e} step {s} loss {l:.4f} lr 3.0e-04 tokens/s 48211",
    "node1:4250:4267 [{r}] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7",
    " 42%|████▏     | {s}/10000 [03:12<04:25, 21.3it/s]",
    "/opt/venv/lib/python3.11/site-packages/torch/autograd/graph.py:825: UserWarning: Grad strides do not match bucket view strides.",
    "{{'loss': {l:.4f}, 'grad_norm': 3.1875, 'learning_rate': 1.9786e-05, 'epoch': {e}}}",
]
FAILURE = [
    "Traceback (most recent call last):",
    '  File "train.py", line 88, in <module>',
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB of which 1.06 GiB is free.",
]


def make_log(target_bytes: int, seed: int = 1) -> bytes:
    """An 8-rank torchrun log: healthy progress on every rank, one OOM on rank 3 near the end."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    step = 0
    while size < target_bytes:
        rank = rng.randrange(RANKS)
        line = rng.choice(HEALTHY_LINES).format(e=step // 1000, s=step, l=rng.random() * 3, r=rank)
        text = f"[rank{rank}]: {line}\n"
        parts.append(text)
        size += len(text.encode())
        step += 1
    tail = [f"[rank3]: {row}\n" for row in FAILURE]
    return "".join(parts[: -len(tail)] + tail).encode("utf-8")


def padded_fingerprint_set(minimum: int = 200) -> dict:
    """The real corpus, plus synthetic entries until there are at least `minimum` fingerprints."""
    catalog = load_catalog(settings_for(ROOT))
    data = compile_fingerprints(catalog.entries)
    count = sum(len(entry["fingerprints"]) for entry in data["entries"])
    extra = 0
    while count < minimum:
        data["entries"].append(
            {
                "id": f"synthetic-{extra:03d}",
                "title": "synthetic",
                "url": f"entries/synthetic-{extra:03d}/",
                "match": "any",
                "priority": 0,
                "explains": [],
                "exclude": [],
                "fingerprints": [
                    {
                        "index": 0,
                        "kind": "regex",
                        "pattern": f"SyntheticError{extra:03d}: code [0-9]{{1,4}}",
                        "role": "root",
                        "anchor": f"SyntheticError{extra:03d}: code ",
                        "regex": f"SyntheticError{extra:03d}: code [0-9]{{1,4}}",
                        "exclude": [],
                        "specificity": 24,
                    }
                ],
            }
        )
        extra += 1
        count += 1
    return data


def best_of(runs: int, action) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def run() -> dict:
    OUT.mkdir(parents=True, exist_ok=True)
    fingerprint_set = padded_fingerprint_set()
    fingerprints_file = OUT / "fingerprints-bench.json"
    fingerprints_file.write_text(canonical_json(fingerprint_set), encoding="utf-8")
    log = make_log(10 * 1024 * 1024)
    log_file = OUT / "bench-10mb.log"
    log_file.write_bytes(log)
    total = sum(len(entry["fingerprints"]) for entry in fingerprint_set["entries"])

    python_seconds = best_of(3, lambda: diagnose_stream([log], fingerprint_set))
    result = diagnose_stream([log], fingerprint_set)
    assert result["matches"][0]["id"] == "cuda-oom-training-batch", result["matches"][:1]

    node_seconds = None
    if shutil.which("node"):
        script = ROOT / "benchmarks" / "bench_engine.js"
        out = subprocess.run(
            ["node", str(script), str(fingerprints_file), str(log_file)], capture_output=True, text=True, check=True
        )
        node_seconds = json.loads(out.stdout)["best_seconds"]

    big = OUT / "bench-100mb.log"
    with big.open("wb") as stream:
        for _ in range(10):
            stream.write(log)
    # The first diagnosis checks every entry to compile the fingerprint set, and saves it; the
    # next ones read the saved set while no entry changed.
    (settings_for(ROOT).build_dir / FINGERPRINTS_NAME).unlink(missing_ok=True)
    rss_first, tree_first = stdin_peak_memory_mb(big)
    rss_saved, tree_saved = stdin_peak_memory_mb(big)
    big.unlink()
    return {
        "log_mb": round(len(log) / 1024 / 1024, 1),
        "ranks": RANKS,
        "fingerprints": total,
        "python_seconds": round(python_seconds, 3),
        "python_target_seconds": 1.0,
        "browser_engine_seconds": None if node_seconds is None else round(node_seconds, 3),
        "browser_engine_target_seconds": 0.3,
        "stdin_100mb_peak_rss_mb": rss_first,
        "stdin_100mb_saved_set_peak_rss_mb": rss_saved,
        "stdin_100mb_tree_peak_mb": tree_first,
        "stdin_100mb_saved_set_tree_peak_mb": tree_saved,
        "stdin_target_mb": 200,
    }


TREE_SAMPLE_SECONDS = 0.005


def stdin_peak_memory_mb(path: Path) -> tuple[float, float]:
    """Peak memory of `trainwreck diagnose -` reading `path` from standard input: the main
    process's own high-water mark, and the highest sum over it and its worker processes.

    The first diagnosis checks the entries in forked workers, whose memory the main process's
    figure leaves out. Their sum is sampled every few milliseconds as proportional set size
    (a page shared by n processes counts 1/n in each), so memory shared through the fork is
    counted once."""
    peak_rss = ROOT / "benchmarks" / "peak_rss.py"
    with path.open("rb") as stream, tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            [sys.executable, str(peak_rss), "generator", "diagnose", "-", "--json"],
            stdin=stream,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            cwd=ROOT,
        )
        tree_kb = 0
        while process.poll() is None:
            tree_kb = max(tree_kb, tree_pss_kb(process.pid))
            time.sleep(TREE_SAMPLE_SECONDS)
        stderr.seek(0)
        errors = stderr.read().decode()
    if process.returncode != 0:
        raise RuntimeError(f"diagnose exited with {process.returncode}: {errors[-2000:]}")
    main_kb = int(re.search(r"PEAK_RSS_KB (\d+)", errors).group(1))
    return round(main_kb / 1024, 1), round(tree_kb / 1024, 1)


def tree_pss_kb(pid: int) -> int:
    """Proportional set size of `pid` and all its descendants now, in kB (0 for any that ended)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            rollup = Path(f"/proc/{current}/smaps_rollup").read_text(encoding="ascii")
            children = Path(f"/proc/{current}/task/{current}/children").read_text(encoding="ascii")
        except OSError:
            continue
        found = re.search(r"^Pss:\s+(\d+) kB", rollup, re.MULTILINE)
        total += int(found.group(1)) if found else 0
        pending += [int(child) for child in children.split()]
    return total


if __name__ == "__main__":
    print(json.dumps(run(), indent=1))
