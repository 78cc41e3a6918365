"""Plain-text views for the terminal: a diagnosis (`trainwreck diagnose`) and an entry (`trainwreck explain`)."""

from __future__ import annotations

import re
import textwrap
from urllib.parse import urlencode

from generator.catalog import Catalog
from generator.schema import Entry

WIDTH = 100
TRACEBACK_HEADER = "Traceback (most recent call last)"
HERE_DOCUMENT = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
CAUSE_MISSING = "the line that names its cause is not in this log (it is often printed above, or cut off)"


def diagnosis_text(result: dict, site_url: str, new_issue_url: str) -> str:
    lines: list[str] = []
    matches = result["matches"]
    if result["confident"]:
        lines.append(f"{len(matches)} matching {'entry' if len(matches) == 1 else 'entries'}, best first:")
    else:
        lines.append("No confident match." + (" Possible symptoms only:" if matches else ""))
    for number, match in enumerate(matches, 1):
        lines.append("")
        lines.append(f"{number}. {match['title']}")
        lines.append(f"   {site_url}{match['url']}")
        if not match["explained_by"]:
            lines.extend(_fix(match["fix"]))
        lines.append(f"   why: {_why(match)}")
        for group in _by_line(match["evidence"]):
            lines.append(f"   line {group[0]['line']}: {_clip(group[0]['text'])}")
            hits = (f"{item['role']} fingerprint #{item['fingerprint']}{_repeats(item)}" for item in group)
            lines.append("      " + "; ".join(hits))
        if match["more_evidence"]:
            lines.append(f"   … and {match['more_evidence']} more evidence group(s) (see --json)")
    if result["first_failing_rank"] is not None:
        lines.append("")
        lines.append(f"First failing rank: {result['first_failing_rank']}")
    if _shows_unmatched(result):
        lines.extend(_unmatched(result, new_issue_url))
    lines.append("")
    return "\n".join(lines)


def _shows_unmatched(result: dict) -> bool:
    """Whether the report lists the error-looking lines no entry explains: always without a
    confident match, and when the best match is one its writers rank below other failures (a
    negative priority: a wrapper, a consequence, a harmless warning), for the log's real cause may
    be one of those lines; a traceback's header alone is not one. The Diagnose page
    (site_overrides/assets/diagnose/page.js) does the same."""
    if not result["confident"]:
        return True
    informative = any(_names_an_error(item["text"]) for item in result["unmatched_errors"])
    return result["matches"][0]["score"]["priority"] < 0 and informative


def _names_an_error(text: str) -> bool:
    """False for a traceback's header, which says only that an exception follows: under a
    confident match it is no lead of its own, and a report titled with it says nothing."""
    return TRACEBACK_HEADER not in text


def report_url(new_issue_url: str, result: dict) -> str:
    """A 'report a new failure' link prefilled with an unexplained error line (only what the user sees)."""
    first = _headline(result)[:200]
    query = urlencode({"title": f"New failure: {first[:80]}" if first else "New failure", "error": first})
    return f"{new_issue_url}&{query}"


def _headline(result: dict) -> str:
    """The unexplained line a new report is titled with: the first that is not a traceback's
    header, which says only that an exception follows. The Diagnose page picks the same."""
    texts = [item["text"] for item in result["unmatched_errors"]]
    return next((text for text in texts if _names_an_error(text)), texts[0] if texts else "")


def _fix(summary: str) -> list[str]:
    """The entry's one-line fix, so the reader can act without opening the page. A symptom that
    another match explains gets none: the fix of its cause is the one to apply."""
    return _wrap(summary, " " * 8, first="   fix: ")


def _why(match: dict) -> str:
    score = match["score"]
    parts = []
    if match["explained_by"]:
        parts.append(f"a symptom, explained by {', '.join(match['explained_by'])}")
    elif match["role"] == "symptom":
        parts.append(f"a symptom; {CAUSE_MISSING}")
    else:
        parts.append("root cause")
    if score["priority"]:
        parts.append(f"priority {score['priority']}")
    parts.append(f"specificity {score['specificity']}")
    parts.append(f"first seen on line {score['first_line']}")
    parts.append(f"{score['fingerprints_hit']} of {score['fingerprints_total']} fingerprints")
    return "; ".join(parts)


