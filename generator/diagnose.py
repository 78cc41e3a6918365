"""Log + FingerprintSet → ranked matches, evidence and the first failing rank.

The browser engine (site_overrides/assets/diagnose/engine.js) follows these steps one for one
and must produce byte-identical canonical JSON; tests/diagnose/cases holds the proof. Pure: no
file I/O. `Matcher.feed` takes lines in chunks so a 100 MB log streams in bounded memory.

Steps: decode leniently → split lines (CRLF, progress-bar redraws) → clean each line (ANSI and
control characters, then timestamp and rank prefixes) → stage 1: find every anchor in the chunk
(one Aho-Corasick pass for all of them, so the time does not grow with the corpus) → stage 2:
evaluate fingerprints on candidate lines only → group repeats → rank entries.
"""

from __future__ import annotations

import codecs
import functools
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import ahocorasick

RESULT_VERSION = 1
INDENT = (" ", "\t")  # a line starting with one is a traceback's source line, not its exception
MAX_LINE = 16_000_000  # characters of one line that are examined; the rest is ignored
MAX_EVIDENCE_TEXT = 400
MAX_EVIDENCE_PER_MATCH = 10
MAX_GROUPS_PER_FINGERPRINT = 50
MAX_UNMATCHED = 10
MAX_UNMATCHED_TRACKED = 1000
NO_TIME = "~"  # sorts after every real time key

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
NOT_BLANK = re.compile(r"[^ \t\f\v]")
DIGITS = re.compile(r"[0-9]+")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
LINE_SEPARATORS = re.compile("[\u2028\u2029\x85]")
SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?) ?([A-Za-z]+)")  # a captured "5.25 GiB", for size_at_least


def decode_log(raw: bytes) -> str:
    """Bytes → text, never failing: BOMs honoured, UTF-16 sniffed, invalid bytes replaced."""
    return "".join(decode_chunks([raw]))


def decode_chunks(chunks: Iterable[bytes]) -> Iterator[str]:
    """Incremental form of decode_log, for streams; the first chunk decides the encoding."""
    decoder = None
    for chunk in chunks:
        if decoder is None:
            if not chunk:
                continue
            encoding, skip = _sniff(chunk)
            decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
            chunk = chunk[skip:]
        yield decoder.decode(chunk)
    if decoder is not None:
        yield decoder.decode(b"", final=True)


def _sniff(head: bytes) -> tuple[str, int]:
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8", 3
    if head.startswith(b"\xff\xfe"):
        return "utf-16-le", 2
    if head.startswith(b"\xfe\xff"):
        return "utf-16-be", 2
    sample = head[:4096]
    if len(sample) >= 4:
        half = len(sample) // 2
        if sample[1::2].count(0) > half * 0.4 and sample[0::2].count(0) < half * 0.1:
            return "utf-16-le", 0
        if sample[0::2].count(0) > half * 0.4 and sample[1::2].count(0) < half * 0.1:
            return "utf-16-be", 0
    return "utf-8", 0


def split_lines(texts: Iterable[str]) -> Iterator[str]:
    """Physical lines (split on \\n only), from text arriving in pieces. A final newline ends the
    last line rather than starting an empty one: three lines count three, with or without it.

    A line longer than MAX_LINE keeps only its first MAX_LINE characters, so a log without
    newlines streams in bounded memory; the engines ignore the rest of such a line anyway.
    """
    pending = ""
    overflow = False
    for text in texts:
        if not text:
            continue
        *complete, rest = text.split("\n")
        if complete:
            yield (pending + complete[0])[:MAX_LINE] if not overflow else pending
            yield from (line[:MAX_LINE] for line in complete[1:])
            pending, overflow = "", False
        if not overflow:
            pending += rest
            if len(pending) > MAX_LINE:
                pending, overflow = pending[:MAX_LINE], True
    if pending:
        yield pending


class Line:
    """One cleaned line. A plain slotted class: millions are made, and frozen dataclasses are slow."""

    __slots__ = ("error", "number", "rank", "text", "time")

    def __init__(self, number: int, text: str, rank: int | None, time: str, error: bool = False):
        self.number, self.text, self.rank, self.time, self.error = number, text, rank, time, error


