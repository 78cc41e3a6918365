"""In real Chromium (Debian's package, driven by Playwright): diagnose, hostile logs, search, no third-party requests."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import threading
import urllib.request
from pathlib import Path

import pytest
from conftest import make_repo
from test_site import mkdocs_build

from generator.build import build
from generator.report import CAUSE_MISSING

pytestmark = pytest.mark.browser
CHROMIUM = os.environ.get("TRAINWRECK_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
CASES = Path(__file__).parent / "diagnose" / "cases"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    settings = make_repo(tmp_path_factory.mktemp("browser") / "repo")
    build(settings)
    result = mkdocs_build(settings)
    assert result.returncode == 0, result.stderr
    handler = functools.partial(QuietHandler, directory=str(settings.site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.requests = []
    page.dialogs = []
    page.on("request", lambda request: page.requests.append(request.url))
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    yield page
    context.close()


def foreign_requests(page, site_url) -> list[str]:
    """Requests that are neither same-origin static files nor the page's own Blob (the worker)."""
    return [url for url in page.requests if not url.startswith((site_url, "blob:" + site_url.rstrip("/")))]


def diagnose(page, site_url, text):
    page.goto(site_url + "diagnose/")
    page.wait_for_selector("#diagnose-status:has-text('entries loaded')")
    page.fill("#diagnose-log", text)
    page.click("#diagnose-run")
    page.wait_for_selector("#diagnose-json", state="attached")


def test_pasted_log_finds_the_entry_with_no_foreign_requests(page, site_url):
    log = (CASES / "oom_then_watchdog.log").read_text(encoding="utf-8")
    diagnose(page, site_url, log)
    matches = page.locator(".diagnose-match")
    assert matches.first.get_attribute("data-entry") == "cuda-oom"
    assert "CUDA out of memory during training" in matches.first.inner_text()
    # Both of cuda-oom's fingerprints match line 2: one list item quotes it, with both roles.
    assert matches.first.locator(".diagnose-evidence li").all_inner_texts() == [
        "line 2 torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity"
        " of 79.15 GiB root · rank 3; context · rank 3"
    ]
    assert matches.first.locator(".diagnose-fix").inner_text() == (
        "Fix: Lower the per-GPU batch size and use gradient accumulation to keep the effective batch."
    )
    # The watchdog timeout is explained by the OOM, whose fix is the one to apply.
    assert page.locator(".diagnose-match.diagnose-symptom .diagnose-fix").count() == 0
    assert "First failing rank: 3" in page.inner_text("#diagnose-results")
    assert page.locator(".diagnose-match.diagnose-symptom").get_attribute("data-entry") == "nccl-watchdog-timeout"
    expected = (CASES / "oom_then_watchdog.json").read_text(encoding="utf-8").rstrip("\n")
    assert page.text_content("#diagnose-json") == expected
    lines = json.loads(expected)["lines"]
    assert re.fullmatch(rf"Read {lines} lines in [0-9]+ ms, locally\.", page.inner_text("#diagnose-status"))
    assert foreign_requests(page, site_url) == []
    assert any(url.endswith("api/fingerprints.json") for url in page.requests)


def test_a_one_line_log_is_counted_as_one_line(page, site_url):
    diagnose(page, site_url, "RuntimeError: CUDA error: an illegal memory access was encountered")
    assert re.fullmatch(r"Read 1 line in [0-9]+ ms, locally\.", page.inner_text("#diagnose-status"))


def test_the_fix_is_shown_with_its_code_spans(page, site_url):
    diagnose(page, site_url, "Step 10 finished\nRuntimeError: CUDA error: an illegal memory access was encountered\n")
    fix = page.locator(".diagnose-match[data-entry='cuda-illegal-memory-access'] .diagnose-fix")
    assert fix.inner_text() == (
        "Fix: Find the faulty kernel with CUDA_LAUNCH_BLOCKING=1 and compute-sanitizer, then fix its indices."
    )
    assert fix.locator("code").all_inner_texts() == ["CUDA_LAUNCH_BLOCKING=1"]


def test_hostile_log_renders_inert(page, site_url):
    log = '<script>alert("x")</script>\nRuntimeError: CUDA error: an illegal memory access was encountered <img src=x onerror=alert(1)>\nStep 10 finished\n'
    diagnose(page, site_url, log)
    results = page.locator("#diagnose-results")
    assert results.locator("img, script, iframe").count() == 0
    assert "<img src=x onerror=alert(1)>" in results.inner_text()
    assert page.dialogs == []


def test_no_match_offers_a_report_link(page, site_url):
    diagnose(page, site_url, "step 1\nValueError: a failure nobody has seen\n")
    assert "No confident match" in page.inner_text("#diagnose-results")
    link = page.locator("#diagnose-report").get_attribute("href")
    assert link.startswith(
        "https://github.com/trainwreck-ml/trainwreck/issues/new?template=new-failure.yml&title=New+failure"
    )
    assert foreign_requests(page, site_url) == []