def _by_line(evidence: list[dict]) -> list[list[dict]]:
    """Evidence items grouped by the log line they quote (they come sorted by line): a line
    that several fingerprints matched is shown once, not once per fingerprint."""
    groups: list[list[dict]] = []
    for item in evidence:
        if groups and groups[-1][0]["line"] == item["line"]:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def _repeats(item: dict) -> str:
    text = ""
    if item["count"] > 1:
        text += f", {item['count']} times (lines {item['line']}–{item['last_line']})"
    if item["ranks"]:
        label = "rank" if len(item["ranks"]) == 1 else "ranks"
        text += f", {label} {', '.join(map(str, item['ranks']))}"
    return text


def _unmatched(result: dict, new_issue_url: str) -> list[str]:
    lines = [""]
    if result["unmatched_errors"]:
        lines.append("Error-looking lines that matched no entry:")
        for item in result["unmatched_errors"]:
            repeat = f" (×{item['count']})" if item["count"] > 1 else ""
            lines.append(f"  line {item['line']}: {_clip(item['text'])}{repeat}")
    else:
        lines.append("No error-looking lines were found.")
    lines.append("")
    lines.append(f"Not in the encyclopedia yet? Report it: {report_url(new_issue_url, result)}")
    return lines


def _clip(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def entry_text(entry: Entry, catalog: Catalog, site_url: str) -> str:
    vocabulary = catalog.vocabulary
    out: list[str] = [entry.title, "=" * min(len(entry.title), WIDTH)]
    meta = [
        vocabulary.terms("categories")[entry.category].title,
        f"{entry.severity} severity",
        entry.status,
        " ".join(f"#{tag}" for tag in entry.tags),
    ]
    out += [" · ".join(meta), f"{site_url}entries/{entry.id}/", ""]
    out += _wrap(entry.summary)
    out += _section("Root cause", _wrap(entry.root_cause))
    out += _section("Fix", _wrap(entry.fix.summary) + _numbered(entry.fix.steps))
    out += _section("Symptoms", [f"- {s.text}" for s in entry.symptoms])
    out += _section("How to confirm", _numbered(entry.confirm))
    refs = [f"- {ref.title}\n  {ref.url}" for ref in entry.references]
    out += _section("References", refs)
    if entry.related:
        out += _section("Related", [f"- {link.id}: {link.why}" for link in entry.related])
    out.append("")
    return "\n".join(out)


def _section(title: str, body: list[str]) -> list[str]:
    return ["", title, "-" * len(title), *body]


def _wrap(text: str, indent: str = "", first: str | None = None) -> list[str]:
    initial = indent if first is None else first
    return textwrap.wrap(" ".join(text.split()), WIDTH, initial_indent=initial, subsequent_indent=indent) or [""]


def _numbered(items: list) -> list[str]:
    """Fix steps or confirm checks: each has a `step` and an optional `command`."""
    lines = []
    for number, item in enumerate(items, 1):
        lines += _wrap(f"{number}. {item.step}")
        if item.command:
            lines += _at_prompt(item.command)
    return lines


def _at_prompt(command: str) -> list[str]:
    """Shell lines as typed at a prompt: `$ ` starts each command, and a line that continues one
    (after a trailing backslash, or inside a here-document such as a Python script) is only indented."""
    lines = []
    continued, terminator = False, None
    command_lines = command.strip().splitlines()
    for number, line in enumerate(command_lines):
        if terminator is not None:
            lines.append("       " + line)
            terminator = None if line.strip() == terminator else terminator
            continue
        lines.append(("       " if continued else "     $ ") + line)
        here_document = HERE_DOCUMENT.search(line)
        # `<<` without a later line that ends it is a shift (`1 << 2`), not a here-document.
        if here_document and here_document.group(2) in (rest.strip() for rest in command_lines[number + 1 :]):
            terminator = here_document.group(2)
        continued = line.endswith("\\")
    return lines
