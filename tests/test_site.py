"""The whole path: entries → pages → `mkdocs build --strict` → a static site with exports and search."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import fixture_text, write_entry

from generator.build import build

pytestmark = pytest.mark.slow


def mkdocs_build(settings) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(settings.root / "mkdocs.yml")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.fixture
def site(repo):
    build(repo)
    result = mkdocs_build(repo)
    assert result.returncode == 0, result.stderr
    return repo.site_dir


def test_strict_build_produces_every_page_kind(site):
    for path in [
        "index.html",
        "all/index.html",
        "diagnose/index.html",
        "entries/cuda-oom/index.html",
        "entries/nccl-timeout/index.html",
        "categories/memory/index.html",
        "tags/oom/index.html",
        "systems/pytorch/index.html",
        "severity/high/index.html",
        "api/entries.json",
        "api/entries/cuda-oom.json",
        "api/entries.csv",
        "api/fingerprints.json",
        "api/entry.schema.json",
    ]:
        assert (site / path).is_file(), path


def broken_links(site: Path) -> tuple[list[str], int]:
    """Every link in the built site that leads to no file, and how many links were checked.

    Listing tables are raw HTML with final URLs, which MkDocs's --strict does not check, and
    they pass MkDocs as placeholders (generator/raw_html.py)."""
    broken, checked = [], 0
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        if "TRAINWRECKRAWHTML" in text:
            broken.append(f"{page.relative_to(site)}: a raw HTML block was not put back")
        for target in re.findall(r'href="([^"]+)"', text):
            if re.match(r"[a-z]+:|//|#", target):
                continue
            path = target.split("#")[0].split("?")[0]
            # 404.html links from the site's root path (/trainwreck/ from site_url)
            folder = site if path.startswith("/") else page.parent
            resolved = (folder / re.sub(r"^/[^/]+/", "", path)).resolve()
            if not (resolved.is_file() or (resolved / "index.html").is_file()):
                broken.append(f"{page.relative_to(site)} → {target}")
            checked += 1
    return broken, checked


def test_every_link_in_the_built_site_resolves(site):
    broken, checked = broken_links(site)
    assert broken == []
    pages = list(site.rglob("*.html"))
    listed = (site / "all" / "index.html").read_text(encoding="utf-8")
    assert '<td><a href="../entries/cuda-oom/">' in listed and '<a href="../tags/oom/">oom</a>' in listed
    assert '<a href="../../entries/cuda-oom/">' in (site / "tags" / "oom" / "index.html").read_text(encoding="utf-8")
    assert checked > 20 * len(pages) / 2


def test_entries_stay_out_of_the_nav(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    entry = (site / "entries/cuda-oom/index.html").read_text(encoding="utf-8")
    assert 'href="entries/cuda-oom/"' in home  # linked from the page body
    nav = entry.split('<nav class="md-nav md-nav--primary"', 1)[1].split("</nav>", 1)[0]
    assert "cuda-oom" not in nav and "nccl-watchdog-timeout" not in nav


def test_no_third_party_requests(site):
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, page
        for tag in ("<script src=", '<link rel="stylesheet" href='):
            for chunk in text.split(tag)[1:]:
                url = chunk.split(">", 1)[0].strip("\"'")
                assert not url.startswith(("http:", "https:", "//")), (page, url)


def test_entry_page_has_faq_json_ld_and_edit_link(site):
    html = (site / "entries/cuda-oom/index.html").read_text(encoding="utf-8")
    data = json.loads(html.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0])
    assert data["@type"] == "FAQPage"
    assert data["mainEntity"][0]["name"] == "What causes this failure?"
    assert "https://github.com/trainwreck-ml/trainwreck/edit/main/entries/memory/cuda-oom.yaml" in html
    assert 'id="faq-cause"' in html and 'class="tabbed-set' in html


def test_alias_redirects_to_the_entry(site):
    html = (site / "entries/nccl-timeout/index.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=../nccl-watchdog-timeout/">' in html
    assert (site / "entries/nccl-watchdog-timeout/index.html").is_file()


def test_exports(site):
    entries = json.loads((site / "api/entries.json").read_text(encoding="utf-8"))
    assert entries["count"] == 4
    first = entries["entries"][0]
    assert first == {
        "category": "cuda-runtime",
        "created": "2026-11-03",
        "id": "cuda-error-generic",
        "severity": "medium",
        "status": "active",
        "systems": ["cuda"],
        "tags": ["device-assert"],
        "title": "A CUDA error was raised by a kernel",
        "url": "entries/cuda-error-generic/",
    }
    fingerprints = json.loads((site / "api/fingerprints.json").read_text(encoding="utf-8"))
    assert fingerprints["schema_version"] == 4 and len(fingerprints["hash"]) == 16
    by_id = {entry["id"]: entry for entry in fingerprints["entries"]}
    assert by_id["cuda-illegal-memory-access"]["fix"] == (
        "Find the faulty kernel with `CUDA_LAUNCH_BLOCKING=1` and compute-sanitizer, then fix its indices."
    )


def test_search_index_splits_identifiers(site):
    index = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))
    separator = index["config"]["separator"]

    tokens = set(re.split(separator, "torch.cuda.OutOfMemoryError NCCL_TIMEOUT sm_120"))
    assert {"torch", "cuda", "OutOfMemoryError", "NCCL", "TIMEOUT", "sm", "120"} <= tokens


def test_two_builds_are_byte_identical(repo, tmp_path):
    build(repo)
    first = {p.relative_to(repo.generated_dir): p.read_bytes() for p in repo.generated_dir.rglob("*") if p.is_file()}
    (repo.generated_dir / "index.md").write_text("tampered")
    build(repo)
    second = {p.relative_to(repo.generated_dir): p.read_bytes() for p in repo.generated_dir.rglob("*") if p.is_file()}
    assert first == second


def test_invalid_entry_leaves_previous_output_untouched(repo):
    build(repo)
    before = {p: p.read_bytes() for p in repo.generated_dir.rglob("*") if p.is_file()}
    write_entry(repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("severity: high", "severity: x"))
    result = subprocess.run(
        [sys.executable, "-m", "generator", "--root", str(repo.root), "build"], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "entries/memory/cuda-oom.yaml:5:11: severity: unknown severities 'x'" in result.stderr
    assert "Traceback" not in result.stderr
    after = {p: p.read_bytes() for p in repo.generated_dir.rglob("*") if p.is_file()}
    assert before == after


def test_mkdocs_config_has_no_network_features():
    config = yaml.safe_load(Path("mkdocs.yml").read_text(encoding="utf-8"))
    assert config["theme"]["font"] is False
    assert [next(iter(p)) if isinstance(p, dict) else p for p in config["plugins"]] == ["search"]
    assert "pymdownx.snippets" not in str(config["markdown_extensions"])


def test_search_index_stays_small_and_keeps_error_strings(site):
    import gzip

    pages = json.loads((site / "search" / "search_index.json").read_bytes())["docs"]
    entries_raw = (site / "search" / "entries.json").read_bytes()
    entries = json.loads(entries_raw)["docs"]
    # Entry pages reach search only through entries.json, one document each.
    assert not any(doc["location"].startswith(("entries/", "tags/", "systems/", "severity/", "all/")) for doc in pages)
    assert [doc["location"] for doc in entries] == [
        f"entries/{name}/"
        for name in ["cuda-error-generic", "cuda-illegal-memory-access", "cuda-oom", "nccl-watchdog-timeout"]
    ]
    oom = next(doc for doc in entries if doc["location"] == "entries/cuda-oom/")
    assert oom["title"] == "CUDA out of memory during training"
    assert "<code>torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.</code>" in oom["text"]
    assert "gradient accumulation" in oom["text"]
    assert len(gzip.compress(entries_raw)) / len(entries) < 1024  # bytes per entry, gzip-transferred


def test_search_box_talks_to_the_trainwreck_worker(site):
    """The theme's own worker file name is pinned with the theme; a new theme version changes it."""
    home = (site / "index.html").read_text(encoding="utf-8")
    config = re.search(r'<script id="__config" type="application/json">(.*?)</script>', home, re.S).group(1)
    assert json.loads(config)["search"] == "assets/search/worker.js"
    assert (site / "assets/search/worker.js").is_file()


