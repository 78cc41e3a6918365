"""`make bench`: measure the build at 100, 1,000 and 10,000 entries and the diagnose engines,
then write the figures to docs/benchmarks.md (a page of the site, with a plot) and
benchmarks/out/results.json.

Usage: python benchmarks/run.py [--sizes 100,1000,10000] [--skip-diagnose] [--reuse] [--page-only]
                                [--diagnose-only] [--floors-only]
Each figure is printed next to its target. Timings are wall-clock on this machine.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
PAGE = ROOT / "docs" / "benchmarks.md"
NOTES = ROOT / "benchmarks" / "notes.md"  # hand-written: what the figures mean, appended to the page
NOTES_MARKER = "<!-- What follows is benchmarks/notes.md. -->"
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_diagnose import run as run_diagnose  # noqa: E402
from floors import floor_figures  # noqa: E402
from make_corpus import install_site_files, make_corpus  # noqa: E402

from generator.entry_cache import CACHE_NAME as ENTRY_CACHE  # noqa: E402
from generator.page_cache import CACHE_NAME as PAGE_CACHE  # noqa: E402

PYTHON = sys.executable
CHROMIUM = os.environ.get("TRAINWRECK_CHROMIUM", "/usr/bin/chromium")
LISTING_FOLDERS = ("all", "categories", "tags", "systems", "severity")
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


REFERENCE_LOOP_ADDITIONS = 10_000_000
REFERENCE_LOOP_RUNS = 3


def reference_loop_seconds() -> float:
    """Best time of a fixed pure-Python loop: machines of the same kind differ by half from one
    session to the next, so timings are compared only next to this figure."""
    best = float("inf")
    for _ in range(REFERENCE_LOOP_RUNS):
        started = time.perf_counter()
        total = 0
        for number in range(REFERENCE_LOOP_ADDITIONS):
            total += number
        best = min(best, time.perf_counter() - started)
    return round(best, 3)


def timed(args: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=ENV)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{result.stderr[-2000:]}")
    return elapsed, result.stderr


EDIT_MARKERS = re.compile(r"^(?:(?:Live edit \d+|Edited) - )+")


def retitle(path: Path, prefix: str, field: str = "title") -> None:
    """Edit one entry the way a contributor would: change its title (or another text field)."""
    entry = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    # Replace the marker of an earlier edit: titles have a length limit, and runs add up.
    entry[field] = prefix + EDIT_MARKERS.sub("", entry[field])
    path.write_text(yaml.dump(entry, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True), encoding="utf-8")


def generator_figures(repo: Path) -> dict:
    build = [PYTHON, "-m", "generator", "--root", str(repo), "build"]
    cold, _ = timed(build)
    noop, err = timed(build)
    noop_written = int(re.search(r"(\d+) written", err).group(1))
    victim = sorted((repo / "entries").glob("*/*.yaml"))[len(list((repo / "entries").glob("*/*.yaml"))) // 2]
    retitle(victim, "Edited - ", field="summary")
    _, err = timed(build)
    summary_edit_written = int(re.search(r"(\d+) written", err).group(1))
    retitle(victim, "Edited - ")
    edit, err = timed(build)
    edit_written = int(re.search(r"(\d+) written", err).group(1))
    check = [PYTHON, "-m", "generator", "--root", str(repo), "build", "--check"]
    render_only, _ = timed(check)
    # The same without the entry and page caches of earlier builds (a fresh clone), and a full
    # build that finds the caches but no output (after deleting build/docs).
    caches = [repo / "build" / name for name in (ENTRY_CACHE, PAGE_CACHE)]
    for cache in caches:
        cache.rename(cache.with_name(cache.name + ".aside"))
    render_only_cold, _ = timed(check)
    for cache in caches:
        cache.with_name(cache.name + ".aside").rename(cache)
    shutil.rmtree(repo / "build" / "docs")
    cached, _ = timed(build)
    return {
        "generator_cold_s": round(cold, 2),
        "generator_cached_s": round(cached, 2),
        "generator_noop_s": round(noop, 2),
        "generator_noop_written": noop_written,
        "generator_edit_s": round(edit, 2),
        "generator_edit_written": edit_written,
        "generator_summary_edit_written": summary_edit_written,
        "generator_check_s": round(render_only, 2),
        "generator_check_cold_s": round(render_only_cold, 2),
    }


def mkdocs_figures(repo: Path) -> dict:
    peak_rss = str(ROOT / "benchmarks" / "peak_rss.py")
    args = [PYTHON, peak_rss, "mkdocs", "build", "--strict", "-q", "-f", str(repo / "mkdocs.yml")]
    seconds, err = timed(args)
    peak = int(re.search(r"PEAK_RSS_KB (\d+)", err).group(1)) / 1024
    site = repo / "site"
    size = sum(path.stat().st_size for path in site.rglob("*") if path.is_file())
    # What the browser fetches for search: the theme's index of the hand-written pages and
    # one document per entry (search/entries.json).
    index = (site / "search" / "search_index.json").read_bytes() + (site / "search" / "entries.json").read_bytes()
    pages = [path for path in (site / "entries").glob("*/index.html")]
    largest = max(path.stat().st_size for path in pages)
    listings = [path for folder in LISTING_FOLDERS for path in (site / folder).rglob("index.html")]
    return {
        "mkdocs_build_s": round(seconds, 1),
        "mkdocs_peak_mb": round(peak),
        "site_mb": round(size / 1024 / 1024, 1),
        "search_index_mb": round(len(index) / 1024 / 1024, 2),
        "search_index_gzip_mb": round(len(gzip.compress(index, 6)) / 1024 / 1024, 2),
        "search_gzip_kb_per_entry": round(len(gzip.compress(index, 6)) / 1024 / len(pages), 2),
        "largest_entry_page_kb": round(largest / 1024, 1),
        "largest_listing_page_kb": round(max(path.stat().st_size for path in listings) / 1024, 1),
    }


def serve_figures(repo: Path, edits: int = 5) -> dict:
    """Seconds from saving one YAML file to `mkdocs serve --dirty` serving the rebuilt page, the
    median of `edits` edits of its summary, then of its title (a title edit also changes every
    listing that shows the title; a summary edit only the page)."""
    port = 8700 + os.getpid() % 200
    server = subprocess.Popen(
        [PYTHON, "-m", "mkdocs", "serve", "--dirty", "-a", f"127.0.0.1:{port}", "-f", str(repo / "mkdocs.yml")],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        victim = sorted((repo / "entries").glob("*/*.yaml"))[0]
        url = f"http://127.0.0.1:{port}/trainwreck/entries/{victim.stem}/"
        deadline = time.time() + 1200  # the first build of 10,000 pages takes minutes
        while time.time() < deadline and _fetch(url) is None:
            time.sleep(0.5)
        return {
            "serve_edit_s": _median_edit_seconds(victim, url, "summary", edits),
            "serve_title_edit_s": _median_edit_seconds(victim, url, "title", edits),
        }
    finally:
        server.terminate()
        server.wait(timeout=30)


def _median_edit_seconds(victim: Path, url: str, field: str, edits: int) -> float:
    seconds = []
    for _ in range(edits):
        time.sleep(2)  # let the rebuild that our own writes trigger settle
        marker = f"Live edit {time.time_ns()} - "
        retitle(victim, marker, field)
        started = time.perf_counter()
        while time.perf_counter() - started < 120:
            page = _fetch(url)
            if page and marker in page:
                seconds.append(time.perf_counter() - started)
                break
            time.sleep(0.05)
    return round(statistics.median(seconds), 2) if len(seconds) == edits else float("nan")


def _fetch(url: str) -> str | None:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except OSError:
        return None


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve_folder(folder: Path) -> http.server.ThreadingHTTPServer:
    """A static file server for `folder` on a free loopback port, running in a thread."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


