"""Pydantic models of one entry file. They validate and describe; they never load or render.

Checks that need the controlled vocabularies (category, tags, systems) read them from the
validation context, so the models stay usable without files: `Entry.model_validate(data,
context={"vocabulary": vocabulary})`. Checks that need other entries (related ids, duplicate
ids) belong to the catalog, not here.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal, get_args

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from generator import dialect, markdown

ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
# Windows refuses these as file names whatever the extension, so an id can never be one.
WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}

# Both patterns are also written into the entry JSON Schema, so they keep to the regex syntax
# JSON Schema and Python share.
HTTP_URL = r"""^https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[^\s<>"'`]*)?$"""
# A GitHub file or folder on a default branch: .../blob/main/..., .../tree/master/..., and raw files.
MOVING_SOURCE = (
    r"^https?://(?:github\.com/[^/]+/[^/]+/(?:blob|tree)|raw\.githubusercontent\.com/[^/]+/[^/]+(?:/refs/heads)?)"
    r"/(main|master)(?:/|$)"
)
# Compiled once: validation also compiles every fingerprint's regex, which would push these out of
# the re module's cache and have them compiled again for each reference.
HTTP_URL_RE = re.compile(HTTP_URL)
MOVING_SOURCE_RE = re.compile(MOVING_SOURCE, re.IGNORECASE)

EntryId = Annotated[str, StringConstraints(pattern=ID_PATTERN, max_length=80)]
OneLine = Annotated[str, StringConstraints(min_length=1, max_length=400, pattern=r"^[^\n]*\S[^\n]*$")]


def _whole_code_spans(text: str, info: ValidationInfo) -> str:
    # An entry rebuilt from the entry cache passed this check when it was cached (the cache key
    # covers the generator's code); checking again would nearly double the cached validation.
    if (info.context or {}).get("from_cache"):
        return text
    if cut := markdown.cut_code_spans(text):
        raise ValueError(
            f"code span `{cut[0]}` looks cut in two by a backtick inside it; put text that holds "
            "backticks between double backticks and spaces: `` like `this` ``"
        )
    return text


Prose = Annotated[str, StringConstraints(min_length=1, max_length=2000), AfterValidator(_whole_code_spans)]
LongProse = Annotated[str, StringConstraints(min_length=1, max_length=8000), AfterValidator(_whole_code_spans)]


class Model(BaseModel):
    """Every model forbids unknown fields: a typo must be an error, not a silently dropped field."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


def _vocabulary(info: ValidationInfo, kind: str) -> dict | None:
    context = info.context or {}
    vocabulary = context.get("vocabulary")
    return None if vocabulary is None else vocabulary.terms(kind)


def _check_terms(values: list[str], info: ValidationInfo, kind: str) -> list[str]:
    known = _vocabulary(info, kind)
    if known is None:
        return values
    unknown = [value for value in values if value not in known]
    if unknown:
        raise ValueError(f"unknown {kind} {', '.join(map(repr, unknown))}; add it to entries/_vocab/{kind}.yml first")
    return values


class Symptom(Model):
    text: OneLine = Field(description="What the user sees, verbatim: an error line, a warning, or a short description.")
    meaning: Prose = Field(description="What this symptom tells you about the cause.")
    verbatim: bool = Field(
        default=True,
        description="True when `text` is exact output of the software (rendered as code); false for a description.",
    )


class Affected(Model):
    systems: list[str] = Field(min_length=1, description="Affected systems, from entries/_vocab/systems.yml.")
    versions: dict[str, str] = Field(
        default_factory=dict,
        description='Affected versions per system as PEP 440 specifiers, only where known, e.g. {triton: "<3.7"}.',
    )
    hardware: list[OneLine] = Field(
        default_factory=list,
        description="Affected hardware in plain words, e.g. 'NVIDIA Blackwell (sm_120): RTX 50 series, RTX PRO 6000'.",
    )
    platforms: list[OneLine] = Field(
        default_factory=list, description="Operating systems or environments, where it matters."
    )

    @field_validator("systems")
    @classmethod
    def _known_systems(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return _check_terms(value, info, "systems")

    @field_validator("versions")
    @classmethod
    def _valid_specifiers(cls, value: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        _check_terms(list(value), info, "systems")
        for system, spec in value.items():
            try:
                SpecifierSet(spec)
            except InvalidSpecifier:
                raise ValueError(f"{system}: {spec!r} is not a PEP 440 version specifier (e.g. '>=2.4,<2.6')") from None
        return value


class Check(Model):
    step: Prose = Field(description="One thing to check, in the imperative.")
    command: str | None = Field(
        default=None, max_length=2000, description="A command to run, rendered as a copyable block."
    )
    expect: Prose | None = Field(default=None, description="What the output looks like when this failure is the cause.")


class Step(Model):
    step: Prose = Field(description="One step of the fix, in the imperative.")
    command: str | None = Field(
        default=None, max_length=2000, description="A command to run, rendered as a copyable block."
    )


class CodeExample(Model):
    stack: OneLine = Field(description="Tab title: the stack this example is for, e.g. 'PyTorch', 'pip', 'vLLM'.")
    language: Annotated[str, StringConstraints(pattern=r"^[a-z0-9+-]{1,20}$")] = Field(
        description="Code fence language for highlighting, e.g. bash, python, yaml."
    )
    code: Annotated[str, StringConstraints(min_length=1, max_length=6000)] = Field(description="The code itself.")
    note: Prose | None = Field(default=None, description="Why this works, in one or two sentences.")


class Fix(Model):
    summary: OneLine = Field(description="The fix in one line; shown in the quick-answer box.")
    effort: OneLine | None = Field(
        default=None, description="Typical time to apply once diagnosed, e.g. '10-30 minutes'."
    )
    steps: list[Step] = Field(min_length=1, description="What to do, in order.")
    examples: list[CodeExample] = Field(default_factory=list, description="Code per stack, rendered as content tabs.")
    workarounds: list[Prose] = Field(
        default_factory=list, description="Stopgaps when the real fix is not possible yet."
    )


class Reference(Model):
    title: OneLine = Field(description="Title of the page as it reads at the source.")
    url: Annotated[str, StringConstraints(max_length=2000)] = Field(
        description="A public http(s) URL; a GitHub file or folder pinned to a commit or tag, not to main or master.",
        json_schema_extra={"pattern": HTTP_URL, "not": {"pattern": MOVING_SOURCE}},
    )
    kind: Literal["issue", "pull-request", "docs", "source", "release-notes", "forum", "article"] = Field(
        description="What sort of source this is."
    )
    note: Prose | None = Field(default=None, description="What this source supports, in a sentence.")

    @field_validator("url")
    @classmethod
    def _http_only(cls, value: str) -> str:
        if not HTTP_URL_RE.match(value):
            raise ValueError("must be an http(s) URL with no spaces or quotes")
        return value

    @field_validator("url")
    @classmethod
    def _pinned_source(cls, value: str) -> str:
        # A file on a branch changes under the link; the note would then describe text that is gone.
        branch = MOVING_SOURCE_RE.match(value)
        if branch:
            raise ValueError(
                f"links to the moving branch {branch.group(1)!r}; pin it to a commit "
                "(.../blob/<40-hex commit>/<path>) or a release tag"
            )
        return value


class Related(Model):
    id: EntryId = Field(description="Id of the related entry.")
    why: Prose = Field(description="How the two failures relate; shown next to the link on both pages.")


class Fingerprint(Model):
    """One pattern of the diagnose dialect (DESIGN §5): exactly one of contains, template, regex."""

    contains: Annotated[str, StringConstraints(min_length=6, max_length=1000)] | None = Field(
        default=None, description="A literal substring of one log line."
    )
    template: Annotated[str, StringConstraints(min_length=6, max_length=1000)] | None = Field(
        default=None,
        description="Literal text with typed holes: <NUM>, <HEX>, <PATH>, <WORD>, and <*> for a bounded gap.",
    )
    regex: Annotated[str, StringConstraints(min_length=1, max_length=1000)] | None = Field(
        default=None, description="A regular expression in the restricted dialect that Python and JS read alike."
    )
    anchor: Annotated[str, StringConstraints(min_length=6, max_length=200)] | None = Field(
        default=None, description="For regex: a literal of at least 6 characters that every matching line contains."
    )
    role: Literal["root", "symptom", "context"] = Field(
        default="root",
        description="root: the failure itself; symptom: a cascade it causes; context: evidence only, never matches alone.",
    )
    exclude: list[Annotated[str, StringConstraints(min_length=1, max_length=400)]] = Field(
        default_factory=list, description="Literals that, when present on the same line, cancel this fingerprint."
    )
    requires_any: list[Annotated[OneLine, StringConstraints(min_length=4)]] = Field(
        default_factory=list,
        max_length=20,
        description=(
            "Literals of which at least one must appear somewhere in the log, on any line, for this fingerprint "
            "to count: evidence printed elsewhere, such as the package a killed compiler was building."
        ),
    )

    size_at_least: tuple[Annotated[int, Field(ge=1, le=9)], Annotated[int, Field(ge=1, le=9)]] | None = Field(
        default=None,
        description=(
            "For regex: [i, j] - the fingerprint counts only when capture group i, read as a size (a number and "
            "bytes, B, KiB, MiB, GiB, TiB, KB, MB, GB or TB), is at least capture group j: memory reserved but "
            "unallocated at least as large as the allocation that failed, say."
        ),
    )

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)

    @model_validator(mode="after")
    def _one_pattern(self, info: ValidationInfo) -> Fingerprint:
        given = [kind for kind in ("contains", "template", "regex") if getattr(self, kind) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of contains, template, regex (got {', '.join(given) or 'none'})")
        if (info.context or {}).get("from_cache"):
            return self  # passed the dialect checks below when it was cached, as `_whole_code_spans` says
        if self.regex is not None:
            if self.anchor is None:
                raise ValueError(
                    "a regex fingerprint needs an `anchor`: a literal of 6+ characters every match contains"
                )
            problems = dialect.regex_problems(self.regex, self.anchor)
        elif self.template is not None:
            problems = dialect.template_problems(self.template)
        else:
            problems = []
        if self.anchor is not None and self.regex is None:
            problems.append("`anchor` is only used with `regex`")
        if self.size_at_least is not None:
            problems += dialect.size_comparison_problems(self.regex, self.size_at_least)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def kind(self) -> str:
        return next(kind for kind in ("contains", "template", "regex") if getattr(self, kind) is not None)

    @property
    def pattern(self) -> str:
        return getattr(self, self.kind)


class DiagnoseExamples(Model):
    match: list[Annotated[str, StringConstraints(min_length=1, max_length=20000)]] = Field(
        min_length=1, description="Real log excerpts this entry must be diagnosed from (attribute them in references)."
    )
    no_match: list[Annotated[str, StringConstraints(min_length=1, max_length=20000)]] = Field(
        default_factory=list, description="Near-misses this entry must not match."
    )


class Diagnose(Model):
    fingerprints: list[Fingerprint] = Field(min_length=1, description="Patterns that identify this failure in a log.")
    match: Literal["any", "all"] = Field(
        default="any",
        description="any: one root fingerprint suffices; all: every root and symptom fingerprint must appear somewhere.",
    )
    priority: int = Field(default=0, ge=-100, le=100, description="Tie-breaker between entries; higher ranks first.")
    explains: list[EntryId] = Field(default_factory=list, description="Ids of failures this one causes downstream.")
    exclude: list[Annotated[str, StringConstraints(min_length=1, max_length=400)]] = Field(
        default_factory=list, description="Literals that, anywhere in the log, rule this entry out."
    )
    examples: DiagnoseExamples = Field(description="Log excerpts that must and must not match.")

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)

    @model_validator(mode="after")
    def _has_a_root(self) -> Diagnose:
        if not any(f.role == "root" for f in self.fingerprints):
            raise ValueError("at least one fingerprint must have role: root (symptom and context never match alone)")
        return self


class Entry(Model):
    id: EntryId = Field(description="Equals the file name without .yaml; never changes (renames go through aliases).")
    title: OneLine = Field(description="The failure in one line, as a user would describe it.")
    aliases: list[EntryId] = Field(default_factory=list, description="Former ids; each becomes a redirect page.")
    category: str = Field(description="From entries/_vocab/categories.yml; equals the folder name.")
    severity: str = Field(description="From entries/_vocab/severities.yml.")
    status: Literal["active", "fixed-upstream", "obsolete"] = Field(
        default="active",
        description="active, fixed-upstream (fixed in a release; still seen on old versions), or obsolete.",
    )
    tags: list[str] = Field(min_length=1, description="From entries/_vocab/tags.yml.")
    stages: list[Literal["training", "fine-tuning", "evaluation", "inference", "install"]] = Field(
        min_length=1, description="When in a model's life this failure shows up."
    )
    layer: Literal["software", "hardware", "configuration", "mixed"] = Field(
        description=(
            "Where the cause lives: software (a bug), hardware, configuration, or mixed (it differs from"
            " case to case, and the checklist tells which)."
        )
    )
    summary: Prose = Field(description="One paragraph: what fails, where and why. The page's first paragraph.")
    root_cause: Prose = Field(description="The cause in one or two sentences; shown in the quick-answer box.")
    mechanism: LongProse = Field(description="Why it happens, step by step. Markdown paragraphs and lists.")
    observe: list[Prose] = Field(min_length=1, description="What you will observe, one item per observation.")
    symptoms: list[Symptom] = Field(min_length=1, description="Symptom table rows.")
    affected: Affected = Field(description="Affected systems, versions and hardware.")
    confirm: list[Check] = Field(min_length=1, description="Checklist that confirms this is the cause.")
    fix: Fix = Field(description="The fix.")
    prevention: list[Prose] = Field(default_factory=list, description="How to keep it from happening again.")
    recurrence: Prose | None = Field(default=None, description="Will it come back after the fix, and when.")
    scale: Prose | None = Field(default=None, description="How it behaves on one GPU versus many.")
    diagnose: Diagnose = Field(description="Fingerprints and examples for `trainwreck diagnose`.")
    references: list[Reference] = Field(min_length=2, description="Public sources for every fact on the page.")
    related: list[Related] = Field(default_factory=list, description="Related entries; backlinks are generated.")
    credits: list[OneLine] = Field(default_factory=list, description="Who reported, researched or wrote this entry.")
    created: dt.date = Field(description="Date the entry was added, YYYY-MM-DD.")

    @field_validator("id")
    @classmethod
    def _not_reserved(cls, value: str) -> str:
        if value in WINDOWS_RESERVED:
            raise ValueError(f"{value!r} is a reserved file name on Windows")
        return value

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: str, info: ValidationInfo) -> str:
        return _check_terms([value], info, "categories")[0]

    @field_validator("severity")
    @classmethod
    def _known_severity(cls, value: str, info: ValidationInfo) -> str:
        return _check_terms([value], info, "severities")[0]

    @field_validator("tags")
    @classmethod
    def _known_tags(cls, value: list[str], info: ValidationInfo) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("tags must not repeat")
        return _check_terms(value, info, "tags")

    @model_validator(mode="after")
    def _no_self_reference(self) -> Entry:
        if any(link.id == self.id for link in self.related):
            raise ValueError("related: an entry cannot relate to itself")
        if self.id in self.aliases:
            raise ValueError("aliases: an entry's own id cannot be an alias")
        return self


def model_of(annotation: object) -> type[BaseModel] | None:
    """The model inside a field annotation (`Fix`, `list[Step]`, `Prose | None`...), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = model_of(arg)
        if found is not None:
            return found
    return None
