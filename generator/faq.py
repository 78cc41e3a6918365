"""The FAQ of an entry page: each question is asked only when the entry holds the data to answer it.

Answers are composed from the entry's own fields; there is no boilerplate answer. Each item has
a stable anchor (the question's key, not its wording) so links to an answer survive rewording.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator import markdown
from generator.catalog import Catalog
from generator.schema import Entry, Fingerprint

LAYER_WORDS = {
    "software": "a software problem: the cause is a bug or a missing feature in the code, not the hardware",
    "hardware": "a hardware problem: the cause is the device itself, not the code that runs on it",
    "configuration": "a configuration problem: the software and hardware work, but are set up in a way that fails",
    "mixed": (
        "not one or the other: case by case the cause is in the code, in how things are set up, or in the"
        " hardware, and the [checklist](#how-to-confirm) tells which"
    ),
}
MAX_LOG_LINE = 200  # characters of an example log line quoted in the answer
STAGE_WORDS = {
    "training": "training",
    "fine-tuning": "fine-tuning",
    "evaluation": "evaluation",
    "inference": "inference",
    "install": "installation",
}


@dataclass(frozen=True)
class FaqItem:
    anchor: str
    question: str
    answer: str  # Markdown, already escaped
    plain: str  # the same answer as plain text, for FAQPage JSON-LD


def faq_for(entry: Entry, catalog: Catalog) -> list[FaqItem]:
    category = catalog.vocabulary.terms("categories")[entry.category]
    items = [
        _item("faq-cause", "What causes this failure?", markdown.inline(entry.root_cause)),
        _item("faq-fix", "How do I fix it?", _fix_answer(entry)),
        _item("faq-layer", "Is this a hardware or a software problem?", _layer_answer(entry, category.title)),
        _item("faq-stages", "Does this affect inference, or only training?", _stage_answer(entry)),
        _item("faq-confirm", "What is the quickest way to confirm it?", _confirm_answer(entry)),
    ]
    if entry.affected.versions or entry.affected.hardware:
        items.append(
            _item("faq-versions", "Which versions and hardware are affected?", _versions_answer(entry, catalog))
        )
    if entry.fix.workarounds:
        items.append(
            _item(
                "faq-workaround", "Is there a workaround if I cannot apply the fix yet?", _list(entry.fix.workarounds)
            )
        )
    if entry.recurrence:
        items.append(_item("faq-recurrence", "Will it come back after the fix?", markdown.inline(entry.recurrence)))
    if entry.scale:
        items.append(_item("faq-scale", "How does it behave on one GPU versus many?", markdown.inline(entry.scale)))
    items.append(_item("faq-log", "Which log line identifies it?", _fingerprint_answer(entry)))
    if entry.related:
        items.append(_item("faq-related", "What related failures should I check?", _related_answer(entry, catalog)))
    return items


def _item(anchor: str, question: str, answer: str) -> FaqItem:
    return FaqItem(anchor, question, answer, markdown.plain_from_escaped(answer))


def _fix_answer(entry: Entry) -> str:
    answer = markdown.inline(entry.fix.summary)
    answer = answer if answer.endswith(".") else answer + "."
    if entry.fix.effort:
        answer += f" Once diagnosed, expect it to take {markdown.inline(entry.fix.effort)}."
    steps = len(entry.fix.steps)
    listed = {1: "the step", 2: "both steps"}.get(steps, f"all {steps} steps")
    answer += f" The [fix section](#the-fix) lists {listed}"
    answer += " with commands." if any(step.command for step in entry.fix.steps) else "."
    return answer


def _layer_answer(entry: Entry, category_title: str) -> str:
    noun = category_title.split(" and ")[0]
    noun = noun if noun.isupper() or noun[:4].isupper() else noun.lower()
    return f"It is {LAYER_WORDS[entry.layer]}. Trainwreck files it as {a_an(noun)} failure."


def a_an(phrase: str) -> str:
    """'an environment failure', 'a GPU failure', 'an NCCL error': the article by how it is spoken."""
    word = phrase.split()[0] if phrase.split() else ""
    if len(word) > 1 and word.isupper():
        spoken_vowel = word[0] in "AEFHILMNORSX"
    else:
        lower = word.lower()
        spoken_vowel = lower[:1] in ("a", "e", "i", "o", "u") and not re.match(r"u(ni|s[eu])|eu|one", lower)
        spoken_vowel = spoken_vowel or lower.startswith(("hour", "honest"))
    return ("an " if spoken_vowel else "a ") + phrase


def _stage_answer(entry: Entry) -> str:
    stages = [STAGE_WORDS[stage] for stage in entry.stages]
    listed = _join(stages)
    if "inference" in entry.stages and any(stage in entry.stages for stage in ("training", "fine-tuning")):
        return f"Both. It has been seen during {listed}."
    if "inference" in entry.stages:
        return f"It shows up during {listed}, not in training."
    return f"It shows up during {listed}; no source reports it in inference."


def _confirm_answer(entry: Entry) -> str:
    first = entry.confirm[0]
    answer = markdown.inline(first.step)
    if first.command:
        answer += f" Run {markdown.code_span(first.command)}."
    if first.expect:
        answer += f" What confirms it: {markdown.inline(first.expect)}"
    more = len(entry.confirm) - 1
    if more:
        answer += f" The [checklist](#how-to-confirm) has {'one more check' if more == 1 else f'{more} more checks'}."
    return answer


def _versions_answer(entry: Entry, catalog: Catalog) -> str:
    titles = catalog.vocabulary.terms("systems")
    parts = [f"{titles[system].title} {markdown.code_span(spec)}" for system, spec in entry.affected.versions.items()]
    answer = f"Versions: {_join(parts)}." if parts else ""
    if entry.affected.hardware:
        hardware = "; ".join(markdown.inline(item) for item in entry.affected.hardware)
        answer += f"{' ' if answer else ''}Hardware: {hardware}."
    return answer


def _fingerprint_answer(entry: Entry) -> str:
    roots = [fp for fp in entry.diagnose.fingerprints if fp.role == "root"]
    lines = [_recognisable(fp, entry) for fp in roots[:3]]
    kind = "line" if len(lines) == 1 else "lines"
    stop = "" if lines and lines[-1].endswith(".") else "."  # a quoted line that ends a sentence already
    answer = f"The {kind} {_join([markdown.code_span(line) for line in lines], 'or')}{stop} "
    answer += "Paste your log into the [Diagnose page](../diagnose.md) or run `trainwreck diagnose train.log` to check it locally."
    return answer


def _recognisable(fingerprint: Fingerprint, entry: Entry) -> str:
    """What a reader can spot in a log: a literal or template as written; for a regex, the first
    line of the entry's own real examples that it matches, since regex source reads as noise."""
    if fingerprint.kind != "regex":
        return fingerprint.pattern
    pattern = re.compile(fingerprint.regex)
    for example in entry.diagnose.examples.match:
        for line in example.splitlines():
            if pattern.search(line):
                line = line.strip()
                return line if len(line) <= MAX_LOG_LINE else line[: MAX_LOG_LINE - 1] + "…"
    return fingerprint.pattern


def _related_answer(entry: Entry, catalog: Catalog) -> str:
    links = [f"[{markdown.inline_title(catalog.get(link.id).title)}]({link.id}.md)" for link in entry.related]
    return f"See {_join(links)}; the [related entries](#related-entries) section says how each one differs."


def _list(items: list[str]) -> str:
    return " ".join(markdown.inline(item) for item in items)


def _join(items: list[str], word: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"