def test_unexplained_errors_show_under_a_low_priority_match_only(page, site_url):
    watchdog = (
        "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)\n"
        "Traceback (most recent call last):\nValueError: a crash no entry knows\n"
    )
    diagnose(page, site_url, watchdog)
    assert page.locator(".diagnose-match").first.get_attribute("data-entry") == "nccl-watchdog-timeout"
    unmatched = page.locator(".diagnose-unmatched")
    assert unmatched.locator("li").all_inner_texts() == [
        "line 2 Traceback (most recent call last):",
        "line 3 ValueError: a crash no entry knows",
    ]
    assert "title=New+failure%3A+ValueError" in page.locator("#diagnose-report").get_attribute("href")
    diagnose(page, site_url, "Traceback (most recent call last):\n" + watchdog.splitlines()[0])
    assert page.locator(".diagnose-match").first.get_attribute("data-entry") == "nccl-watchdog-timeout"
    assert page.locator(".diagnose-unmatched").count() == 0
    diagnose(
        page, site_url, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\nValueError: later\n"
    )
    assert page.locator(".diagnose-match").first.get_attribute("data-entry") == "cuda-oom"
    assert page.locator(".diagnose-unmatched").count() == 0


def test_a_symptom_without_its_cause_line_is_named_as_a_candidate(page, site_url):
    """As in test_diagnose.py: with `match: any`, the symptom line of a pasted tail alone."""
    with urllib.request.urlopen(site_url + "api/fingerprints.json") as response:
        fingerprints = json.load(response)
    illegal = next(entry for entry in fingerprints["entries"] if entry["id"] == "cuda-illegal-memory-access")
    illegal["match"] = "any"
    page.route("**/api/fingerprints.json", lambda route: route.fulfill(json=fingerprints))
    diagnose(page, site_url, "Step 10 finished\n")
    results = page.inner_text("#diagnose-results")
    assert "No confident match" in results
    candidate = page.locator(".diagnose-match")
    assert candidate.count() == 1
    assert candidate.get_attribute("data-entry") == "cuda-illegal-memory-access"
    assert "diagnose-symptom" in candidate.get_attribute("class")
    assert f"A symptom; {CAUSE_MISSING}; specificity" in candidate.inner_text()
    assert candidate.locator(".diagnose-evidence li").all_inner_texts() == ["line 1 Step 10 finished symptom"]


def test_works_offline_once_loaded(page, site_url):
    page.goto(site_url + "diagnose/")
    page.wait_for_selector("#diagnose-status:has-text('entries loaded')")
    page.context.set_offline(True)
    page.fill("#diagnose-log", "RuntimeError: CUDA error: unspecified launch failure\n")
    page.click("#diagnose-run")
    page.wait_for_selector("#diagnose-json", state="attached")
    assert page.locator(".diagnose-match").first.get_attribute("data-entry") == "cuda-error-generic"


@pytest.mark.parametrize(
    ("query", "entry"),
    [
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "cuda-oom"),
        ("RuntimeError: CUDA error: an illegal memory access was encountered", "cuda-illegal-memory-access"),
        ("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)", "nccl-watchdog-timeout"),
        # Query syntax of the theme's former engine (Lunr): a colon made the word before it a
        # field name, and a leading "-" excluded the word. Both are plain words here.
        ("torch.OutOfMemoryError:", "cuda-oom"),
        ("-caching -allocator", "cuda-oom"),
        ("gradient accumulation", "cuda-oom"),
        # Words of a second symptom are searched but not shown (the document's `words`).
        ("other ranks stop minutes later", "cuda-oom"),
    ],
)
def test_exact_error_string_in_search_finds_the_entry(page, site_url, query, entry):
    page.goto(site_url)
    page.fill("input.md-search__input", query)
    page.press("input.md-search__input", "End")  # the theme reads the box on key events
    page.wait_for_selector(".md-search-result__item a")
    first = page.locator(".md-search-result__item a").first.get_attribute("href")
    assert f"entries/{entry}/" in first


def test_home_links_to_diagnose(page, site_url):
    page.goto(site_url)
    assert page.locator("a[href='diagnose/']").count() >= 1


@pytest.mark.parametrize("width", [400, 1280])
def test_entry_title_is_smaller_than_the_theme_default(browser, site_url, width):
    """Titles carry the error and its cause; at the theme's 2em they filled a phone's first screen."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        page.goto(site_url + "entries/cuda-oom/")
        title, text = (
            page.eval_on_selector(selector, "e => parseFloat(getComputedStyle(e).fontSize)")
            for selector in (".md-typeset h1", ".md-typeset p")
        )
    finally:
        context.close()
    assert title < 1.8 * text, (title, text)