class LineCleaner:
    """Turns physical lines into cleaned lines with rank and time; remembers the last time per rank."""

    def __init__(self, prefixes: dict):
        self.rounds = prefixes["max_rounds"]
        # For each possible first character, the prefixes that can match a line starting with it.
        self.by_start: dict[str, list] = {}
        for p in prefixes["prefixes"]:
            compiled = (re.compile(p["regex"], re.ASCII), p["rank"], p["time"], p.get("error_starts", ""))
            for char in p["starts"]:
                self.by_start.setdefault(char, []).append(compiled)
        self.last_time: dict[int | None, str] = {}

    def clean(self, number: int, raw: str) -> Line:
        text = _visible(raw[:MAX_LINE])
        rank: int | None = None
        time: str | None = None
        error = False
        for _ in range(self.rounds):
            for regex, rank_group, time_groups, error_starts in self.by_start.get(text[:1], ()):
                found = regex.match(text)
                if found and found.end() > 0:
                    if rank_group is not None and rank is None:
                        rank = int(found.group(rank_group))
                    if time_groups is not None and time is None:
                        time = _time_key(found, time_groups)
                    # A severity the prefix carries (glog's E0303 ...) is lost with it: keep it.
                    error = error or text[0] in error_starts
                    text = text[found.end() :]
                    break
            else:
                break
        if time is None:
            time = self.last_time.get(rank, NO_TIME)
        else:
            self.last_time[rank] = time
        return Line(number, text, rank, time, error)


def _visible(raw: str) -> str:
    """What a terminal would show: the last redraw after \\r, no escape codes or control characters."""
    if raw.isprintable():
        return raw
    if raw.endswith("\r"):
        raw = raw[:-1]
    if "\r" in raw:
        segments = [segment for segment in raw.split("\r") if NOT_BLANK.search(segment)]
        raw = segments[-1] if segments else ""
    if "\x1b" in raw:
        raw = ANSI.sub("", raw)
    raw = CONTROL.sub("", raw)
    return LINE_SEPARATORS.sub(" ", raw)


def _time_key(found: re.Match, groups: list[int]) -> str:
    parts = [found.group(g) if g else None for g in groups]
    year, month, day, hour, minute, second, fraction = parts
    fraction = ((fraction or "") + "000000")[:6]
    return f"{year or '0000'}-{month or '00'}-{day or '00'}T{hour}:{minute}:{second}.{fraction}"


@dataclass
class Group:
    """One fingerprint's repeated hits on one cleaned text, across lines and ranks."""

    line: int
    last_line: int
    text: str
    count: int = 0
    ranks: set[int] = field(default_factory=set)
    first: tuple[str, int, int | None] = (NO_TIME, 0, None)  # (time, line, rank) of the earliest hit


class Patterns:
    """A fingerprint set made ready to match: its regexes compiled, its fingerprints by anchor and
    stage 1's literal finder. Made once for any number of logs; a set holds about 850 regexes, more
    than the re module caches, so a Matcher made from the set alone compiles them all again."""

    def __init__(self, fingerprint_set: dict):
        self.set = fingerprint_set
        self.by_anchor: dict[str, list[tuple[dict, dict]]] = {}
        self.compiled: dict[str, re.Pattern] = {}
        self.entry_excludes: dict[str, list[str]] = {}
        # A fingerprint with `requires_any` counts only once one of those literals is seen on any line.
        self.requirements: dict[tuple[str, int], list[str]] = {}
        for entry in fingerprint_set["entries"]:
            for fp in entry["fingerprints"]:
                self.by_anchor.setdefault(fp["anchor"], []).append((entry, fp))
                if fp["regex"] is not None:
                    self.compiled[fp["regex"]] = re.compile(fp["regex"], re.ASCII)
                if fp["requires_any"]:
                    self.requirements[(entry["id"], fp["index"])] = fp["requires_any"]
            for literal in entry["exclude"]:
                self.entry_excludes.setdefault(literal, []).append(entry["id"])
        self.required = sorted({literal for literals in self.requirements.values() for literal in literals})
        hints = fingerprint_set["error_hints"]
        self.hints = list(hints["contains"])
        # A literal ending in a newline ends its line: each joined chunk ends with one too.
        self.line_end_hints = [f"{literal}\n" for literal in hints["ends_line"]]
        self.literals = literal_finder(
            (*self.by_anchor, *self.entry_excludes, *self.required, *self.hints, *self.line_end_hints)
        )