def test_entry_images_never_load(repo):
    """An entry is a stranger's text: Markdown image syntax must not make readers fetch a URL."""
    text = fixture_text("memory", "cuda-oom").replace(
        "raises an out-of-memory error.", "raises an out-of-memory error. ![pixel](https://tracker.example/p.png)"
    )
    write_entry(repo, "memory", "cuda-oom", text)
    build(repo)
    result = mkdocs_build(repo)
    assert result.returncode == 0, result.stderr
    page = (repo.site_dir / "entries/cuda-oom/index.html").read_text(encoding="utf-8")
    assert "<img" not in page.split('<article class="md-content__inner')[1]
    assert "tracker.example" in page  # kept as a plain link, not dropped silently


def test_title_summary_and_faq_cannot_break_out_of_the_page_head(repo):
    """The theme prints the front matter title and description without escaping them, and the
    FAQ answers go into a <script> element as JSON-LD."""
    text = fixture_text("memory", "cuda-oom")
    text = text.replace("than the device has.", "than the device has </script><script>alert(3)</script>.")
    text = text.replace(
        "title: CUDA out of memory during training", 'title: "</title><script>alert(1)</script> <b>x</b>"'
    )
    text = text.replace("raises an out-of-memory error.", 'raises an "out-of-memory" error."><script>alert(2)</script>')
    write_entry(repo, "memory", "cuda-oom", text)
    build(repo)
    result = mkdocs_build(repo)
    assert result.returncode == 0, result.stderr
    page = (repo.site_dir / "entries/cuda-oom/index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<b>x</b>" not in page
    jsonld = json.loads(page.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0])
    assert jsonld["mainEntity"][0]["acceptedAnswer"]["text"].endswith("</script><script>alert(3)</script>.")
    assert "<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;x&lt;/b&gt; - " in page
    assert (
        'content="The caching allocator cannot find a free block for a new tensor and raises an &quot;out-of-memory&quot; error.&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"'
        in page
    )
