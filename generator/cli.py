"""The `trainwreck` command line. Parses arguments, calls the library, turns problems into exit codes.

Exit codes: 0 success, 1 a finding (invalid entries, no confident match), 2 misuse.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from generator import __version__, freshness
from generator.errors import ProblemsFound
from generator.settings import NoCheckout, Settings, find_root, is_checkout, settings_for

# Each command imports the stages it uses when it runs. A no-op `trainwreck build` answers from
# the freshness stamp alone, and importing Pydantic, Jinja and the YAML libraries would be most
# of its time (0.25 of 0.4 s at 10,000 entries).

CHUNK = 1 << 20


class Misuse(Exception):
    """Wrong arguments or a missing input file: exit 2."""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.command(settings_for(_root(args.root)), args)
    except ProblemsFound as found:
        _report(found, getattr(args, "format", "text"))
        return 1
    except (Misuse, NoCheckout) as error:
        print(f"trainwreck: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def _root(given: str | None) -> Path:
    if given is None:
        return find_root(Path.cwd())
    if not is_checkout(Path(given)):
        raise NoCheckout(f"--root {Path(given).resolve()} holds no entries/_vocab folder; pass the repository root")
    return Path(given)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trainwreck", description="Build and query the Trainwreck encyclopedia.")
    parser.add_argument("--version", action="version", version=f"trainwreck {__version__}")
    parser.add_argument(
        "--root",
        help="repository root (default: the nearest folder holding entries/_vocab, else the checkout trainwreck runs from)",
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    validate = commands.add_parser("validate", help="check every entry; report all problems as path:line:col")
    validate.add_argument("--format", choices=["text", "github"], default="text", help="github: workflow annotations")
    validate.set_defaults(command=_validate)

    build_ = commands.add_parser("build", help="validate, then generate the site's pages into build/docs")
    build_.add_argument("--check", action="store_true", help="render everything in memory; write nothing")
    build_.add_argument("--format", choices=["text", "github"], default="text", help="github: workflow annotations")
    build_.set_defaults(command=_build)

    new = commands.add_parser("new", help="write a skeleton entry that validates once its placeholders are filled")
    new.add_argument("id", help="the new entry's id, e.g. nccl-timeout-after-oom")
    new.add_argument("--category", required=True, help="a category from entries/_vocab/categories.yml")
    new.set_defaults(command=_new)

    diagnose = commands.add_parser("diagnose", help="match a training log against every entry's fingerprints")
    diagnose.add_argument("log", help="log file, or - for standard input")
    diagnose.add_argument("--json", action="store_true", help="print the canonical JSON result")
    diagnose.add_argument("--fingerprints", type=Path, help="use this fingerprints.json instead of entries/")
    diagnose.set_defaults(command=_diagnose)

    explain = commands.add_parser("explain", help="print an entry in the terminal")
    explain.add_argument("id", help="an entry id or alias")
    explain.set_defaults(command=_explain)

    fmt = commands.add_parser("fmt", help="rewrite entries into the canonical layout, keeping comments")
    fmt.add_argument("paths", nargs="*", type=Path, help="entry files (default: every entry)")
    fmt.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    fmt.set_defaults(command=_fmt)

    export = commands.add_parser("export", help="print machine-readable data to standard output")
    export.add_argument("what", choices=["entries", "fingerprints", "schema"], help="what to export")
    export.set_defaults(command=_export)
    return parser


def _validate(settings: Settings, args) -> int:
    from generator.build import load_catalog

    catalog = load_catalog(settings)
    print(f"{len(catalog.entries)} entries valid", file=sys.stderr)
    return 0


def _build(settings: Settings, args) -> int:
    inputs = None if args.check else freshness.inputs_stamp(settings)
    if inputs is not None and (fresh := freshness.fresh_counts(settings, inputs)):
        entries, pages = fresh
        _print_written(settings, entries, written=0, unchanged=pages, removed=0)
        return 0
    from generator.build import build

    result = build(settings, write=not args.check, stale_inputs=inputs)
    if result.write is None:
        print(f"{result.entries} entries, {result.pages} pages rendered; nothing written (--check)", file=sys.stderr)
        return 0
    done = result.write
    _print_written(settings, result.entries, done.written, done.unchanged, done.removed)
    return 0


def _print_written(settings: Settings, entries: int, written: int, unchanged: int, removed: int) -> None:
    shown = settings.generated_dir.relative_to(settings.root)
    print(f"{entries} entries → {shown}/: {written} written, {unchanged} unchanged, {removed} removed", file=sys.stderr)


def _new(settings: Settings, args) -> int:
    from generator.build import load_catalog
    from generator.scaffold import ScaffoldError, write_scaffold

    catalog = load_catalog(settings)
    try:
        path = write_scaffold(settings, catalog, args.id, args.category)
    except ScaffoldError as error:
        raise Misuse(str(error)) from None
    print(f"wrote {path.relative_to(settings.root).as_posix()}; fill in every TODO, then run: trainwreck validate")
    return 0


def _diagnose(settings: Settings, args) -> int:
    from generator import report
    from generator.build import site_info
    from generator.diagnose import diagnose_stream
    from generator.fingerprints import canonical_json

    fingerprint_set = _fingerprint_set(settings, args.fingerprints)
    if args.log == "-":
        result = diagnose_stream(_chunks(sys.stdin.buffer), fingerprint_set)
    else:
        path = Path(args.log)
        if not path.is_file():
            raise Misuse(f"{args.log}: no such file")
        with path.open("rb") as stream:
            result = diagnose_stream(_chunks(stream), fingerprint_set)
    site = site_info(settings)
    if args.json:
        sys.stdout.write(canonical_json(result) + "\n")
    else:
        sys.stdout.write(report.diagnosis_text(result, site.site_url, site.new_issue_url))
    return 0 if result["confident"] else 1


def _explain(settings: Settings, args) -> int:
    from generator import report
    from generator.build import load_catalog, site_info

    catalog = load_catalog(settings)
    entry = catalog.find(args.id)
    site = site_info(settings)
    if entry is None:
        print(f"trainwreck: no entry {args.id!r}. Report it: {site.new_issue_url}", file=sys.stderr)
        return 1
    sys.stdout.write(report.entry_text(entry, catalog, site.site_url))
    return 0


def _export(settings: Settings, args) -> int:
    from generator.build import load_catalog
    from generator.fingerprints import canonical_json, compile_fingerprints
    from generator.jsonschema import schema_text
    from generator.pages import entries_index, to_json
    from generator.vocabulary import load_vocabulary

    if args.what == "schema":
        # The schema follows from the models and the vocabularies alone, so an entry that does not
        # validate yet (the usual state while adding a system or tag) does not stop it.
        sys.stdout.write(schema_text(load_vocabulary(settings.vocab_dir, settings.root)))
        return 0
    catalog = load_catalog(settings)
    if args.what == "fingerprints":
        sys.stdout.write(canonical_json(compile_fingerprints(catalog.entries)) + "\n")
    else:
        sys.stdout.write(to_json(entries_index(catalog)))
    return 0


def _fmt(settings: Settings, args) -> int:
    from generator.filetree import replace_file
    from generator.formatting import (
        FormattingError,
        format_entries,
        formatter_version,
        known_canonical,
        remember_canonical,
        text_digest,
    )
    from generator.parallel import worker_count
    from generator.sources import find_sources

    paths = args.paths or sorted(source.path for source in find_sources(settings.entries_dir, settings.root)[0])
    texts, broken = {}, []
    for path in paths:
        try:
            texts[path] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            broken.append(f"{_shown(path, settings.root)}: cannot format: {str(error).splitlines()[0]}")
    version = formatter_version(settings)
    known = known_canonical(settings.root, version)
    digests = {path: text_digest(text) for path, text in texts.items()}
    to_format = [path for path in texts if digests[path] not in known]
    canonical = set(digests.values()) & known
    changed = []
    for path, formatted in zip(
        to_format, format_entries([texts[path] for path in to_format], worker_count()), strict=True
    ):
        shown = _shown(path, settings.root)
        if isinstance(formatted, FormattingError):
            broken.append(f"{shown}: cannot format: {formatted}")
            continue
        canonical.add(text_digest(formatted))
        if formatted != texts[path]:
            changed.append(shown)
            if not args.check:
                replace_file(path, [formatted.encode("utf-8")])
    if not args.check:
        # Named files leave what is known of the others; a run over every entry keeps just these.
        remember_canonical(settings.root, version, canonical | known if args.paths else canonical)
    for line in broken:
        print(line, file=sys.stderr)
    verb = "would reformat" if args.check else "reformatted"
    for shown in changed:
        print(f"{verb} {shown}", file=sys.stderr)
    print(f"{len(changed)} file(s) {verb}, {len(paths) - len(changed) - len(broken)} unchanged", file=sys.stderr)
    return 1 if broken or (args.check and changed) else 0


def _shown(path: Path, root: Path) -> str:
    resolved = path.resolve()
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)


def _fingerprint_set(settings: Settings, path: Path | None) -> dict:
    if path is None:
        stamp = freshness.entries_stamp(settings)
        fingerprint_set = freshness.saved_fingerprint_set(settings, stamp)
        if fingerprint_set is None:
            from generator.build import current_fingerprint_set

            fingerprint_set = current_fingerprint_set(settings)
            freshness.save_fingerprint_set(settings, stamp, fingerprint_set)
        return fingerprint_set
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise Misuse(f"{path}: cannot read fingerprints ({error})") from None


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(CHUNK):
        yield chunk


def _report(found: ProblemsFound, style: str) -> None:
    for problem in found.problems:
        print(problem.github_annotation() if style == "github" else str(problem), file=sys.stderr)
    print(f"{len(found.problems)} problem(s) found; nothing was written", file=sys.stderr)