class Matcher:
    """Feed cleaned lines in chunks; ask for the canonical result at the end."""

    def __init__(self, fingerprint_set: dict | Patterns):
        patterns = fingerprint_set if isinstance(fingerprint_set, Patterns) else Patterns(fingerprint_set)
        self.cleaner = LineCleaner(patterns.set["log_prefixes"])
        self.lines = 0
        self.groups: dict[tuple[str, int], dict[str, Group]] = {}
        self.excluded: set[str] = set()
        # Error-looking lines → [first line, count, fingerprints hit]. A line that hit none is unmatched;
        # one that did waits apart (its own cap) until the end shows whether its entry is shown.
        self.unmatched: dict[str, list] = {}
        self.pending: dict[str, list] = {}
        self.seen_required: set[str] = set()
        self.patterns = patterns

    def feed_text(self, raw_lines: Iterable[str], chunk_lines: int = 20000) -> None:
        chunk: list[Line] = []
        for raw in raw_lines:
            self.lines += 1
            chunk.append(self.cleaner.clean(self.lines, raw))
            if len(chunk) >= chunk_lines:
                self._feed(chunk)
                chunk = []
        if chunk:
            self._feed(chunk)

    def _feed(self, chunk: list[Line]) -> None:
        joined, starts = _join(chunk)
        # Stage 1: the lines holding each anchor, exclusion and hint, in one pass over the chunk.
        found = self.patterns.literals.lines(joined, starts)
        for literal, entry_ids in self.patterns.entry_excludes.items():
            if literal in found:
                self.excluded.update(entry_ids)
        self.seen_required.update(literal for literal in self.patterns.required if literal in found)
        evidence: dict[int, list[tuple[str, int]]] = {}
        for anchor, users in self.patterns.by_anchor.items():
            for index in found.get(anchor, ()):
                line = chunk[index]
                # Stage 2: only the fingerprints that share this anchor, only on this line.
                for entry, fp in users:
                    if self._hit(fp, line.text):
                        self._record(entry["id"], fp["index"], line)
                        evidence.setdefault(index, []).append((entry["id"], fp["index"]))
        # Each error-looking line once, however many hints it holds.
        error_lines = {index for hint in self.patterns.hints for index in found.get(hint, ())}
        error_lines.update(index for index, line in enumerate(chunk) if line.error)
        error_lines.update(
            index
            for hint in self.patterns.line_end_hints
            for index in found.get(hint, ())
            if chunk[index].text[:1] not in INDENT
        )
        for index in sorted(error_lines):
            self._record_error_line(chunk[index], evidence.get(index))

    def _hit(self, fp: dict, text: str) -> bool:
        if any(literal in text for literal in fp["exclude"]):
            return False
        if fp["regex"] is None:
            return True
        found = self.patterns.compiled[fp["regex"]].search(text)
        if found is None:
            return False
        return fp["size_at_least"] is None or self._at_least(found, fp["size_at_least"])

    def _at_least(self, found: re.Match, groups: list[int]) -> bool:
        larger, smaller = (self._size(found.group(group)) for group in groups)
        return larger is not None and smaller is not None and larger >= smaller

    def _size(self, text: str | None) -> float | None:
        """Bytes in a captured size such as "5.25 GiB"; None when it is not one in a known unit."""
        parts = None if text is None else SIZE.fullmatch(text)
        unit = None if parts is None else self.patterns.set["size_units"].get(parts.group(2))
        return None if unit is None else float(parts.group(1)) * unit

    def _record(self, entry_id: str, index: int, line: Line) -> None:
        groups = self.groups.setdefault((entry_id, index), {})
        # Lines that differ only in numbers (rank ids, sequence numbers, sizes) are one group.
        key = DIGITS.sub("#", line.text)
        group = groups.get(key)
        if group is None:
            if len(groups) >= MAX_GROUPS_PER_FINGERPRINT:
                return
            group = groups[key] = Group(line.number, line.number, line.text, first=(line.time, line.number, line.rank))
        group.count += 1
        group.last_line = line.number
        if line.rank is not None:
            group.ranks.add(line.rank)
        if (line.time, line.number) < group.first[:2]:  # earliest by time, then by position
            group.first = (line.time, line.number, line.rank)

    def _record_error_line(self, line: Line, hits: list[tuple[str, int]] | None) -> None:
        """Count an error-looking line. One that hit fingerprints is decided at the end: it matched
        no entry when no entry it is evidence for is shown (a context line alone, a `match: all`
        entry with a part missing, a fingerprint whose required literal never came)."""
        table = self.unmatched if hits is None else self.pending
        seen = table.get(line.text)
        if seen is not None:
            seen[1] += 1
        elif len(table) < MAX_UNMATCHED_TRACKED:
            table[line.text] = [line.number, 1, hits]

    def fingerprints_hit(self) -> set[tuple[str, int]]:
        """(entry id, fingerprint index) of every fingerprint that fired on some line so far."""
        return {key for key, groups in self.groups.items() if groups and self._requirement_met(key)}

    def _requirement_met(self, key: tuple[str, int]) -> bool:
        """Whether the log holds a literal the fingerprint requires (known only once all of it is fed)."""
        required = self.patterns.requirements.get(key)
        return required is None or any(literal in self.seen_required for literal in required)

    def result(self) -> dict:
        matched = [self._match(entry) for entry in self.patterns.set["entries"] if entry["id"] not in self.excluded]
        matched = [match for match in matched if match is not None]
        # Only an entry whose own cause line is in the log explains others.
        causes = [match for match in matched if not match["_symptom_only"]]
        explained = {target: [] for match in causes for target in match["explains"]}
        for match in causes:
            for target in match["explains"]:
                explained[target].append(match["id"])
        for match in matched:
            match["explained_by"] = sorted(by for by in explained.get(match["id"], []) if by != match["id"])
            symptom_only = match.pop("_symptom_only")
            match["role"] = "symptom" if match["explained_by"] or symptom_only else "root"
        matched = _without_accounted_candidates(matched)
        matched.sort(key=_rank_key)
        first_rank = matched[0].pop("_first")[2] if matched else None
        for match in matched:
            match.pop("_first", None)
            match.pop("_lines")
            match.pop("explains")
        return {
            "version": RESULT_VERSION,
            "fingerprints": self.patterns.set["hash"],
            "lines": self.lines,
            "confident": bool(matched) and matched[0]["role"] == "root",
            "matches": matched,
            "first_failing_rank": first_rank,
            "unmatched_errors": self._unmatched({match["id"] for match in matched}),
        }

    def _match(self, entry: dict) -> dict | None:
        hits = {
            fp["index"]: list(self.groups.get((entry["id"], fp["index"]), {}).values())
            if self._requirement_met((entry["id"], fp["index"]))
            else []
            for fp in entry["fingerprints"]
        }
        roots = [fp for fp in entry["fingerprints"] if fp["role"] == "root" and hits[fp["index"]]]
        # Only a cascade line, its cause cut off above it (a pasted tail): a candidate, not a diagnosis.
        symptom_only = not roots
        if symptom_only:
            roots = [fp for fp in entry["fingerprints"] if fp["role"] == "symptom" and hits[fp["index"]]]
        if not roots:
            return None
        if entry["match"] == "all":
            needed = [fp for fp in entry["fingerprints"] if fp["role"] != "context"]
            if not all(hits[fp["index"]] for fp in needed):
                return None
        root_groups = [group for fp in roots for group in hits[fp["index"]]]
        first = min((group.first for group in root_groups), key=lambda first: first[:2])
        evidence = [_evidence(fp, group) for fp in entry["fingerprints"] for group in hits[fp["index"]]]
        evidence.sort(key=lambda item: (item["line"], item["fingerprint"]))
        return {
            "id": entry["id"],
            "title": entry["title"],
            "url": entry["url"],
            "fix": entry["fix"],
            "explains": entry["explains"],
            "score": {
                "priority": entry["priority"],
                "specificity": max(fp["specificity"] for fp in roots),
                "first_line": min(group.line for group in root_groups),
                "root_hits": sum(group.count for group in root_groups),
                "fingerprints_hit": sum(1 for groups in hits.values() if groups),
                "fingerprints_total": len(entry["fingerprints"]),
            },
            "evidence": evidence[:MAX_EVIDENCE_PER_MATCH],
            "more_evidence": max(0, len(evidence) - MAX_EVIDENCE_PER_MATCH),
            "_first": first,
            "_symptom_only": symptom_only,
            "_lines": {group.line for group in root_groups},
        }

    def _unmatched(self, shown: set[str]) -> list[dict]:
        rows = list(self.unmatched.items())
        for text, row in self.pending.items():
            if not any(entry_id in shown and self._requirement_met((entry_id, index)) for entry_id, index in row[2]):
                rows.append((text, row))
        items = [{"line": line, "text": _shorten(text, ""), "count": count} for text, (line, count, _) in rows]
        items.sort(key=lambda item: item["line"])
        return items[:MAX_UNMATCHED]


