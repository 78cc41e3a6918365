"""Generated pages: the golden entry page, front matter, FAQ composition, links that resolve."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from conftest import fixture_text, write_entry

import generator.pages as page_module
from generator.build import build, load_catalog, site_info
from generator.faq import a_an, faq_for
from generator.pages import _pager, make_environment, render_pages

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_PAGES = ("entries/cuda-oom.md", "categories/memory.md")


def render_fixture_pages(settings) -> dict[str, str]:
    catalog = load_catalog(settings)
    site = site_info(settings)
    pages = render_pages(catalog, make_environment(settings.templates_dir), site)
    return {page.path: page.content for page in pages}


@pytest.mark.parametrize("path", GOLDEN_PAGES)
def test_golden_pages(repo, path):
    expected = (GOLDEN / path.replace("/", "__")).read_text(encoding="utf-8")
    assert render_fixture_pages(repo)[path] == expected, "run `make golden` and review the diff"


def test_system_pages_name_the_pypi_package(repo):
    pages = render_fixture_pages(repo)
    assert "Package on PyPI: `torch`." in pages["systems/pytorch.md"]
    assert "Package on PyPI" not in pages["systems/cuda.md"]


def test_entry_page_sections_in_order(repo):
    page = render_fixture_pages(repo)["entries/cuda-oom.md"]
    headings = re.findall(r"^## (.+?)(?: \{ data-search-exclude \})?$", page, re.MULTILINE)
    assert headings == [
        "What you'll observe",
        "Symptoms",
        "Why it happens",
        "Affected systems and versions",
        "How to confirm",
        "The fix",
        "Prevention",
        "FAQ",
        "References",
        "Related entries",
        "Diagnose your own log",
    ]
    assert page.index('!!! abstract "Quick answer"') < page.index("## What you'll observe")
    assert (
        "[Edit this entry](https://github.com/trainwreck-ml/trainwreck/edit/main/entries/memory/cuda-oom.yaml)" in page
    )
    assert '=== "PyTorch"' in page and '=== "Hugging Face Trainer"' in page


def test_every_front_matter_parses(repo):
    for path, content in render_fixture_pages(repo).items():
        if path.endswith(".md"):
            assert content.startswith("---\n"), path
            meta = yaml.safe_load(content.split("---\n")[1])
            assert isinstance(meta, dict) and meta.get("title"), path


def test_hostile_title_cannot_break_front_matter(repo):
    text = fixture_text("memory", "cuda-oom").replace(
        "title: CUDA out of memory during training", "title: 'x: y --- # <script>alert(1)</script>'"
    )
    write_entry(repo, "memory", "cuda-oom", text)
    page = render_fixture_pages(repo)["entries/cuda-oom.md"]
    meta = yaml.safe_load(page.split("---\n")[1])
    assert meta["title"] == "x: y --- # &lt;script&gt;alert(1)&lt;/script&gt;"  # the theme prints it raw
    assert "<script>" not in page.split("---\n", 2)[2]


def test_description_is_the_summary_as_plain_text_cut_at_a_word(repo):
    summary = (
        "The [caching allocator](https://pytorch.org/docs/stable/notes/cuda.html) raises "
        "`torch.OutOfMemoryError` when **no** free block fits. " + "Lower the batch size, then retry. " * 12
    )
    text = fixture_text("memory", "cuda-oom")
    start = text.index("summary:")
    end = text.index("\n", text.index("\n", start) + 1)  # the folded scalar's one line
    write_entry(repo, "memory", "cuda-oom", text[:start] + f"summary: '{summary}'" + text[end:])
    meta = yaml.safe_load(render_fixture_pages(repo)["entries/cuda-oom.md"].split("---\n")[1])
    description = meta["description"]
    assert description.startswith("The caching allocator raises torch.OutOfMemoryError when no free block fits. Lower")
    full = (
        "The caching allocator raises torch.OutOfMemoryError when no free block fits. "
        + "Lower the batch size, then retry. " * 12
    )
    kept = description.removesuffix(" …")
    assert kept != description and full.startswith(kept + " ")
    assert 280 < len(kept) <= 300


def test_faq_asks_only_what_the_entry_answers(repo):
    catalog = load_catalog(repo)
    full = [item.anchor for item in faq_for(catalog.get("cuda-oom"), catalog)]
    assert full == [
        "faq-cause", "faq-fix", "faq-layer", "faq-stages", "faq-confirm", "faq-versions",
        "faq-workaround", "faq-recurrence", "faq-scale", "faq-log", "faq-related",
    ]  # fmt: skip
    sparse = [item.anchor for item in faq_for(catalog.get("nccl-watchdog-timeout"), catalog)]
    assert sparse == ["faq-cause", "faq-fix", "faq-layer", "faq-stages", "faq-confirm", "faq-log"]


def test_faq_quotes_a_real_log_line_for_a_regex_fingerprint(repo):
    text = fixture_text("distributed", "nccl-watchdog-timeout").replace(
        '    - contains: "Watchdog caught collective operation timeout"\n',
        '    - regex: "Watchdog caught collective operation timeout: WorkNCCL\\\\(SeqNum=[0-9]+"\n'
        '      anchor: "Watchdog caught collective operation timeout: WorkNCCL("\n',
    )
    write_entry(repo, "distributed", "nccl-watchdog-timeout", text)
    catalog = load_catalog(repo)
    answers = {item.anchor: item.plain for item in faq_for(catalog.get("nccl-watchdog-timeout"), catalog)}
    assert answers["faq-log"].startswith(
        "The line [rank1]:[E ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600003 milliseconds before timing out. Paste your log"
    )


def test_faq_answers_come_from_fields(repo):
    catalog = load_catalog(repo)
    answers = {item.anchor: item.plain for item in faq_for(catalog.get("cuda-oom"), catalog)}
    assert answers["faq-layer"] == (
        "It is a configuration problem: the software and hardware work, but are set up in a way that fails. "
        "Trainwreck files it as a memory failure."
    )
    assert answers["faq-stages"] == "Both. It has been seen during training and inference."
    assert answers["faq-fix"].startswith(
        "Lower the per-GPU batch size and use gradient accumulation to keep the effective batch. "
        "Once diagnosed, expect it to take 10-30 minutes."
    )
    assert answers["faq-versions"] == "Versions: PyTorch >=2.0. Hardware: Any CUDA GPU."
    watchdog = {item.anchor: item.plain for item in faq_for(catalog.get("nccl-watchdog-timeout"), catalog)}
    assert watchdog["faq-stages"] == "It shows up during training; no source reports it in inference."
    assert watchdog["faq-layer"].endswith("Trainwreck files it as a distributed training failure.")


def test_faq_says_a_mixed_cause_differs_from_case_to_case(repo):
    catalog = load_catalog(repo)  # the watchdog fixture's layer is "mixed"
    layer = next(item for item in faq_for(catalog.get("nccl-watchdog-timeout"), catalog) if item.anchor == "faq-layer")
    assert layer.answer.startswith("It is not one or the other: case by case the cause is in the code, in how things")
    assert "and the [checklist](#how-to-confirm) tells which. Trainwreck files it as" in layer.answer
    assert layer.plain.endswith(
        "or in the hardware, and the checklist tells which. Trainwreck files it as a distributed training failure."
    )


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("environment failure", "an environment failure"),
        ("memory failure", "a memory failure"),
        ("NCCL error", "an NCCL error"),
        ("GPU failure", "a GPU failure"),
        ("CUDA runtime failure", "a CUDA runtime failure"),
        ("SM mismatch", "an SM mismatch"),
        ("unified memory error", "a unified memory error"),
        ("hour-long hang", "an hour-long hang"),
    ],
)
def test_articles(phrase, expected):
    assert a_an(phrase) == expected


def test_long_listings_are_split_into_pages(repo, monkeypatch):
    monkeypatch.setattr(page_module, "LISTING_PAGE_SIZE", 2)
    pages = render_fixture_pages(repo)
    first, second = pages["all.md"], pages["all/2.md"]
    assert "all/3.md" not in pages
    assert "4 entries, by title; 1 to 2 on this page." in first
    assert "4 entries, by title; 3 to 4 on this page." in second
    assert first.count("Page 1 of 2: **1** [2](all/2.md)\n") == 2  # above and below the table
    assert "Page 2 of 2: [1](../all.md) **2**\n" in second
    assert '"title": "All entries (page 2 of 2)"' in second
    # Row links lead from each page's own URL (all/, all/2/) to the entry pages.
    assert _row_links(first) == ["../entries/cuda-error-generic/", "../entries/cuda-illegal-memory-access/"]
    assert _row_links(second) == ["../../entries/cuda-oom/", "../../entries/nccl-watchdog-timeout/"]
    assert '<a href="../../tags/oom/">oom</a>' in second
    # Three high-severity entries: two on severity/high/, one on severity/high/2/.
    high, high_2 = pages["severity/high.md"], pages["severity/high/2.md"]
    assert _row_links(high) == ["../../entries/cuda-illegal-memory-access/", "../../entries/cuda-oom/"]
    assert _row_links(high_2) == ["../../../entries/nccl-watchdog-timeout/"]
    assert "3 entries, most severe first; 3 on this page." in high_2
    assert '<a href="../../../categories/distributed/">' in high_2
    assert "Page 2 of 2: [1](../high.md) **2**\n" in high_2
    # A listing that fits on one page is as before: no pager, no page folder.
    assert "Page " not in pages["categories/memory.md"] and "categories/memory/2.md" not in pages


def _row_links(page: str) -> list[str]:
    return re.findall(r'<tr><td><a href="([^"]+)"', page)


def test_pager_shows_the_ends_and_the_neighbours_of_the_current_page():
    paths = ["all.md"] + [f"all/{number}.md" for number in range(2, 11)]
    assert _pager(paths, 5) == [
        ("1", "../all.md"),
        ("…", ""),
        ("4", "4.md"),
        ("5", "5.md"),
        ("6", ""),
        ("7", "7.md"),
        ("8", "8.md"),
        ("…", ""),
        ("10", "10.md"),
    ]
    assert [label for label, _ in _pager(paths, 0)] == ["1", "2", "3", "…", "10"]
    assert _pager(paths[:1], 0) == []


@pytest.mark.parametrize("page_size", [page_module.LISTING_PAGE_SIZE, 1])
def test_links_and_backlinks_resolve(repo, monkeypatch, page_size):
    monkeypatch.setattr(page_module, "LISTING_PAGE_SIZE", page_size)
    pages = render_fixture_pages(repo)
    for path, content in pages.items():
        if not path.endswith(".md"):
            continue
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", content):
            resolved = (Path(path).parent / target).as_posix()
            normalised = (
                Path(resolved).resolve().relative_to(Path("/").resolve()).as_posix()
                if resolved.startswith("/")
                else _normalise(resolved)
            )
            assert normalised in pages or normalised in {"diagnose.md", "contributing.md"}, (path, target)
    watchdog = pages["entries/nccl-watchdog-timeout.md"]
    assert "[CUDA out of memory during training](cuda-oom.md) — links here:" in watchdog


def _normalise(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


@pytest.mark.parametrize(
    ("status", "banner"), [("fixed-upstream", '!!! success "Fixed upstream"'), ("obsolete", '!!! warning "Obsolete"')]
)
def test_lifecycle_banner_and_still_listed(repo, status, banner):
    write_entry(
        repo, "memory", "cuda-oom", fixture_text("memory", "cuda-oom").replace("status: active", f"status: {status}")
    )
    pages = render_fixture_pages(repo)
    assert banner in pages["entries/cuda-oom.md"]
    assert 'href="../entries/cuda-oom/"' in pages["all.md"]
    assert 'href="../../entries/cuda-oom/"' in pages["categories/memory.md"]


def test_last_updated_comes_from_git(repo):
    import subprocess

    def git(*args):
        subprocess.run(["git", "-C", str(repo.root), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    env_date = "2026-10-05T12:00:00+00:00"
    subprocess.run(
        ["git", "-C", str(repo.root), "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "x"],
        check=True,
        env={"GIT_COMMITTER_DATE": env_date, "GIT_AUTHOR_DATE": env_date, "PATH": "/usr/bin:/bin"},
    )
    build(repo)
    page = (repo.generated_dir / "entries" / "cuda-oom.md").read_text(encoding="utf-8")
    assert "Added 2026-11-01 · Last updated 2026-10-05" in page
    assert "Credits: Trainwreck fixtures" in page
