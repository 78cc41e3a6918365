"""The fingerprint pattern dialect: regular expressions that Python `re` and JS `RegExp(p, "u")` read alike.

Both diagnose engines compile the same pattern text, so any construct the two engines treat
differently, or that can backtrack catastrophically, is refused here with a message naming it.
Templates are literal text with typed holes; they compile into this same dialect.
"""

from __future__ import annotations

import re

MAX_PATTERN = 1000
MIN_ANCHOR = 6

# Escapes both engines read the same way (with re.ASCII in Python and the "u" flag in JS).
CLASS_ESCAPES = set("dDwW")
CONTROL_ESCAPES = set("tnrfv")
SYNTAX_CHARS = set("\\^$.|?*+()[]{}/")
# Inside a class JS also accepts \- (outside it is a syntax error in unicode mode).
CLASS_SYNTAX_CHARS = SYNTAX_CHARS | {"-"}

TEMPLATE_HOLES = {
    "<NUM>": "-?[0-9]+(?:\\.[0-9]+)?",
    "<HEX>": "0x[0-9a-fA-F]+",
    "<WORD>": "[A-Za-z0-9_.-]+",
    "<PATH>": "[^ \\t\"']{1,1024}",
    "<*>": ".{0,240}?",
}
HOLE = re.compile(r"<(?:NUM|HEX|WORD|PATH|\*)>")

# The units a `size_at_least` capture may carry, in bytes. Both engines read this table from the
# fingerprint set, so a size means the same in Python and in the browser.
SIZE_UNITS = {
    "bytes": 1,
    "B": 1,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
}


class _Problems(list):
    def add(self, message: str) -> None:
        if message not in self:
            self.append(message)


def regex_problems(pattern: str, anchor: str) -> list[str]:
    """Every reason `pattern` is outside the dialect, or `anchor` is not a literal it requires."""
    problems = _Problems()
    if len(pattern) > MAX_PATTERN:
        problems.add(f"pattern is {len(pattern)} characters; the limit is {MAX_PATTERN}")
        return problems
    if len(anchor) < MIN_ANCHOR:
        problems.add(f"anchor must be at least {MIN_ANCHOR} characters")
    literal_runs = _scan(pattern, problems)
    if not problems and not any(anchor in run for run in literal_runs):
        problems.add(f"anchor {anchor!r} is not a literal that every match must contain")
    if not problems:
        try:
            re.compile(pattern, re.ASCII)
        except re.error as error:
            problems.add(f"not a valid regular expression ({error})")
    return list(problems)


