"""The fingerprint dialect: each banned construct is refused by name; accepted patterns compile in both engines."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from generator import dialect
from generator.schema import Fingerprint


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (r"NCCL error(?= in)", "look-around (?= (?! (?<= (?<! is not allowed"),
        (r"NCCL error(?<!x)", "look-around (?= (?! (?<= (?<! is not allowed"),
        (r"NCCL error (\w)\1", r"backreference \1 is not allowed"),
        (r"NCCL error (?P<code>[0-9]+)", "named groups are not allowed; use (?: )"),
        (r"NCCL error (?<code>[0-9]+)", "named groups are not allowed; use (?: )"),
        (r"(?i)NCCL error", "inline flags like (?i) are not allowed"),
        (r"\ANCCL error", r"\A is not allowed"),
        (r"NCCL error\Z", r"\Z is not allowed"),
        (r"NCCL error x{,3}", "{,n} is not allowed (JS reads it as literal text); write {0,n}"),
        (r"NCCL error.*timeout", "unbounded gap .* is not allowed; use a bounded gap like .{0,200}"),
        (r"NCCL error.+timeout", "unbounded gap .+ is not allowed; use a bounded gap like .{0,200}"),
        (r"NCCL error.{3,}timeout", "unbounded gap .{3,} is not allowed; use a bounded gap like .{0,200}"),
        (r"NCCL error (a+)+$", "nested quantifiers like (a+)+ are not allowed (catastrophic backtracking)"),
        (r"NCCL error (\w+ ?)*", "nested quantifiers like (a+)+ are not allowed (catastrophic backtracking)"),
        (r"NCCL error\s+x", r"\s is not allowed (Python and JS disagree on Unicode spaces); use [ \t]"),
        (r"NCCL error a++", "possessive quantifiers like a++ are not allowed"),
        (r"NCCL error \e", r"escape \e is not allowed; JS rejects it in unicode mode"),
        (r"NCCL error {x}", "a literal { must be escaped as \\{"),
        (r"NCCL error (x", "unbalanced parenthesis"),
        (r"NCCL error [a-z", "unterminated character class"),
    ],
)
def test_banned_constructs_are_named(pattern, message):
    problems = dialect.regex_problems(pattern, "NCCL error")
    assert any(problem.startswith(message) for problem in problems), problems


def test_long_pattern_is_refused():
    problems = dialect.regex_problems("NCCL error" + "a" * 100_000, "NCCL error")
    assert problems == ["pattern is 100010 characters; the limit is 1000"]


def test_anchor_must_be_a_required_literal():
    assert dialect.regex_problems(r"(?:NCCL|RCCL) error [0-9]+", "NCCL error") == [
        "anchor 'NCCL error' is not a literal that every match must contain"
    ]
    assert dialect.regex_problems(r"NCCL error x?", "error x") == [
        "anchor 'error x' is not a literal that every match must contain"
    ]
    assert dialect.regex_problems(r"NCCL error [0-9]{1,4} in ncclCommInit", "in ncclCommInit") == []


def test_short_anchor_is_refused_by_the_schema():
    with pytest.raises(ValidationError, match="at least 6 characters"):
        Fingerprint(regex=r"abc[0-9]", anchor="abc")


def test_fingerprint_needs_exactly_one_pattern():
    with pytest.raises(ValidationError, match="give exactly one of contains, template, regex"):
        Fingerprint(contains="CUDA error", template="CUDA error <NUM>")


@pytest.mark.parametrize(
    ("pattern", "size_at_least", "message"),
    [
        ({"contains": "reserved by PyTorch"}, [2, 1], "`size_at_least` is only used with `regex`"),
        ({"template": "allocate <NUM> MiB"}, [2, 1], "`size_at_least` is only used with `regex`"),
        (
            {"regex": r"allocate ([0-9]+ MiB)", "anchor": "allocate"},
            [2, 1],
            "names capture group 2, but the regex has 1",
        ),
        ({"regex": r"allocate ([0-9]+ MiB) and ([0-9]+ GiB)", "anchor": "allocate"}, [1, 1], "two different"),
        ({"regex": r"allocate ([0-9]+ MiB) and ([0-9]+ GiB)", "anchor": "allocate"}, [0, 1], "greater than or equal"),
    ],
)
def test_size_at_least_needs_two_capture_groups_of_a_regex(pattern, size_at_least, message):
    with pytest.raises(ValidationError, match=message):
        Fingerprint(**pattern, size_at_least=size_at_least)


def test_size_at_least_is_accepted_on_two_capture_groups():
    fingerprint = Fingerprint(regex=r"allocate ([0-9]+ MiB) and ([0-9]+ GiB)", anchor="allocate", size_at_least=[2, 1])
    assert fingerprint.size_at_least == (2, 1)


def test_templates_compile_to_the_dialect():
    regex = dialect.template_to_regex("Tried to allocate <NUM> <WORD> (GPU <NUM>; <*> total)")
    assert regex == (
        r"Tried to allocate -?[0-9]+(?:\.[0-9]+)? [A-Za-z0-9_.-]+ \(GPU -?[0-9]+(?:\.[0-9]+)?; .{0,240}? total\)"
    )
    assert dialect.regex_problems(regex, "Tried to allocate ") == []
    assert dialect.template_anchor("Tried to allocate <NUM> MiB") == "Tried to allocate "
    assert dialect.template_problems("at <NUM> <X>") == [
        "unknown hole <X>; use one of <NUM>, <HEX>, <WORD>, <PATH>, <*>",
        "a template needs a literal part of at least 6 characters between its holes",
    ]