def _without_accounted_candidates(matched: list[dict]) -> list[dict]:
    """Drops a candidate (a symptom whose cause line is missing) when each of its lines is
    already explained by a cause that is in the log: after a CUDA OOM, the watchdog timeout it
    causes is not also a hint that one rank did extra work."""
    accounted = set().union(*(match["_lines"] for match in matched if match["explained_by"]))
    return [
        match
        for match in matched
        if match["explained_by"] or match["role"] == "root" or not match["_lines"] <= accounted
    ]


def _rank_key(match: dict) -> tuple:
    score = match["score"]
    return (
        0 if match["role"] == "root" else 1,
        -score["priority"],
        -score["specificity"],
        score["first_line"],
        match["id"],
    )


def _evidence(fp: dict, group: Group) -> dict:
    return {
        "fingerprint": fp["index"],
        "role": fp["role"],
        "line": group.line,
        "last_line": group.last_line,
        "text": _shorten(group.text, fp["anchor"]),
        "count": group.count,
        "ranks": sorted(group.ranks),
    }


def _shorten(text: str, anchor: str) -> str:
    """At most MAX_EVIDENCE_TEXT characters, centred near the anchor, marked with … where cut."""
    if len(text) <= MAX_EVIDENCE_TEXT:
        return text
    position = text.find(anchor) if anchor else 0
    start = max(0, position - 100)
    end = min(len(text), start + MAX_EVIDENCE_TEXT)
    return ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")