def _scan(pattern: str, problems: _Problems) -> list[str]:
    """Walk the pattern once; report banned constructs; return its required top-level literal runs."""
    runs: list[str] = []
    run = ""
    # Each open group remembers whether something inside it is quantified.
    groups: list[dict] = []
    top_level_alternation = False
    last_atom_quantifiable = False
    last_atom_is_dot = False
    last_atom_group_has_quantifier = False
    i = 0
    n = len(pattern)

    def end_run() -> None:
        nonlocal run
        if run:
            runs.append(run)
        run = ""

    def mark_quantified() -> None:
        for group in groups:
            group["quantified_inside"] = True

    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= n:
                problems.add("pattern ends with a lone backslash")
                break
            nxt = pattern[i + 1]
            if nxt.isdigit():
                problems.add(f"backreference \\{nxt} is not allowed")
            elif nxt == "k":
                problems.add("named backreference \\k is not allowed")
            elif nxt in "AZz":
                problems.add(f"\\{nxt} is not allowed (JS has no such anchor); lines are matched one at a time")
            elif nxt in "sS":
                problems.add(f"\\{nxt} is not allowed (Python and JS disagree on Unicode spaces); use [ \\t]")
            elif nxt in "bB" or nxt in CLASS_ESCAPES or nxt in CONTROL_ESCAPES:
                pass
            elif nxt in SYNTAX_CHARS:
                if not groups:
                    run += nxt
                i += 2
                last_atom_quantifiable, last_atom_is_dot, last_atom_group_has_quantifier = True, False, False
                continue
            else:
                problems.add(f"escape \\{nxt} is not allowed; JS rejects it in unicode mode")
            end_run()
            i += 2
            last_atom_quantifiable, last_atom_is_dot, last_atom_group_has_quantifier = nxt not in "bB", False, False
            continue
        if char == "[":
            end_run()
            i = _scan_class(pattern, i, problems)
            last_atom_quantifiable, last_atom_is_dot, last_atom_group_has_quantifier = True, False, False
            continue
        if char == "(":
            end_run()
            if pattern.startswith("(?", i):
                if pattern.startswith("(?:", i):
                    i += 3
                elif pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
                    problems.add("look-around (?= (?! (?<= (?<! is not allowed")
                    i += 3
                elif pattern.startswith(("(?P<", "(?<", "(?P="), i):
                    problems.add("named groups are not allowed; use (?: )")
                    i += 3
                else:
                    problems.add("inline flags like (?i) are not allowed")
                    i += 2
            else:
                i += 1
            groups.append({"quantified_inside": False})
            last_atom_quantifiable = False
            continue
        if char == ")":
            end_run()
            if not groups:
                problems.add("unbalanced parenthesis")
                i += 1
                continue
            group = groups.pop()
            last_atom_quantifiable, last_atom_is_dot = True, False
            last_atom_group_has_quantifier = group["quantified_inside"]
            i += 1
            continue
        if char in "*+?{":
            quantifier, unbounded, length = _read_quantifier(pattern, i, problems)
            if length == 0:
                if char == "{":
                    problems.add("a literal { must be escaped as \\{")
                i += 1
                continue
            if not last_atom_quantifiable:
                problems.add(f"quantifier {quantifier} has nothing to repeat")
            repeats = quantifier not in ("?", "{0,1}", "{1}", "{1,1}", "{0}")
            if last_atom_group_has_quantifier and repeats:
                problems.add("nested quantifiers like (a+)+ are not allowed (catastrophic backtracking)")
            if last_atom_is_dot and unbounded:
                problems.add(f"unbounded gap .{quantifier} is not allowed; use a bounded gap like .{{0,200}}")
            optional = quantifier[0] in "*?" or quantifier.startswith("{0")
            if not groups and run:
                # The quantified character is not required (or not alone): it leaves the run.
                last_char, run = run[-1], run[:-1]
                end_run()
                if not optional:
                    run = last_char
                    end_run()
            mark_quantified()
            i += length
            if i < n and pattern[i] == "+":
                problems.add("possessive quantifiers like a++ are not allowed")
                i += 1
            elif i < n and pattern[i] == "?":
                i += 1
            last_atom_quantifiable = False
            last_atom_group_has_quantifier = False
            continue
        if char == "}":
            problems.add("a literal } must be escaped as \\}")
            i += 1
            continue
        if char == "]":
            problems.add("a literal ] must be escaped as \\]")
            i += 1
            continue
        if char == "|":
            end_run()
            if not groups:
                top_level_alternation = True
            i += 1
            last_atom_quantifiable = False
            continue
        if char in "^$":
            end_run()
            i += 1
            last_atom_quantifiable = False
            continue
        if char == ".":
            end_run()
            i += 1
            last_atom_quantifiable, last_atom_is_dot, last_atom_group_has_quantifier = True, True, False
            continue
        if not groups:
            run += char
        i += 1
        last_atom_quantifiable, last_atom_is_dot, last_atom_group_has_quantifier = True, False, False
    end_run()
    if groups:
        problems.add("unbalanced parenthesis")
    return [] if top_level_alternation else runs


