"""Is build/docs already exactly what the current inputs produce? Then a build can stop at once.
And is the fingerprint set saved by the last `trainwreck diagnose` still the entries' own?

A stamp records the size and modification time of every input (entries, vocabularies,
templates, hand-written docs, mkdocs.yml, the generator's own code and data), the git commit
(last-updated dates come from history), and the same for every output file. If all match,
nothing can have changed, and a no-op rerun writes nothing without parsing anything. Any
difference, including a hand-edited output file, means a full build.

Diagnosing a log needs only the patterns, yet checking every entry to compile them took about
3 s and 170 MB at 1,000 entries, ten times that at 10,000. So the set is saved in build/ with a
stamp of the entries, their vocabularies and the generator, and reused while that matches.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
from pathlib import Path

from generator.filetree import file_stats, replace_file
from generator.settings import Settings

STAMP_NAME = ".trainwreck-stamp.json"
FINGERPRINTS_NAME = ".trainwreck-fingerprints.json"
GENERATOR_DIR = Path(__file__).parent


def stamp_path(settings: Settings) -> Path:
    return settings.generated_dir.parent / STAMP_NAME


def inputs_stamp(settings: Settings) -> dict:
    """What the build reads. Taken once, before the build: an input edited while it runs then
    no longer matches the recorded stamp, and the next build redoes the work."""
    folders = [settings.entries_dir, settings.templates_dir, settings.docs_dir, GENERATOR_DIR]
    files = [settings.mkdocs_config]
    return {"inputs": _digest(_stats(folders, files, settings.root)), "commit": _git_head(settings.root)}


def _outputs_digest(settings: Settings) -> str:
    return _digest(_stats([settings.generated_dir], [], settings.generated_dir))


def shared_inputs_stamp(settings: Settings) -> str:
    """Inputs every page depends on: vocabularies, templates, mkdocs.yml, git history."""
    rows = _stats([settings.vocab_dir, settings.templates_dir], [settings.mkdocs_config], settings.root)
    return _digest(rows) + _git_head(settings.root)


def fresh_counts(settings: Settings, inputs: dict) -> tuple[int, int] | None:
    """(entries, pages) of the previous build when nothing changed since; otherwise None."""
    try:
        recorded = json.loads(stamp_path(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not settings.generated_dir.is_dir() or recorded.get("stamp") != {**inputs, "outputs": _outputs_digest(settings)}:
        return None
    return recorded["entries"], recorded["pages"]


def record(settings: Settings, inputs: dict, entries: int, pages: int) -> None:
    """Remember that the output as it is now was made from `inputs`."""
    data = {"stamp": {**inputs, "outputs": _outputs_digest(settings)}, "entries": entries, "pages": pages}
    replace_file(stamp_path(settings), [json.dumps(data, sort_keys=True).encode()])


def forget(settings: Settings) -> None:
    stamp_path(settings).unlink(missing_ok=True)


def entries_stamp(settings: Settings) -> str:
    """What a fingerprint set is compiled from: the entry files with their vocabularies, and the
    generator's code and data (the pattern dialect, error hints, log prefixes)."""
    return _digest(_stats([settings.entries_dir, GENERATOR_DIR], [], settings.root))


def saved_fingerprint_set(settings: Settings, stamp: str) -> dict | None:
    """The fingerprint set saved with this stamp, or None when there is none, it is damaged or stale."""
    try:
        saved = json.loads(_fingerprints_path(settings).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("stamp") != stamp or not isinstance(saved.get("set"), dict):
        return None
    return saved["set"]


def save_fingerprint_set(settings: Settings, stamp: str, fingerprint_set: dict) -> None:
    """Keep the set for the next diagnosis; a checkout that cannot be written only loses the speed-up."""
    with contextlib.suppress(OSError):
        replace_file(_fingerprints_path(settings), [json.dumps({"stamp": stamp, "set": fingerprint_set}).encode()])


def _fingerprints_path(settings: Settings) -> Path:
    return settings.build_dir / FINGERPRINTS_NAME


def _stats(folders: list[Path], files: list[Path], relative_to: Path) -> list[tuple[str, int, int]]:
    rows: list[tuple[str, int, int]] = []
    base = str(relative_to)
    for folder in folders:
        shown = os.path.relpath(folder, base)
        try:
            rows += [(f"{shown}/{name}", *stat) for name, stat in file_stats(str(folder)).items()]
        except OSError:
            rows.append((shown, -1, -1))
    for path in files:
        try:
            info = path.stat()
            rows.append((os.path.relpath(path, base), info.st_size, info.st_mtime_ns))
        except OSError:
            rows.append((str(path), -1, -1))
    return rows


def _digest(rows: list[tuple[str, int, int]]) -> str:
    return hashlib.sha256(repr(rows).encode("utf-8")).hexdigest()


def _git_head(root: Path) -> str:
    try:
        result = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return result.stdout.strip()