FIRST_RESULT_CLOCK = """
const watch = () => {
  const link = document.querySelector(".md-search-result__item a");
  if (link && link.getBoundingClientRect().height > 0) window.__firstResultAt = Date.now();
  else requestAnimationFrame(watch);
};
requestAnimationFrame(watch);
"""


def search_figures(repo: Path) -> dict:
    """In Chromium: seconds from the page's load event to the first frame showing a search result
    for an exact error string (typed right after the load), and where the entry that holds the
    string ranks among the results shown."""
    if not Path(CHROMIUM).exists():
        return {}
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    server = serve_folder(repo / "site")
    victim = sorted((repo / "entries").glob("*/*.yaml"))[-1].stem
    query = f"{'SyntheticFailure' + victim.rsplit('-', 1)[1]}: the job stopped"
    figures: dict = {"first_search_s": float("nan"), "search_rank": None}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            # The page notes the first frame in which a result is on screen: Playwright's own
            # wait notices it up to 0.4 s later while the page is busy.
            page.add_init_script(FIRST_RESULT_CLOCK)
            page.goto(f"http://127.0.0.1:{server.server_port}/", wait_until="load")
            page.fill("input.md-search__input", query)
            page.press("input.md-search__input", "End")  # the theme reads the box on key events
            try:
                page.wait_for_selector(".md-search-result__item a", timeout=180_000)
                page.wait_for_function("window.__firstResultAt !== undefined")
                shown = page.evaluate("window.__firstResultAt - performance.timing.loadEventEnd")
                figures["first_search_s"] = round(shown / 1000, 2)
                links = [link.get_attribute("href") or "" for link in page.locator(".md-search-result__item > a").all()]
                ranks = [index for index, href in enumerate(links, 1) if f"/{victim}/" in href]
                figures["search_rank"] = ranks[0] if ranks else None
            except PlaywrightTimeout:
                pass  # no result within 3 minutes: reported as not measured
            browser.close()
    finally:
        server.shutdown()
    return figures


