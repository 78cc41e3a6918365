"""The `trainwreck` command line. Parses arguments, calls the library, turns problems into exit codes.

Exit codes: 0 success, 1 a finding (invalid entries, no confident match), 2 misuse.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator import __version__
from generator.build import build, load_catalog
from generator.errors import ProblemsFound
from generator.settings import find_root, settings_for


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    settings = settings_for(Path(args.root) if args.root else find_root(Path.cwd()))
    try:
        return args.command(settings, args)
    except ProblemsFound as found:
        _report(found, getattr(args, "format", "text"))
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trainwreck", description="Build and query the Trainwreck encyclopedia.")
    parser.add_argument("--version", action="version", version=f"trainwreck {__version__}")
    parser.add_argument("--root", help="repository root (default: the nearest folder holding entries/_vocab)")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    validate = commands.add_parser("validate", help="check every entry; report all problems with file:line:col")
    validate.add_argument("--format", choices=["text", "github"], default="text", help="github: workflow annotations")
    validate.set_defaults(command=_validate)

    build = commands.add_parser("build", help="validate, then generate the site's pages into build/docs")
    build.add_argument("--check", action="store_true", help="render everything in memory; write nothing")
    build.set_defaults(command=_build)
    return parser


def _validate(settings, args) -> int:
    catalog = load_catalog(settings)
    print(f"{len(catalog.entries)} entries valid", file=sys.stderr)
    return 0


def _build(settings, args) -> int:
    report = build(settings, write=not args.check)
    if report.write is None:
        print(f"{report.entries} entries, {report.pages} pages rendered; nothing written (--check)", file=sys.stderr)
    else:
        done = report.write
        shown = settings.generated_dir.relative_to(settings.root)
        print(
            f"{report.entries} entries → {shown}/: {done.written} written, {done.unchanged} unchanged, {done.removed} removed",
            file=sys.stderr,
        )
    return 0


def _report(found: ProblemsFound, style: str) -> None:
    for problem in found.problems:
        print(problem.github_annotation() if style == "github" else str(problem), file=sys.stderr)
    print(f"{len(found.problems)} problem(s) found; nothing was written", file=sys.stderr)