def _read_quantifier(pattern: str, i: int, problems: _Problems) -> tuple[str, bool, int]:
    """(text, unbounded, length) of the quantifier at i; length 0 when `{` starts no quantifier."""
    char = pattern[i]
    if char in "*+":
        return char, True, 1
    if char == "?":
        return char, False, 1
    bounded = re.compile(r"\{([0-9]{1,4})(,([0-9]{0,4}))?\}").match(pattern, i)
    if bounded is None:
        if re.compile(r"\{,[0-9]*\}").match(pattern, i):
            problems.add("{,n} is not allowed (JS reads it as literal text); write {0,n}")
            return "{,n}", False, pattern.index("}", i) - i + 1
        return "{", False, 0
    text = bounded.group(0)
    unbounded = bounded.group(2) is not None and bounded.group(3) == ""
    return text, unbounded, len(text)


def _scan_class(pattern: str, i: int, problems: _Problems) -> int:
    """Check a character class starting at i; return the index after its closing bracket."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        problems.add("an empty or ]-first character class reads differently in JS; escape it as \\]")
        j += 1
    while j < len(pattern):
        char = pattern[j]
        if char == "\\":
            nxt = pattern[j + 1] if j + 1 < len(pattern) else ""
            if nxt in "sS":
                problems.add(f"\\{nxt} is not allowed (Python and JS disagree on Unicode spaces); use [ \\t]")
            elif nxt.isdigit() and nxt != "0":
                problems.add(f"\\{nxt} inside a character class is not allowed")
            elif not (nxt in CLASS_ESCAPES or nxt in CONTROL_ESCAPES or nxt in CLASS_SYNTAX_CHARS):
                problems.add(f"escape \\{nxt} is not allowed; JS rejects it in unicode mode")
            j += 2
            continue
        if char == "[":
            problems.add("a [ inside a character class must be escaped as \\[")
        if pattern.startswith(("--", "&&", "~~", "||"), j):
            problems.add(f"{pattern[j : j + 2]} inside a character class is not allowed (set operations differ)")
        if char == "]":
            return j + 1
        j += 1
    problems.add("unterminated character class")
    return j


def size_comparison_problems(pattern: str | None, groups: tuple[int, int]) -> list[str]:
    """Why `size_at_least` cannot be used: it compares two capture groups of a regex fingerprint."""
    if pattern is None:
        return ["`size_at_least` is only used with `regex` (it compares two of its capture groups)"]
    try:
        available = re.compile(pattern, re.ASCII).groups
    except re.error:
        return []  # regex_problems has already said why
    if groups[0] == groups[1]:
        return ["`size_at_least` must name two different capture groups"]
    missing = [str(group) for group in groups if group > available]
    if missing:
        return [f"`size_at_least` names capture group {', '.join(missing)}, but the regex has {available}"]
    return []


def template_problems(template: str) -> list[str]:
    """Every reason a template cannot be used: unknown holes, or no literal anchor long enough."""
    problems = _Problems()
    for hole in re.findall(r"<[A-Z*]{1,6}>", template):
        if hole not in TEMPLATE_HOLES:
            problems.add(f"unknown hole {hole}; use one of {', '.join(TEMPLATE_HOLES)}")
    if len(template_anchor(template)) < MIN_ANCHOR:
        problems.add(f"a template needs a literal part of at least {MIN_ANCHOR} characters between its holes")
    return list(problems)


def template_anchor(template: str) -> str:
    """The longest literal part of a template (the first among equals): the stage-1 anchor."""
    parts = HOLE.split(template)
    return max(parts, key=len)


def template_to_regex(template: str) -> str:
    """Compile a template into the dialect: literal parts escaped, holes replaced."""
    out = []
    position = 0
    for hole in HOLE.finditer(template):
        out.append(escape(template[position : hole.start()]))
        out.append(TEMPLATE_HOLES[hole.group(0)])
        position = hole.end()
    out.append(escape(template[position:]))
    return "".join(out)


def escape(literal: str) -> str:
    """Escape a literal with only the escapes both engines accept (re.escape also escapes `#`, `~`...)."""
    return "".join("\\" + char if char in SYNTAX_CHARS else char for char in literal)


def literal_length(pattern: str) -> int:
    """How many literal characters a dialect regex requires at top level: its specificity."""
    return sum(len(run) for run in _scan(pattern, _Problems()))