def diagnose_figures() -> dict:
    figures = run_diagnose()
    figures["chromium_seconds"], figures["chromium_first_seconds"] = chromium_engine_seconds()
    return figures


def chromium_engine_seconds() -> tuple[float, float] | tuple[None, None]:
    """The diagnose engine in Chromium itself (not Node) on the 10 MB benchmark log: the best of
    5 runs, and the first run in a fresh page (what the first paste costs, compiler warm-up included)."""
    if not Path(CHROMIUM).exists():
        return None, None
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    engine = (ROOT / "site_overrides" / "assets" / "diagnose" / "engine.js").read_text(encoding="utf-8")
    (OUT / "engine.js").write_text(engine, encoding="utf-8")
    (OUT / "bench.html").write_text("<!doctype html><script src='engine.js'></script>", encoding="utf-8")
    server = serve_folder(OUT)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_port}/bench.html")
            seconds = page.evaluate(
                """async () => {
                  const fingerprints = await (await fetch('fingerprints-bench.json')).json();
                  const bytes = new Uint8Array(await (await fetch('bench-10mb.log')).arrayBuffer());
                  const times = [];
                  for (let i = 0; i < 5; i++) {
                    const t = performance.now();
                    TrainwreckEngine.diagnoseBytes(bytes, fingerprints);
                    times.push((performance.now() - t) / 1000);
                  }
                  return times;
                }"""
            )
            browser.close()
        return round(min(seconds), 3), round(seconds[0], 3)
    finally:
        server.shutdown()


