"""Write a synthetic but realistic repository of N entries: `python benchmarks/make_corpus.py N DIR`.

Each synthetic entry is a real entry from entries/ with a new id, title and fingerprints, so field
sizes, Markdown, tag and category mix match the real corpus. Related links point at other
synthetic entries; every entry validates (the benchmark would measure nothing otherwise).
"""

from __future__ import annotations

import argparse
import copy
import random
import shutil
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SITE_PARTS = ("mkdocs.yml", "templates", "docs", "site_overrides", "entries/_vocab")


def install_site_files(target: Path) -> None:
    """Copy this checkout's site configuration, templates, pages and MkDocs hook into `target`,
    replacing older copies, so a corpus is built the way the real site is."""
    for part in (*SITE_PARTS, "generator/mkdocs_hook.py"):
        source, copy_to = ROOT / part, target / part
        if copy_to.is_dir():
            shutil.rmtree(copy_to)
        copy_to.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, copy_to)
        else:
            shutil.copy2(source, copy_to)


def make_corpus(count: int, target: Path, seed: int = 1) -> Path:
    """A repository at `target` with the real site files and `count` synthetic entries.

    Entry N copies the same real entry whatever `count` is (its own random stream picks the
    models), so corpora of different sizes can be compared entry by entry."""
    rng, picks = random.Random(seed), random.Random(seed)
    if target.exists():
        shutil.rmtree(target)
    install_site_files(target)
    models = [
        yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        for path in sorted(ROOT.glob("entries/*/*.yaml"))
    ]
    ids = [f"synthetic-{number:05d}" for number in range(count)]
    for number, entry_id in enumerate(ids):
        entry = _variant(picks.choice(models), entry_id, number, ids, rng)
        path = target / "entries" / entry["category"] / f"{entry_id}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = yaml.dump(entry, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True, width=100)
        path.write_text(text, encoding="utf-8")
    return target


def _variant(model: dict, entry_id: str, number: int, ids: list[str], rng: random.Random) -> dict:
    entry = copy.deepcopy(model)
    marker = f"SyntheticFailure{number:05d}"
    entry["id"] = entry_id
    entry["title"] = f"{model['title']} (variant {number})"
    entry.pop("aliases", None)
    others = [other for other in rng.sample(ids, min(3, len(ids))) if other != entry_id]
    entry["related"] = [{"id": other, "why": "Synthetic cross-link for the benchmark."} for other in others]
    entry["symptoms"] = [{"text": f"{marker}: the job stopped", "meaning": "Synthetic symptom."}, *entry["symptoms"]]
    entry["diagnose"] = {
        "fingerprints": [
            {"contains": f"{marker}: the job stopped"},
            {"template": f"{marker} on rank <NUM> after <NUM> steps", "role": "symptom"},
        ],
        "examples": {
            "match": [f"step 10\n{marker}: the job stopped\n{marker} on rank 3 after 10 steps\n"],
            "no_match": [f"{marker} is fine\n"],
        },
    }
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("count", type=int)
    parser.add_argument("target", type=Path)
    args = parser.parse_args()
    make_corpus(args.count, args.target)
    print(f"wrote {args.count} entries to {args.target}")


if __name__ == "__main__":
    main()