def _join(chunk: list[Line]) -> tuple[str, list[int]]:
    starts = []
    position = 0
    for line in chunk:
        starts.append(position)
        position += len(line.text) + 1
    return "\n".join([*(line.text for line in chunk), ""]), starts  # ends with a newline, copied once


@functools.lru_cache(maxsize=16)
def literal_finder(literals: tuple[str, ...]) -> LiteralFinder:
    """The finder for a set of literals, made once: a build checks each of an entry's examples with
    a matcher of its own, and making the automaton for every example cost more than the search
    (0.27 ms an entry, against 0.24 ms made once). An entry's examples come one after another, so a
    few finders suffice."""
    return LiteralFinder(literals)


class LiteralFinder:
    """Stage 1: the lines holding each of many literals, found in one pass over a chunk
    (Aho-Corasick). A pass per literal (str.find) took 0.52 of 0.82 s on a 10 MB log with 298
    anchors, and grew with every entry added."""

    def __init__(self, literals: Sequence[str]) -> None:
        self.automaton = ahocorasick.Automaton()
        for literal in literals:
            if literal:
                self.automaton.add_word(literal, literal)
        if len(self.automaton):
            self.automaton.make_automaton()
        self.every_line = "" in literals  # an empty literal is in every line, as with str.find

    def lines(self, joined: str, starts: list[int]) -> dict[str, list[int]]:
        """Each literal found in the chunk → the indexes of the lines that contain it, each once,
        in order. A literal holds no newline, or only a last one, so a match lies within one line."""
        lines: dict[str, list[int]] = {"": list(range(len(starts)))} if self.every_line else {}
        if self.automaton.kind != ahocorasick.AHOCORASICK:
            return lines
        for end, literal in self.automaton.iter(joined):
            index = bisect_right(starts, end) - 1
            indexes = lines.setdefault(literal, [])
            if not indexes or indexes[-1] != index:
                indexes.append(index)
        return lines


def diagnose_text(text: str, fingerprint_set: dict | Patterns) -> dict:
    """The whole pipeline on text already in memory."""
    matcher = Matcher(fingerprint_set)
    matcher.feed_text(split_lines([text]))
    return matcher.result()


def fingerprints_hit(text: str, fingerprint_set: dict | Patterns) -> set[tuple[str, int]]:
    """Which fingerprints fire on some line of text, whether or not their entries match."""
    matcher = Matcher(fingerprint_set)
    matcher.feed_text(split_lines([text]))
    return matcher.fingerprints_hit()


def diagnose_stream(chunks: Iterable[bytes], fingerprint_set: dict | Patterns) -> dict:
    """The whole pipeline on a byte stream, in bounded memory."""
    matcher = Matcher(fingerprint_set)
    matcher.feed_text(split_lines(decode_chunks(chunks)))
    return matcher.result()