def plot_svg(rows: list[dict]) -> str:
    """Build time against entry count, log-log, as an inline SVG (no plotting library needed)."""
    import math

    width, height, pad = 560, 300, 50
    points = [(row["entries"], row["generator_cold_s"], row.get("mkdocs_build_s")) for row in rows]
    xs = [math.log10(n) for n, _, _ in points]
    ys = [math.log10(max(v, 0.01)) for _, a, b in points for v in (a, b) if v]
    x0, x1 = min(xs) - 0.1, max(xs) + 0.1
    y0, y1 = min(ys) - 0.2, max(ys) + 0.2

    def sx(n: float) -> float:
        return pad + (math.log10(n) - x0) / (x1 - x0) * (width - 2 * pad)

    def sy(v: float) -> float:
        return height - pad - (math.log10(max(v, 0.01)) - y0) / (y1 - y0) * (height - 2 * pad)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="Build time against entry count">'
    ]
    parts.append(f'<rect x="0" y="0" width="{width}" height="{height}" fill="white" stroke="#ccc"/>')
    for index, (label, colour) in enumerate([("trainwreck build (cold)", "#e65100"), ("mkdocs build", "#1565c0")]):
        line = [(sx(n), sy(values[index])) for n, *values in points if values[index]]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in line)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for x, y in line:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>')
        parts.append(f'<text x="{pad + 10}" y="{20 + 16 * index}" font-size="12" fill="{colour}">{label}</text>')
    for n, *_ in points:
        parts.append(f'<text x="{sx(n):.1f}" y="{height - pad + 18}" font-size="11" text-anchor="middle">{n:,}</text>')
    for seconds in (0.1, 1, 10, 100, 1000):
        if y0 <= math.log10(seconds) <= y1:
            parts.append(
                f'<text x="{pad - 6}" y="{sy(seconds) + 4:.1f}" font-size="11" text-anchor="end">{seconds:g} s</text>'
            )
            parts.append(
                f'<line x1="{pad}" x2="{width - pad}" y1="{sy(seconds):.1f}" y2="{sy(seconds):.1f}" stroke="#eee"/>'
            )
    parts.append(
        f'<text x="{width / 2}" y="{height - 8}" font-size="11" text-anchor="middle">entries (log scale)</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def seconds_or_not_measured(value: float | None) -> str:
    return "not measured" if value is None else f"{value} s"


def verdict(value: float | None, target: float, lower_is_better: bool = True) -> str:
    if value is None or value != value:
        return "not measured"
    ok = value <= target if lower_is_better else value >= target
    return "meets" if ok else "**misses**"


def write_page(results: dict, remeasured: bool = False) -> None:
    rows = results["scale"]
    by_n = {row["entries"]: row for row in rows}
    lines = [
        "---",
        "title: Benchmarks",
        "---",
        "",
        "# Benchmarks",
        "",
        f"Measured by `make bench` on {results['machine']} ({results['date']}). Each figure is shown next to its target.",
        "",
        *(
            [
                f"On this machine a fixed pure-Python loop of {REFERENCE_LOOP_ADDITIONS // 1_000_000} million additions "
                f"took {results['reference_loop_s']} s (best of {REFERENCE_LOOP_RUNS}): compare timings from different "
                "runs only next to this figure.",
                "",
            ]
            if "reference_loop_s" in results
            else []
        ),
        *(
            [
                "Diagnose, no-op rerun, search and edit-to-preview were measured again after the last changes "
                "(`benchmarks/run.py --reuse`); the other rows come from the last full run.",
                "",
            ]
            if remeasured
            else []
        ),
        "## Diagnose",
        "",
    ]
    d = results.get("diagnose")
    if d:
        lines += [
            "| Measure | Figure | Target | |",
            "|---|---|---|---|",
            f"| {d['log_mb']} MB, {d['ranks']}-rank log, {d['fingerprints']} fingerprints, CPython | {d['python_seconds']} s | < 1 s | {verdict(d['python_seconds'], 1.0)} |",
            f"| Same log, browser engine in Chromium, best of 5 | {d.get('chromium_seconds')} s | < 0.3 s | {verdict(d.get('chromium_seconds'), 0.3)} |",
            f"| Same, first run in a fresh page (compiler warm-up included) | {seconds_or_not_measured(d.get('chromium_first_seconds'))} | | |",
            f"| Same log, browser engine in Node (V8) | {d['browser_engine_seconds']} s | < 0.3 s | {verdict(d['browser_engine_seconds'], 0.3)} |",
            f"| 100 MB log through stdin, peak memory, first run (checks every entry) | {d['stdin_100mb_peak_rss_mb']} MB | < 200 MB | {verdict(d['stdin_100mb_peak_rss_mb'], 200)} |",
            f"| Same, next runs (fingerprint set saved in build/) | {d.get('stdin_100mb_saved_set_peak_rss_mb')} MB | < 200 MB | {verdict(d.get('stdin_100mb_saved_set_peak_rss_mb'), 200)} |",
            *(
                [
                    f"| First run, the process and its worker processes together (sum of proportional set sizes, sampled every 5 ms) | {d['stdin_100mb_tree_peak_mb']} MB | < 200 MB | {verdict(d['stdin_100mb_tree_peak_mb'], 200)} |"
                ]
                if "stdin_100mb_tree_peak_mb" in d
                else []
            ),
            "",
        ]
    lines += [
        "## Build at scale",
        "",
        plot_svg(rows),
        "",
        "| Measure | " + " | ".join(f"{row['entries']:,}" for row in rows) + " | Target |",
        "|---|" + "---|" * len(rows) + "---|",
    ]
    measures = [
        ("Generator, cold: no output, no caches (s)", "generator_cold_s", "≤ 3 s at 10,000"),
        ("Generator, no output, caches of an earlier build (s)", "generator_cached_s", ""),
        ("Generator, no-op rerun (s)", "generator_noop_s", "≤ 0.5 s"),
        ("Files written by the no-op rerun", "generator_noop_written", "0"),
        ("Generator, one entry's title edited (s)", "generator_edit_s", ""),
        ("Files written after a summary edit", "generator_summary_edit_written", "only pages that show it"),
        ("Files written after a title edit", "generator_edit_written", "also the listing pages whose rows shift"),
        ("mkdocs build (s)", "mkdocs_build_s", "≤ 90 s at 10,000"),
        ("mkdocs build peak memory (MiB)", "mkdocs_peak_mb", ""),
        ("Site size (MiB; 1 MiB = 1.049 MB)", "site_mb", "≤ 300 MB"),
        ("Search index raw (MiB)", "search_index_mb", "≤ ~10 MB at 10,000"),
        ("Search index gzip (MiB)", "search_index_gzip_mb", ""),
        ("Search gzip per entry (KiB)", "search_gzip_kb_per_entry", "≤ 1 KB"),
        ("Largest entry page (KiB)", "largest_entry_page_kb", "≤ 80 KB"),
        ("Largest listing page: all entries, a category, tag, system or severity (KiB)", "largest_listing_page_kb", ""),
        ("First search result in Chromium (s)", "first_search_s", "≤ 1 s at 10,000"),
        ("Rank of the entry holding the pasted error", "search_rank", "1"),
        ("Edit-to-preview, mkdocs serve --dirty, summary edit, median of 5 (s)", "serve_edit_s", "≤ 1 s at 1,000"),
        ("Edit-to-preview, title edit (listings change too), median of 5 (s)", "serve_title_edit_s", "≤ 1 s at 1,000"),
    ]
    for label, key, target in measures:
        cells = [str(row.get(key, "–")) if row.get(key) is not None else "–" for row in rows]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {target} |")
    if 1000 in by_n and 10000 in by_n:
        ratio = by_n[10000]["mkdocs_build_s"] / by_n[1000]["mkdocs_build_s"]
        generation = by_n[10000]["generator_check_s"] / by_n[10000]["mkdocs_build_s"]
        cold = by_n[10000].get("generator_check_cold_s", float("nan")) / by_n[10000]["mkdocs_build_s"]
        lines += [
            "",
            f"Linearity: mkdocs time(10,000) / time(1,000) = {ratio:.1f} (target ≤ 11: {verdict(ratio, 11)}). "
            f"Checking and rendering the pages in memory (`trainwreck build --check`) takes {generation:.1%} of "
            f"the mkdocs build time of the same pages with the entry and page caches of an earlier build "
            f"(target ≤ 10%: {verdict(generation, 0.10)}), and {cold:.1%} without them, as in a fresh clone "
            f"({verdict(cold, 0.10)}).",
        ]
    lines += floor_lines(results.get("floors"))
    PAGE.write_text(with_current_notes("\n".join(lines)), encoding="utf-8")


def floor_lines(floors: dict | None) -> list[str]:
    """The floors table (`benchmarks/floors.py`): what the design alone costs at 10,000 entries."""
    if not floors:
        return []
    parts = floors["bytes_mb"]
    return [
        "",
        "## Floors the design sets",
        "",
        f"What DESIGN.md alone requires, whatever the code: measured on this checkout's {floors['measured_on']:,} "
        "entries and scaled to 10,000 (`benchmarks/floors.py`, which says what each floor counts).",
        "",
        "| Floor | Figure | Target it sits under | |",
        "|---|---|---|---|",
        f"| Loading every entry file with PyYAML's C safe loader (best of 3), spread over {floors['cores']} cores "
        f"({floors['load_cpu_s']} CPU-s) | {floors['load_floor_s']} s | cold generator ≤ 3 s | "
        f"{floor_verdict(floors['load_floor_s'], 3.0)} |",
        f"| Text and data the site must hold, without markup: page text {parts['page_text']} MB, per-entry "
        f"exports {parts['export']} MB, FAQ {parts['faq']} MB, listing titles {parts['listing_titles']} MB, "
        f"symptoms in the search index {parts['search_symptoms']} MB | {floors['size_floor_mb']} MB | "
        f"site ≤ 300 MB | {floor_verdict(floors['size_floor_mb'], 300)} |",
    ]


def floor_verdict(floor: float, target: float) -> str:
    return "**above the target: no code can meet it under this design**" if floor > target else "under the target"


def with_current_notes(figures: str) -> str:
    """The page: its figures, then the notes as they are now."""
    notes = NOTES.read_text(encoding="utf-8").rstrip() if NOTES.exists() else ""
    return f"{figures}\n\n{NOTES_MARKER}\n\n{notes}\n" if notes else f"{figures}\n"


def refresh_notes_on_page() -> None:
    """Put the current notes under the figures already on the page. results.json stays on the
    machine that measured them (benchmarks/out/ is not committed), so a clone that edits the notes
    keeps the published figures and replaces only what follows the marker."""
    figures, marker, _ = PAGE.read_text(encoding="utf-8").partition(NOTES_MARKER)
    if not marker:
        raise SystemExit(f"{PAGE} has no {NOTES_MARKER!r} line; rerun the benchmarks")
    PAGE.write_text(with_current_notes(figures.rstrip()), encoding="utf-8")


def remeasure() -> None:
    """Refresh the figures that do not need a new corpus (diagnose, no-op rerun, search, serve)
    on the corpora and results of the last full run, with this checkout's site files, then
    rewrite the page."""
    results = json.loads((OUT / "results.json").read_text(encoding="utf-8"))
    results["diagnose"] = diagnose_figures()
    build = [PYTHON, "-m", "generator", "--root"]
    for row in results["scale"]:
        repo = OUT / f"corpus-{row['entries']}"
        install_site_files(repo)
        timed([*build, str(repo), "build"])
        row["generator_noop_s"], err = timed([*build, str(repo), "build"])
        row["generator_noop_s"] = round(row["generator_noop_s"], 2)
        row["generator_noop_written"] = int(re.search(r"(\d+) written", err).group(1))
        row.update(search_figures(repo))
        row.update(serve_figures(repo))
        print(json.dumps(row), flush=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    write_page(results, remeasured=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--skip-diagnose", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="measure search and serve on corpora already built")
    parser.add_argument(
        "--page-only", action="store_true", help="rewrite the page from the last results (without them: only its notes)"
    )
    parser.add_argument(
        "--diagnose-only", action="store_true", help="remeasure only the diagnose figures, then rewrite the page"
    )
    parser.add_argument(
        "--floors-only",
        action="store_true",
        help="remeasure only the floors (benchmarks/floors.py), then rewrite the page",
    )
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.page_only and not (OUT / "results.json").exists():
        refresh_notes_on_page()
        return
    if args.page_only or args.diagnose_only or args.floors_only:
        results = json.loads((OUT / "results.json").read_text(encoding="utf-8"))
        if args.diagnose_only:
            results["diagnose"] = diagnose_figures()
        if args.floors_only:
            results["floors"] = floor_figures(ROOT)
        if args.diagnose_only or args.floors_only:
            (OUT / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        write_page(results)
        return
    if args.reuse:
        remeasure()
        return
    results: dict = {
        "machine": f"{os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"
    }
    results["date"] = time.strftime("%Y-%m-%d")
    results["reference_loop_s"] = reference_loop_seconds()
    if not args.skip_diagnose:
        results["diagnose"] = diagnose_figures()
        print(json.dumps(results["diagnose"]), flush=True)
    results["floors"] = floor_figures(ROOT)
    print(json.dumps(results["floors"]), flush=True)
    results["scale"] = []
    for size in [int(part) for part in args.sizes.split(",")]:
        repo = make_corpus(size, OUT / f"corpus-{size}")
        row = {"entries": size, **generator_figures(repo), **mkdocs_figures(repo)}
        row.update(search_figures(repo))
        row.update(serve_figures(repo))
        results["scale"].append(row)
        print(json.dumps(row), flush=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    write_page(results)
    print(f"wrote {PAGE.relative_to(ROOT)} and {(OUT / 'results.json').relative_to(ROOT)}")


if __name__ == "__main__":
    main()
